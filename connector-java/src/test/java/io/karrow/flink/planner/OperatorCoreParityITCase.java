package io.karrow.flink.planner;

import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.KafkaTestSupport;
import io.karrow.flink.testutils.SqlTestSupport;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Source fusion end to end on a real broker and MiniCluster: each query runs once on the stock path
 * ({@code kafka} connector, {@code json} format, Flink's Calc) and once on karrow with the operator
 * core on ({@code kafka-native} with the native fetch and {@code json-native}: the planner fuses the
 * Calc into the scan and the source runs it natively on every fetched batch). The output topics must
 * hold the same values byte for byte, in the same order (one partition in, one out, parallelism 1),
 * and the fused run must show that fusion engaged: {@code EXPLAIN} has {@code KarrowFusedScan}, the
 * planner reported the segment fused, and the source's {@code karrow.numFusedBatches} /
 * {@code numFusedRowsEmitted} counters count the batches and exactly the rows written. A query the
 * core declines must run unfused (no fused counter) with the same output; a row the Calc fails on
 * must fail both jobs with Flink's message, the fused one naming topic, partition and offset.
 *
 * <p>The corpus: 12,000 JSON values over every type the JSON format and the operator plan share, with
 * NULLs (explicit and missing fields), extremes (integer bounds, overflowing sums), non-ASCII and
 * supplementary characters. A second topic adds unreadable values, read with {@code ignore-parse-errors},
 * under which stock {@code json} also drops records its chained Calc fails on: the planner declines
 * those scans, and they must run unfused with the same output.
 * Needs {@code -Dkarrow.kafka.bootstrap} and {@code -Dkarrow.native.library}.
 */
class OperatorCoreParityITCase {

    private static final int RECORDS = 12_000;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder()
                    .setConfiguration(CollectedMetrics.configuration())
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .build());

    private static final String TYPES_COLUMNS = "id BIGINT, b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT,"
            + " f FLOAT, d DOUBLE, dm DECIMAL(10, 2), s STRING, dt DATE, ts TIMESTAMP(3), tsl TIMESTAMP_LTZ(3)";

    private static final String BIDS_COLUMNS = "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING,"
            + " url STRING, date_time TIMESTAMP(3), extra STRING";

    private static String typesTopic;
    private static String typesWithGarbageTopic;
    private static String bidsTopic;

    private final List<String> fused = Collections.synchronizedList(new ArrayList<>());
    private final List<String> declined = Collections.synchronizedList(new ArrayList<>());
    private final FusionDecisions.Listener listener = new FusionDecisions.Listener() {
        @Override
        public void fused(String segment, String detail) {
            fused.add(segment);
        }

        @Override
        public void declined(String segment, String reason) {
            declined.add(segment + ": " + reason);
        }
    };

    @BeforeAll
    static void writeCorpora() throws Exception {
        KafkaTestSupport.requireBroker();
        typesTopic = KafkaTestSupport.createTopic("parity-types", 1);
        typesWithGarbageTopic = KafkaTestSupport.createTopic("parity-types-garbage", 1);
        bidsTopic = KafkaTestSupport.createTopic("parity-bids", 1);
        Random random = new Random(19);
        Random garbageRandom = new Random(20);
        try (KafkaProducer<byte[], byte[]> producer = KafkaTestSupport.producer()) {
            for (int n = 0; n < RECORDS; n++) {
                producer.send(new ProducerRecord<>(typesTopic, utf8(typesValue(n, random, false))));
                producer.send(new ProducerRecord<>(typesWithGarbageTopic, utf8(typesValue(n, garbageRandom, true))));
                producer.send(new ProducerRecord<>(bidsTopic, utf8(bidValue(n, random))));
            }
            producer.flush();
        }
    }

    @BeforeEach
    void listen() {
        FusionDecisions.addListener(listener);
    }

    @AfterEach
    void stopListening() {
        FusionDecisions.removeListener(listener);
    }

    private static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    private static final String[] STRINGS = {"plain", "", " padded ", "café", "ÉCOLE", "日本語テキスト", "emoji 😀 x",
        "straße", "a%b_c", "Mixed Case é", "0123456789"};

    /** One value of a types topic: about a tenth of each field NULL or missing; with garbage every 97th unreadable. */
    private static String typesValue(int n, Random random, boolean garbage) {
        if (garbage && n % 97 == 13) {
            return n % 2 == 0 ? "{not json" : "{\"id\": " + n + ", \"i\": \"not a number\"}";
        }
        StringBuilder v = new StringBuilder("{\"id\": ").append(n);
        field(v, random, "b", String.valueOf(random.nextBoolean()));
        field(v, random, "ti", String.valueOf(pick(random, Byte.MIN_VALUE, Byte.MAX_VALUE, random.nextInt(256) - 128)));
        field(v, random, "si", String.valueOf(pick(random, Short.MIN_VALUE, Short.MAX_VALUE, random.nextInt(2000) - 1000)));
        field(v, random, "i", String.valueOf(pick(random, Integer.MIN_VALUE, Integer.MAX_VALUE, random.nextInt(4000) - 2000)));
        field(v, random, "bi", String.valueOf(random.nextInt(20) == 0
                ? (random.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE) : random.nextLong() % 10_000_000L));
        field(v, random, "f", String.format(Locale.ROOT, "%.3f", random.nextFloat() * 200 - 100));
        field(v, random, "d", String.valueOf(random.nextDouble() * (random.nextInt(10) == 0 ? 1e12 : 1)));
        field(v, random, "dm", String.format(Locale.ROOT, "%d.%02d", random.nextInt(2_000_000) - 1_000_000,
                random.nextInt(100)));
        field(v, random, "s", quote(STRINGS[random.nextInt(STRINGS.length)] + (random.nextInt(3) == 0 ? "-" + n : "")));
        int day = random.nextInt(40_000) - 10_000;
        field(v, random, "dt", quote(java.time.LocalDate.ofEpochDay(day).toString()));
        long millis = (day * 86_400_000L) + random.nextInt(86_400_000);
        String ts = java.time.LocalDateTime.ofEpochSecond(Math.floorDiv(millis, 1000), (int) Math.floorMod(millis, 1000)
                * 1_000_000, java.time.ZoneOffset.UTC).format(java.time.format.DateTimeFormatter.ofPattern(
                "yyyy-MM-dd HH:mm:ss.SSS", Locale.ROOT));
        field(v, random, "ts", quote(ts));
        field(v, random, "tsl", quote(ts + "Z"));
        return v.append('}').toString();
    }

    private static long pick(Random random, long min, long max, long usual) {
        int r = random.nextInt(30);
        return r == 0 ? min : r == 1 ? max : usual;
    }

    private static void field(StringBuilder v, Random random, String name, String json) {
        int r = random.nextInt(20);
        if (r == 0) {
            return; // missing: NULL
        }
        v.append(", \"").append(name).append("\": ").append(r == 1 ? "null" : json);
    }

    private static String quote(String s) {
        return io.karrow.flink.nativebridge.JsonText.appendString(new StringBuilder(), s).toString();
    }

    /** One Nexmark-like bid (the demo's columns), prices around the demo's 1000 threshold. */
    private static String bidValue(int n, Random random) {
        long price = random.nextInt(10) == 0 ? 1000 : random.nextInt(3000);
        String extra = random.nextInt(5) == 0 ? "null" : quote("extra-" + random.nextInt(1000));
        return "{\"auction\": " + (1000 + random.nextInt(500)) + ", \"bidder\": " + random.nextInt(100_000)
                + ", \"price\": " + price + ", \"channel\": " + quote(new String[] {"Google", "Apple", "Baidu"}[n % 3])
                + ", \"url\": " + quote("https://www.nexmark.com/item.htm?query=1&channel_id=" + n)
                + ", \"date_time\": \"2023-11-14 22:13:" + String.format(Locale.ROOT, "%02d.%03d", n % 60, n % 1000)
                + "\", \"extra\": " + extra + "}";
    }

    /** Which side a job runs on. */
    private enum Side {
        STOCK("kafka", "json"),
        FUSED("kafka-native", "json-native");

        final String connector;
        final String format;

        Side(String connector, String format) {
            this.connector = connector;
            this.format = format;
        }
    }

    private static StreamTableEnvironment tableEnv(Side side, String jobName) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set("table.local-time-zone", "UTC");
        tEnv.getConfig().set("pipeline.name", jobName);
        tEnv.getConfig().set(OperatorCoreOptions.ENABLED, side == Side.FUSED);
        return tEnv;
    }

    private static String source(Side side, String name, String columns, String topic, boolean ignoreParseErrors) {
        return "CREATE TEMPORARY TABLE " + name + " (" + columns + ") WITH ("
                + "'connector' = '" + side.connector + "', "
                + "'topic' = '" + topic + "', "
                + "'properties.bootstrap.servers' = '" + KafkaTestSupport.bootstrap() + "', "
                + "'properties.group.id' = 'parity', "
                + "'scan.startup.mode' = 'earliest-offset', "
                + "'scan.bounded.mode' = 'latest-offset', "
                + (side == Side.FUSED ? "'scan.fetch-mode' = 'native', " : "")
                + "'value.format' = '" + side.format + "', "
                + "'value." + side.format + ".ignore-parse-errors' = '" + ignoreParseErrors + "')";
    }

    private static String sink(Side side, String name, String columns, String topic) {
        return "CREATE TEMPORARY TABLE " + name + " (" + columns + ") WITH ("
                + "'connector' = '" + side.connector + "', "
                + "'topic' = '" + topic + "', "
                + "'properties.bootstrap.servers' = '" + KafkaTestSupport.bootstrap() + "', "
                + "'value.format' = '" + side.format + "')";
    }

    /** What one side of a query wrote and showed. */
    private record Run(List<byte[]> values, String explain, String jobName) {}

    private static Run run(Side side, String label, String sourceTable, String sourceColumns, String sourceTopic,
            String outColumns, String select) throws Exception {
        String jobName = "parity-" + label + "-" + side.name().toLowerCase(Locale.ROOT);
        String out = KafkaTestSupport.createTopic("parity-out-" + label + "-" + side.name().toLowerCase(Locale.ROOT), 1);
        StreamTableEnvironment tEnv = tableEnv(side, jobName);
        tEnv.executeSql(source(side, sourceTable, sourceColumns, sourceTopic, sourceTopic.equals(typesWithGarbageTopic)));
        tEnv.executeSql(sink(side, "out_table", outColumns, out));
        String insert = "INSERT INTO out_table " + select;
        String explain = tEnv.explainSql(insert);
        tEnv.executeSql(insert).await();
        List<byte[]> values = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : KafkaTestSupport.readAll(out, false)) {
            assertThat(r.key()).isNull();
            assertThat(r.headers().toArray()).isEmpty();
            values.add(r.value());
        }
        return new Run(values, explain, jobName);
    }

    /** Runs {@code select} on both sides and checks the outputs are equal and that the fused side fused. */
    private void assertParity(String label, String sourceTable, String sourceColumns, String sourceTopic,
            String outColumns, String select, int minimumRows) throws Exception {
        Run stock = run(Side.STOCK, label, sourceTable, sourceColumns, sourceTopic, outColumns, select);
        assertThat(stock.explain()).doesNotContain("Karrow");
        assertThat(stock.values()).hasSizeGreaterThanOrEqualTo(minimumRows);
        fused.clear();
        declined.clear();
        Run native_ = run(Side.FUSED, label, sourceTable, sourceColumns, sourceTopic, outColumns, select);

        assertThat(native_.explain()).as("declined: %s", declined).contains("KarrowFusedScan");
        assertThat(fused).as("declined: %s", declined).anyMatch(s -> s.startsWith("Calc("));
        assertThat(CollectedMetrics.sum(native_.jobName(), "karrow", "numFusedBatches")).isPositive();
        assertThat(CollectedMetrics.sum(native_.jobName(), "karrow", "numFusedRowsEmitted"))
                .isEqualTo(stock.values().size());
        assertSameBytes(stock.values(), native_.values());
    }

    private static void assertSameBytes(List<byte[]> stock, List<byte[]> native_) {
        assertThat(native_).hasSameSizeAs(stock);
        for (int i = 0; i < stock.size(); i++) {
            String expected = new String(stock.get(i), StandardCharsets.UTF_8);
            assertThat(native_.get(i)).as("output record %d, stock %s, native %s", i, expected,
                    new String(native_.get(i), StandardCharsets.UTF_8)).isEqualTo(stock.get(i));
        }
    }

    @Test
    void theDemoQuery() throws Exception {
        assertParity("demo", "bids", BIDS_COLUMNS, bidsTopic,
                "auction BIGINT, bidder BIGINT, price_cents BIGINT, date_time TIMESTAMP(3)",
                "SELECT auction, bidder, price * 100 AS price_cents, date_time FROM bids WHERE price > 1000", 1000);
    }

    @Test
    void everyTypeProjectedAndFiltered() throws Exception {
        assertParity("types", "src", TYPES_COLUMNS, typesTopic, TYPES_COLUMNS,
                "SELECT id, b, ti, si, i, bi, f, d, dm, s, dt, ts, tsl FROM src WHERE MOD(id, 3) <> 0 OR b IS NULL",
                5000);
    }

    @Test
    void expressionsOverEveryTypeWithNulls() throws Exception {
        assertParity("exprs", "src", TYPES_COLUMNS, typesTopic,
                "id BIGINT, wrapped BIGINT, twice INT, dec2 DECIMAL(11, 2), half DOUBLE, nb BOOLEAN, bn BOOLEAN,"
                        + " sign_ STRING, s2 STRING, us STRING, cl INT, sub STRING, cc STRING, y BIGINT, h BIGINT,"
                        + " df STRING, tdate DATE, ib BIGINT, small INT",
                "SELECT id, bi + i AS wrapped, i * 2 AS twice, dm * 2 AS dec2, d / 2 AS half, NOT b AS nb,"
                        + " b IS NULL AS bn, CASE WHEN i > 0 THEN 'pos' WHEN i < 0 THEN 'neg' ELSE 'zero' END AS sign_,"
                        + " COALESCE(s, 'none') AS s2, UPPER(s) AS us, CHAR_LENGTH(s) AS cl, SUBSTRING(s, 2, 3) AS sub,"
                        + " CONCAT(s, '-', CAST(id AS STRING)) AS cc, EXTRACT(YEAR FROM ts) AS y, HOUR(ts) AS h,"
                        + " DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss') AS df, CAST(ts AS DATE) AS tdate,"
                        + " CAST(i AS BIGINT) AS ib, ti + si AS small"
                        + " FROM src WHERE (d > 0.25 OR s LIKE '%é%' OR dt < DATE '1970-01-01') AND i IS NOT NULL",
                3000);
    }

    @Test
    void ignoreParseErrorsOnJsonDeclinesAndRunsUnfused() throws Exception {
        String select = "SELECT id, i * 2 AS v, s FROM src WHERE b";
        String columns = "id BIGINT, v INT, s STRING";
        Run stock = run(Side.STOCK, "garbage", "src", TYPES_COLUMNS, typesWithGarbageTopic, columns, select);
        declined.clear();
        Run native_ = run(Side.FUSED, "garbage", "src", TYPES_COLUMNS, typesWithGarbageTopic, columns, select);

        assertThat(native_.explain()).doesNotContain("KarrowFused");
        assertThat(declined).anyMatch(d -> d.startsWith("Calc(") && d.contains("ignore-parse-errors"));
        assertThat(CollectedMetrics.sum(native_.jobName(), "karrow", "numFusedBatches")).isZero();
        assertThat(stock.values()).hasSizeGreaterThan(4000);
        assertSameBytes(stock.values(), native_.values());
    }

    @Test
    void aDeclinedQueryRunsUnfused() throws Exception {
        String select = "SELECT id, MD5(s) AS h FROM src WHERE i > 0";
        Run stock = run(Side.STOCK, "declined", "src", TYPES_COLUMNS, typesTopic, "id BIGINT, h STRING", select);
        declined.clear();
        Run native_ = run(Side.FUSED, "declined", "src", TYPES_COLUMNS, typesTopic, "id BIGINT, h STRING", select);

        assertThat(native_.explain()).doesNotContain("KarrowFused");
        assertThat(declined).anyMatch(d -> d.startsWith("Calc(") && d.contains("MD5"));
        assertThat(CollectedMetrics.sum(native_.jobName(), "karrow", "numFusedBatches")).isZero();
        assertThat(CollectedMetrics.sum(native_.jobName(), "karrow", "numNativeBatches")).isPositive();
        assertThat(stock.values()).hasSizeGreaterThan(1000);
        assertSameBytes(stock.values(), native_.values());
    }

    /**
     * Expressions Flink's generated code throws on for some rows of the corpus: both jobs must fail,
     * the fused one with Flink's message and the record's topic, partition and offset.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"CAST(s AS INT)", "bi / MOD(id, 7)", "MOD(bi, CAST(MOD(id, 5) AS BIGINT))"})
    void aRowTheCalcFailsOnFailsBothJobs(String expression) throws Exception {
        String select = "SELECT id, " + expression + " AS v FROM src WHERE s IS NOT NULL";
        String[] messages = new String[2];
        List<List<byte[]>> outputs = new ArrayList<>();
        for (Side side : Side.values()) {
            String label = "fails-" + side.ordinal() + "-" + Math.abs(expression.hashCode());
            String out = KafkaTestSupport.createTopic("parity-out-" + label, 1);
            StreamTableEnvironment tEnv = tableEnv(side, "parity-" + label);
            tEnv.executeSql(source(side, "src", TYPES_COLUMNS, typesTopic, false));
            String type = expression.startsWith("CAST") ? "INT" : "BIGINT";
            tEnv.executeSql(sink(side, "out_table", "id BIGINT, v " + type, out));
            if (side == Side.FUSED) {
                assertThat(tEnv.explainSql("INSERT INTO out_table " + select)).as("declined: %s", declined)
                        .contains("KarrowFusedScan");
            }
            try {
                tEnv.executeSql("INSERT INTO out_table " + select).getJobClient().orElseThrow()
                        .getJobExecutionResult().get();
            } catch (Exception e) {
                messages[side.ordinal()] = SqlTestSupport.messages(e);
            }
            List<byte[]> values = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> r : KafkaTestSupport.readAll(out, false)) {
                values.add(r.value());
            }
            outputs.add(values);
        }
        // Every expression fails on some row of the corpus: stock Flink's Calc throws (the json format,
        // without ignore-parse-errors, rethrows it), and so must the fused source.
        assertThat(messages[0]).as("the stock job must fail").isNotNull();
        assertThat(messages[1]).as("the stock job failed with %s", messages[0]).isNotNull();
        String flinkMessage = expression.startsWith("CAST") ? "for input string" : "/ by zero";
        assertThat(messages[0]).containsIgnoringCase(flinkMessage);
        assertThat(messages[1]).containsIgnoringCase(flinkMessage)
                .contains("topic '" + typesTopic + "', partition 0, offset ");
    }

    @Test
    void theOperatorCoreIsOffByDefault() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(source(Side.FUSED, "bids", BIDS_COLUMNS, bidsTopic, true));
        tEnv.executeSql(sink(Side.FUSED, "out_table", "auction BIGINT, price_cents BIGINT", "unused"));
        assertThat(tEnv.explainSql("INSERT INTO out_table SELECT auction, price * 100 FROM bids WHERE price > 1000"))
                .doesNotContain("Karrow");
    }
}

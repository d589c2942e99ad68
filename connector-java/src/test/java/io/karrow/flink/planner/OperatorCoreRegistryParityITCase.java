package io.karrow.flink.planner;

import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.avro.corpus.ConfluentAvroEncoder;
import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.DevRegistry;
import io.karrow.flink.testutils.KafkaTestSupport;
import io.karrow.flink.testutils.SqlTestSupport;

import com.google.protobuf.CodedOutputStream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Source fusion with the registry formats, end to end on a real broker, the dev registry (over
 * HTTP) and a MiniCluster: each query runs once on the stock path ({@code kafka} connector, per-record
 * decoding, Flink's generated Calc, per-record encoding) and once on karrow with the operator core on
 * ({@code kafka-native} with the native fetch: the planner fuses the Calc into the scan and the
 * source decodes each fetched batch and runs the Calc in one native call). Compared exactly: the
 * rows the query produces (collected, in order) and the value bytes of the output topics (in order;
 * one partition in and out, parallelism 1). The fused runs must show that fusion engaged ({@code
 * EXPLAIN}, the planner's decision, the {@code numFusedBatches} / {@code numFusedRowsEmitted}
 * counters).
 *
 * <p>The two formats and their stock oracles:
 * <ul>
 *   <li>{@code avro-confluent-native}: the stock side is {@code avro-confluent-reference}, Flink
 *       2.2's {@code avro-confluent} deserializer and serializer over a plain HTTP schema coder;
 *   <li>{@code protobuf-confluent-native}: Flink has no Confluent Protobuf format (FLINK-34440), so
 *       the stock side is the same format behind Flink's {@code kafka} connector: per-record decode
 *       and encode, with Flink's own Calc between them. The comparison therefore isolates the fused
 *       Calc and the batch path (the decoder's parity with Flink's {@code protobuf} is proven by the
 *       {@code protobuf-native} parity suites).
 * </ul>
 *
 * <p>The corpora (10,000 values each) cover every type the format and the operator plan share, with
 * NULLs, integer and floating extremes (overflowing sums, NaN, -0.0, infinities), DECIMAL at its
 * precision's bounds, non-ASCII and supplementary characters, nested rows, arrays and maps. A second
 * copy of each topic has corrupt values (every 1009th from offset 700): Protobuf reads it with
 * {@code ignore-parse-errors} (skipped, fused) and both formats without (the job fails naming topic,
 * partition and offset). {@code avro-confluent-native} has no {@code ignore-parse-errors}, as Flink's
 * {@code avro-confluent} has none. Needs {@code -Dkarrow.kafka.bootstrap}, {@code
 * -Dkarrow.native.library} and the dev registry binary.
 */
class OperatorCoreRegistryParityITCase {

    private static final int RECORDS = 10_000;

    /** The offset of the first corrupt value of a corrupt topic, and the period of the others. */
    private static final int FIRST_CORRUPT = 700;

    private static final int CORRUPT_PERIOD = 1009;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder()
                    .setConfiguration(CollectedMetrics.configuration())
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .build());

    private static DevRegistry registry;

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

    /** A registry format under test: its table columns, queries and topics. */
    enum Format {
        AVRO("avro-confluent-reference", "avro-confluent-native", AVRO_COLUMNS, AVRO_EXPRESSIONS_OUT,
                AVRO_EXPRESSIONS),
        PROTOBUF("protobuf-confluent-native", "protobuf-confluent-native", PROTO_COLUMNS, PROTO_EXPRESSIONS_OUT,
                PROTO_EXPRESSIONS);

        final String stockFormat;
        final String nativeFormat;
        final String columns;
        final String expressionColumns;
        final String expressions;
        /** The clean topic, the one with corrupt values, and the first offset a CAST-free Calc fails on. */
        String topic;
        String corruptTopic;
        long firstDivisionByZero = -1;
        /** The value at {@link #firstDivisionByZero}, and one of the corrupt values. */
        byte[] divisionByZeroValue;
        byte[] corruptValue;

        Format(String stockFormat, String nativeFormat, String columns, String expressionColumns,
                String expressions) {
            this.stockFormat = stockFormat;
            this.nativeFormat = nativeFormat;
            this.columns = columns;
            this.expressionColumns = expressionColumns;
            this.expressions = expressions;
        }
    }

    // ---- columns and queries ----

    private static final String AVRO_COLUMNS = "id BIGINT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, i INT,"
            + " bi BIGINT, f FLOAT, d DOUBLE, dm DECIMAL(10, 2), dl DECIMAL(38, 10), s STRING, bs BYTES, dt DATE,"
            + " tm TIME(3), ts TIMESTAMP(3), tags ARRAY<STRING>, m MAP<STRING, BIGINT>, r ROW<x INT, y STRING>";

    private static final String PROTO_COLUMNS = "id BIGINT, b BOOLEAN, i INT, bi BIGINT, f FLOAT, d DOUBLE,"
            + " s STRING, bs BYTES, si32 INT, u64 BIGINT, tags ARRAY<STRING>, m MAP<STRING, BIGINT>,"
            + " r ROW<x INT, y STRING>, e STRING, nums ARRAY<BIGINT>";

    /** Expressions both formats carry: arithmetic with overflow, casts, logic, CASE, strings, nested fields. */
    private static final String COMMON_EXPRESSIONS = "id, bi + i AS wrapped, i * 2 AS twice, -i AS neg,"
            + " MOD(bi, 7) AS m7, d / 2 AS half, f * 2 AS f2, d + f AS df, CAST(bi AS INT) AS narrow,"
            + " CAST(d AS BIGINT) AS dlong, CAST(f AS INT) AS fint, CAST(b AS INT) AS bint,"
            + " NOT b AS nb, b IS NULL AS bn, b IS NOT TRUE AS bnt, (i > 0 AND b) OR s IS NULL AS logic,"
            + " CASE WHEN i > 0 THEN 'pos' WHEN i < 0 THEN 'neg' ELSE 'zero' END AS sign_,"
            + " COALESCE(s, 'none') AS s2, CHAR_LENGTH(s) AS cl, UPPER(s) AS us, SUBSTRING(s, 2, 3) AS sub,"
            + " CONCAT(s, '-', CAST(id AS STRING)) AS cc, CAST(i AS STRING) AS istr, bs IS NULL AS bsn, bs,"
            + " r.x + 1 AS rx, r.y AS ry, r IS NULL AS rn, tags, m";

    private static final String COMMON_EXPRESSIONS_OUT = "id BIGINT, wrapped BIGINT, twice INT, neg INT,"
            + " m7 BIGINT, half DOUBLE, f2 FLOAT, df DOUBLE, narrow INT, dlong BIGINT, fint INT, bint INT,"
            + " nb BOOLEAN, bn BOOLEAN, bnt BOOLEAN, logic BOOLEAN, sign_ STRING, s2 STRING, cl INT, us STRING,"
            + " sub STRING, cc STRING, istr STRING, bsn BOOLEAN, bs BYTES, rx INT, ry STRING, rn BOOLEAN,"
            + " tags ARRAY<STRING>, m MAP<STRING, BIGINT>";

    private static final String AVRO_EXPRESSIONS = COMMON_EXPRESSIONS
            + ", ti + si AS small, CAST(ti AS INT) * si AS tsi, dm * 2 AS dm2, dm + dl AS dsum,"
            + " CAST(dm AS STRING) AS dms, CAST(dl AS DOUBLE) AS dld, CAST(dm AS DOUBLE) AS dmd,"
            + " CAST(dm AS BIGINT) AS dmi,"
            + " EXTRACT(YEAR FROM ts) AS y, HOUR(ts) AS h, CAST(ts AS DATE) AS tdate,"
            + " dt < DATE '1970-01-01' AS old_, tm > TIME '12:00:00' AS pm, dt, tm, ts"
            + " FROM src WHERE (d > 0.25 OR s LIKE '%é%' OR i IS NULL OR dm < 0) AND NOT (bi BETWEEN -5 AND 5)"
            + " OR r.x IN (1, 2, 3)";

    private static final String AVRO_EXPRESSIONS_OUT = COMMON_EXPRESSIONS_OUT
            + ", small SMALLINT, tsi INT, dm2 DECIMAL(21, 2), dsum DECIMAL(38, 10), dms STRING, dld DOUBLE,"
            + " dmd DOUBLE, dmi BIGINT, y BIGINT, h BIGINT, tdate DATE, old_ BOOLEAN, pm BOOLEAN, dt DATE, tm TIME(3),"
            + " ts TIMESTAMP(3)";

    private static final String PROTO_EXPRESSIONS = COMMON_EXPRESSIONS
            + ", si32 * 3 AS si3, u64 - 1 AS u1, e, e = 'RED' AS red, nums"
            + " FROM src WHERE (d > 0.25 OR s LIKE '%é%' OR i IS NULL OR e <> 'GREEN') AND NOT (bi BETWEEN -5 AND 5)"
            + " OR r.x IN (1, 2, 3)";

    private static final String PROTO_EXPRESSIONS_OUT = COMMON_EXPRESSIONS_OUT
            + ", si3 INT, u1 BIGINT, e STRING, red BOOLEAN, nums ARRAY<BIGINT>";

    // ---- the corpora ----

    private static final String[] STRINGS = {"plain", "", " padded ", "café", "ÉCOLE", "日本語テキスト",
        "emoji 😀 x", "straße", "a%b_c", "Mixed Case é", "0123456789", "ǅ title", "ﬁ ligature"};

    private static final String AVRO_SCHEMA = "{\"type\":\"record\",\"name\":\"Rec\",\"namespace\":\"parity\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"long\"},"
            + nullable("b", "\"boolean\"") + "," + nullable("ti", "\"int\"") + "," + nullable("si", "\"int\"") + ","
            + nullable("i", "\"int\"") + "," + nullable("bi", "\"long\"") + "," + nullable("f", "\"float\"") + ","
            + nullable("d", "\"double\"") + ","
            + nullable("dm", "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":10,\"scale\":2}") + ","
            + nullable("dl", "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":38,\"scale\":10}") + ","
            + nullable("s", "\"string\"") + "," + nullable("bs", "\"bytes\"") + ","
            + nullable("dt", "{\"type\":\"int\",\"logicalType\":\"date\"}") + ","
            + nullable("tm", "{\"type\":\"int\",\"logicalType\":\"time-millis\"}") + ","
            + nullable("ts", "{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}") + ","
            + nullable("tags", "{\"type\":\"array\",\"items\":[\"null\",\"string\"]}") + ","
            + nullable("m", "{\"type\":\"map\",\"values\":[\"null\",\"long\"]}") + ","
            + nullable("r", "{\"type\":\"record\",\"name\":\"Inner\",\"fields\":["
                    + nullable("x", "\"int\"") + "," + nullable("y", "\"string\"") + "]}")
            + "]}";

    private static final String PROTO_SCHEMA = "syntax = \"proto3\";\npackage parity;\n"
            + "message Rec {\n"
            + "  int64 id = 1;\n"
            + "  optional bool b = 2;\n"
            + "  optional int32 i = 3;\n"
            + "  optional int64 bi = 4;\n"
            + "  optional float f = 5;\n"
            + "  optional double d = 6;\n"
            + "  optional string s = 7;\n"
            + "  optional bytes bs = 8;\n"
            + "  optional sint32 si32 = 9;\n"
            + "  optional uint64 u64 = 10;\n"
            + "  repeated string tags = 11;\n"
            + "  map<string, int64> m = 12;\n"
            + "  Inner r = 13;\n"
            + "  Kind e = 14;\n"
            + "  repeated int64 nums = 15;\n"
            + "  message Inner { optional int32 x = 1; optional string y = 2; }\n"
            + "  enum Kind { KIND_UNSPECIFIED = 0; RED = 1; GREEN = 2; }\n"
            + "}\n";

    private static String nullable(String name, String type) {
        return "{\"name\":\"" + name + "\",\"type\":[\"null\"," + type + "],\"default\":null}";
    }

    @BeforeAll
    static void writeCorpora() throws Exception {
        KafkaTestSupport.requireBroker();
        registry = DevRegistry.start();
        writeAvro();
        writeProtobuf();
    }

    @AfterAll
    static void stopRegistry() {
        if (registry != null) {
            registry.close();
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

    /** One of the values a generated field takes: NULL about one time in ten. */
    private static boolean isNull(Random random) {
        return random.nextInt(10) == 0;
    }

    private static long pick(Random random, long min, long max, long usual) {
        int r = random.nextInt(30);
        return r == 0 ? min : r == 1 ? max : usual;
    }

    private static int anyInt(Random random) {
        return (int) pick(random, Integer.MIN_VALUE, Integer.MAX_VALUE, random.nextInt(4000) - 2000);
    }

    private static long anyLong(Random random) {
        return random.nextInt(20) == 0 ? (random.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE)
                : random.nextLong() % 10_000_000L;
    }

    private static final float[] FLOAT_EDGES = {Float.NaN, -0.0f, 0.0f, Float.POSITIVE_INFINITY,
        Float.NEGATIVE_INFINITY, Float.MAX_VALUE, Float.MIN_VALUE, 1.0e10f};

    private static final double[] DOUBLE_EDGES = {Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY, Double.MAX_VALUE, Double.MIN_VALUE, 9.3e18, -9.3e18, 0.25};

    private static float anyFloat(Random random) {
        return random.nextInt(15) == 0 ? FLOAT_EDGES[random.nextInt(FLOAT_EDGES.length)]
                : random.nextFloat() * 200 - 100;
    }

    private static double anyDouble(Random random) {
        return random.nextInt(15) == 0 ? DOUBLE_EDGES[random.nextInt(DOUBLE_EDGES.length)]
                : random.nextDouble() * (random.nextInt(10) == 0 ? 1e12 : 1);
    }

    private static String anyString(Random random, int n) {
        return STRINGS[random.nextInt(STRINGS.length)] + (random.nextInt(3) == 0 ? "-" + n : "");
    }

    /** An unscaled decimal of at most {@code digits} digits, its bounds among the values. */
    private static BigInteger anyUnscaled(Random random, int digits) {
        BigInteger max = BigInteger.TEN.pow(digits).subtract(BigInteger.ONE);
        int r = random.nextInt(20);
        if (r == 0) {
            return max;
        }
        if (r == 1) {
            return max.negate();
        }
        BigInteger v = new BigInteger(digits * 10 / 3, random).mod(max);
        return random.nextBoolean() ? v : v.negate();
    }

    private static void writeAvro() throws Exception {
        Schema writer = new Schema.Parser().parse(AVRO_SCHEMA);
        Format.AVRO.topic = KafkaTestSupport.createTopic("fused-avro", 1);
        Format.AVRO.corruptTopic = KafkaTestSupport.createTopic("fused-avro-corrupt", 1);
        int id = registry.register(Format.AVRO.topic + "-value", AVRO_SCHEMA);
        Random random = new Random(1901);
        Schema inner = writer.getField("r").schema().getTypes().get(1);
        try (KafkaProducer<byte[], byte[]> producer = KafkaTestSupport.producer()) {
            for (int n = 0; n < RECORDS; n++) {
                GenericRecord g = new GenericData.Record(writer);
                g.put("id", (long) n);
                g.put("b", isNull(random) ? null : random.nextBoolean());
                g.put("ti", isNull(random) ? null : (int) pick(random, Byte.MIN_VALUE, Byte.MAX_VALUE,
                        random.nextInt(256) - 128));
                g.put("si", isNull(random) ? null : (int) pick(random, Short.MIN_VALUE, Short.MAX_VALUE,
                        random.nextInt(2000) - 1000));
                g.put("i", isNull(random) ? null : anyInt(random));
                Long bi = isNull(random) ? null : anyLong(random);
                g.put("bi", bi);
                g.put("f", isNull(random) ? null : anyFloat(random));
                g.put("d", isNull(random) ? null : anyDouble(random));
                g.put("dm", isNull(random) ? null : ByteBuffer.wrap(anyUnscaled(random, 10).toByteArray()));
                g.put("dl", isNull(random) ? null : ByteBuffer.wrap(anyUnscaled(random, 38).toByteArray()));
                String s = isNull(random) ? null : anyString(random, n);
                g.put("s", s);
                byte[] bytes = new byte[random.nextInt(9)];
                random.nextBytes(bytes);
                g.put("bs", isNull(random) ? null : ByteBuffer.wrap(bytes));
                int day = random.nextInt(40_000) - 10_000;
                g.put("dt", isNull(random) ? null : day);
                g.put("tm", isNull(random) ? null : random.nextInt(86_400_000));
                g.put("ts", isNull(random) ? null : day * 86_400_000L + random.nextInt(86_400_000));
                if (isNull(random)) {
                    g.put("tags", null);
                } else {
                    List<String> tags = new ArrayList<>();
                    for (int k = random.nextInt(4); k > 0; k--) {
                        tags.add(random.nextInt(6) == 0 ? null : anyString(random, k));
                    }
                    g.put("tags", tags);
                }
                if (isNull(random)) {
                    g.put("m", null);
                } else {
                    Map<String, Long> m = new LinkedHashMap<>();
                    for (int k = random.nextInt(4); k > 0; k--) {
                        m.put("k" + random.nextInt(10), random.nextInt(6) == 0 ? null : anyLong(random));
                    }
                    g.put("m", m);
                }
                if (isNull(random)) {
                    g.put("r", null);
                } else {
                    GenericRecord r = new GenericData.Record(inner);
                    r.put("x", isNull(random) ? null : random.nextInt(6));
                    r.put("y", isNull(random) ? null : anyString(random, n));
                    g.put("r", r);
                }
                byte[] value = ConfluentAvroEncoder.encode(id, writer, g);
                producer.send(new ProducerRecord<>(Format.AVRO.topic, value));
                producer.send(new ProducerRecord<>(Format.AVRO.corruptTopic, corruptAvro(n, value)));
                noteDivisionByZero(Format.AVRO, n, s, bi, value);
                if (n == FIRST_CORRUPT) {
                    Format.AVRO.corruptValue = corruptAvro(n, value);
                }
            }
            producer.flush();
        }
    }

    /** Every 1009th value from offset 700 made unreadable: a wrong magic byte first, then truncations. */
    private static byte[] corruptAvro(int n, byte[] value) {
        if (n % CORRUPT_PERIOD != FIRST_CORRUPT % CORRUPT_PERIOD) {
            return value;
        }
        if (n == FIRST_CORRUPT) {
            byte[] bad = value.clone();
            bad[0] = 7;
            return bad;
        }
        return Arrays.copyOf(value, 3);
    }

    /**
     * The calc-failure query ({@code bi / MOD(id, 7)} where {@code s IS NOT NULL}) first fails at the
     * first id 7k with s and bi set (a NULL operand makes the quotient NULL without dividing).
     */
    private static void noteDivisionByZero(Format format, int n, String s, Long bi, byte[] value) {
        if (format.firstDivisionByZero < 0 && n % 7 == 0 && s != null && bi != null) {
            format.firstDivisionByZero = n;
            format.divisionByZeroValue = value;
        }
    }

    // ---- Protobuf by hand: the Confluent framing and the message ----

    private interface Fields {
        void write(CodedOutputStream out) throws IOException;
    }

    private static byte[] message(Fields fields) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            fields.write(out);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** {@code 0x00}, the id (big-endian), the index path [0] as the single byte 00, the message. */
    private static byte[] framed(int id, byte[] message) {
        return ByteBuffer.allocate(6 + message.length).put((byte) 0).putInt(id).put((byte) 0).put(message).array();
    }

    private static void writeProtobuf() throws Exception {
        Format.PROTOBUF.topic = KafkaTestSupport.createTopic("fused-proto", 1);
        Format.PROTOBUF.corruptTopic = KafkaTestSupport.createTopic("fused-proto-corrupt", 1);
        int id = registry.register(Format.PROTOBUF.topic + "-value", "PROTOBUF", PROTO_SCHEMA);
        Random random = new Random(1902);
        try (KafkaProducer<byte[], byte[]> producer = KafkaTestSupport.producer()) {
            for (int n = 0; n < RECORDS; n++) {
                long idValue = n;
                Boolean b = isNull(random) ? null : random.nextBoolean();
                Integer i = isNull(random) ? null : anyInt(random);
                Long bi = isNull(random) ? null : anyLong(random);
                Float f = isNull(random) ? null : anyFloat(random);
                Double d = isNull(random) ? null : anyDouble(random);
                String s = isNull(random) ? null : anyString(random, n);
                byte[] bs = null;
                if (!isNull(random)) {
                    bs = new byte[random.nextInt(9)];
                    random.nextBytes(bs);
                }
                Integer si32 = isNull(random) ? null : anyInt(random);
                Long u64 = isNull(random) ? null : anyLong(random);
                List<String> tags = new ArrayList<>();
                for (int k = random.nextInt(4); k > 0; k--) {
                    tags.add(anyString(random, k));
                }
                Map<String, Long> m = new LinkedHashMap<>();
                for (int k = random.nextInt(4); k > 0; k--) {
                    m.put("k" + random.nextInt(10), anyLong(random));
                }
                byte[] inner = null;
                if (!isNull(random)) {
                    Integer x = isNull(random) ? null : random.nextInt(6);
                    String y = isNull(random) ? null : anyString(random, n);
                    inner = message(out -> {
                        if (x != null) {
                            out.writeInt32(1, x);
                        }
                        if (y != null) {
                            out.writeString(2, y);
                        }
                    });
                }
                int kind = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(2);
                List<Long> nums = new ArrayList<>();
                for (int k = random.nextInt(5); k > 0; k--) {
                    nums.add(anyLong(random));
                }
                byte[] innerMessage = inner;
                byte[] bytesValue = bs;
                byte[] message = message(out -> {
                    if (idValue != 0) {
                        out.writeInt64(1, idValue);
                    }
                    if (b != null) {
                        out.writeBool(2, b);
                    }
                    if (i != null) {
                        out.writeInt32(3, i);
                    }
                    if (bi != null) {
                        out.writeInt64(4, bi);
                    }
                    if (f != null) {
                        out.writeFloat(5, f);
                    }
                    if (d != null) {
                        out.writeDouble(6, d);
                    }
                    if (s != null) {
                        out.writeString(7, s);
                    }
                    if (bytesValue != null) {
                        out.writeByteArray(8, bytesValue);
                    }
                    if (si32 != null) {
                        out.writeSInt32(9, si32);
                    }
                    if (u64 != null) {
                        out.writeUInt64(10, u64);
                    }
                    for (String tag : tags) {
                        out.writeString(11, tag);
                    }
                    for (Map.Entry<String, Long> e : m.entrySet()) {
                        out.writeByteArray(12, message(entry -> {
                            entry.writeString(1, e.getKey());
                            entry.writeInt64(2, e.getValue());
                        }));
                    }
                    if (innerMessage != null) {
                        out.writeByteArray(13, innerMessage);
                    }
                    if (kind != 0) {
                        out.writeEnum(14, kind);
                    }
                    if (!nums.isEmpty()) {
                        out.writeTag(15, 2);
                        int size = 0;
                        for (long v : nums) {
                            size += CodedOutputStream.computeInt64SizeNoTag(v);
                        }
                        out.writeUInt32NoTag(size);
                        for (long v : nums) {
                            out.writeInt64NoTag(v);
                        }
                    }
                });
                byte[] value = framed(id, message);
                producer.send(new ProducerRecord<>(Format.PROTOBUF.topic, value));
                producer.send(new ProducerRecord<>(Format.PROTOBUF.corruptTopic, corruptProtobuf(n, id, value, message)));
                noteDivisionByZero(Format.PROTOBUF, n, s, bi, value);
                if (n == FIRST_CORRUPT) {
                    Format.PROTOBUF.corruptValue = corruptProtobuf(n, id, value, message);
                }
            }
            producer.flush();
        }
    }

    /**
     * Every 1009th value from offset 700 made unreadable: a wrong magic byte first, then in turn a
     * message-index path naming no message, a truncated message and a value too short for a header.
     */
    private static byte[] corruptProtobuf(int n, int id, byte[] value, byte[] message) {
        if (n % CORRUPT_PERIOD != FIRST_CORRUPT % CORRUPT_PERIOD) {
            return value;
        }
        switch ((n / CORRUPT_PERIOD) % 4) {
            case 0:
                byte[] bad = value.clone();
                bad[0] = 1;
                return bad;
            case 1:
                return ByteBuffer.allocate(7 + message.length).put((byte) 0).putInt(id).put((byte) 2)
                        .put((byte) 14).put(message).array();
            case 2:
                // A length-delimited field whose length runs past the end.
                return framed(id, new byte[] {0x3a, 0x7f, 'a'});
            default:
                return new byte[] {0, 0};
        }
    }

    // ---- running a query both ways ----

    /** Which side a job runs on. */
    private enum Side {
        STOCK,
        FUSED
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

    private static String formatOptions(Format format, Side side, String prefix) {
        String f = side == Side.STOCK ? format.stockFormat : format.nativeFormat;
        return "'" + prefix + "format' = '" + f + "', '" + prefix + f + ".url' = '" + registry.url() + "'";
    }

    private static String source(Format format, Side side, String topic, boolean ignoreParseErrors) {
        String f = side == Side.STOCK ? format.stockFormat : format.nativeFormat;
        return "CREATE TEMPORARY TABLE src (" + format.columns + ") WITH ("
                + "'connector' = '" + (side == Side.STOCK ? "kafka" : "kafka-native") + "', "
                + "'topic' = '" + topic + "', "
                + "'properties.bootstrap.servers' = '" + KafkaTestSupport.bootstrap() + "', "
                + "'properties.group.id' = 'fused-parity', "
                + "'scan.startup.mode' = 'earliest-offset', "
                + "'scan.bounded.mode' = 'latest-offset', "
                + (side == Side.FUSED ? "'scan.fetch-mode' = 'native', " : "")
                + (ignoreParseErrors ? "'value." + f + ".ignore-parse-errors' = 'true', " : "")
                + formatOptions(format, side, "value.") + ")";
    }

    private static String sink(Format format, Side side, String columns, String topic) {
        return "CREATE TEMPORARY TABLE out_table (" + columns + ") WITH ("
                + "'connector' = '" + (side == Side.STOCK ? "kafka" : "kafka-native") + "', "
                + "'topic' = '" + topic + "', "
                + "'properties.bootstrap.servers' = '" + KafkaTestSupport.bootstrap() + "', "
                + formatOptions(format, side, "value.") + ")";
    }

    /** What one side of a query produced: collected rows, output values, the plan, the job names. */
    private record Run(List<Row> rows, List<byte[]> values, String explain, String insertJob, String rowsJob) {}

    private static Run run(Format format, Side side, String label, String topic, boolean ignoreParseErrors,
            String outColumns, String select) throws Exception {
        String name = "fused-" + format.name().toLowerCase(Locale.ROOT) + "-" + label + "-"
                + side.name().toLowerCase(Locale.ROOT);
        String out = KafkaTestSupport.createTopic(name, 1);
        StreamTableEnvironment tEnv = tableEnv(side, name);
        tEnv.executeSql(source(format, side, topic, ignoreParseErrors));
        tEnv.executeSql(sink(format, side, outColumns, out));
        String insert = "INSERT INTO out_table " + select;
        String explain = tEnv.explainSql(insert);
        tEnv.executeSql(insert).await();
        List<byte[]> values = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : KafkaTestSupport.readAll(out, false)) {
            assertThat(r.key()).isNull();
            assertThat(r.headers().toArray()).isEmpty();
            values.add(r.value());
        }
        String rowsJob = name + "-rows";
        tEnv.getConfig().set("pipeline.name", rowsJob);
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.executeSql(select).collect()) {
            it.forEachRemaining(rows::add);
        }
        return new Run(rows, values, explain, name, rowsJob);
    }

    private void assertFused(Run run, long rows) {
        assertThat(run.explain()).as("declined: %s", declined).contains("KarrowFusedScan");
        assertThat(fused).as("declined: %s", declined).anyMatch(s -> s.startsWith("Calc("));
        for (String job : List.of(run.insertJob(), run.rowsJob())) {
            assertThat(CollectedMetrics.sum(job, "karrow", "numFusedBatches")).as(job).isPositive();
            assertThat(CollectedMetrics.sum(job, "karrow", "numFusedRowsEmitted")).as(job).isEqualTo(rows);
        }
    }

    /** Runs {@code select} on both sides; rows and output bytes must be equal, and the fused side fused. */
    private void assertParity(Format format, String label, String topic, boolean ignoreParseErrors,
            String outColumns, String select, int minimumRows) throws Exception {
        Run stock = run(format, Side.STOCK, label, topic, ignoreParseErrors, outColumns, select);
        assertThat(stock.explain()).doesNotContain("Karrow");
        assertThat(stock.values()).hasSizeGreaterThanOrEqualTo(minimumRows);
        fused.clear();
        declined.clear();
        Run native_ = run(format, Side.FUSED, label, topic, ignoreParseErrors, outColumns, select);
        assertFused(native_, stock.values().size());
        assertSameRows(stock.rows(), native_.rows());
        assertSameBytes(stock.values(), native_.values());
    }

    private static void assertSameRows(List<Row> stock, List<Row> native_) {
        assertThat(native_).hasSameSizeAs(stock);
        for (int i = 0; i < stock.size(); i++) {
            assertThat(native_.get(i)).as("row %d", i).isEqualTo(stock.get(i));
        }
    }

    private static void assertSameBytes(List<byte[]> stock, List<byte[]> native_) {
        assertThat(native_).hasSameSizeAs(stock);
        for (int i = 0; i < stock.size(); i++) {
            if (!Arrays.equals(stock.get(i), native_.get(i))) {
                throw new AssertionError("output record " + i + " differs: stock "
                        + HexFormat.of().formatHex(stock.get(i)) + " / fused " + HexFormat.of().formatHex(native_.get(i)));
            }
        }
    }

    // ---- the tests ----

    @ParameterizedTest(name = "{0}")
    @EnumSource(Format.class)
    void everyTypeProjectedAndFiltered(Format format) throws Exception {
        assertParity(format, "types", format.topic, false, format.columns,
                "SELECT * FROM src WHERE MOD(id, 3) <> 0 OR b IS NULL", 6000);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Format.class)
    void expressionsOverEveryTypeWithNulls(Format format) throws Exception {
        assertParity(format, "exprs", format.topic, false, format.expressionColumns,
                "SELECT " + format.expressions, 2000);
    }

    /** Protobuf's {@code ignore-parse-errors} skips the corrupt values natively, and the Calc stays fused. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Format.class, names = "PROTOBUF")
    void ignoreParseErrorsSkipsCorruptValuesFused(Format format) throws Exception {
        assertParity(format, "skip", format.corruptTopic, true, "id BIGINT, twice INT, s STRING, rx INT",
                "SELECT id, i * 2 AS twice, s, r.x AS rx FROM src WHERE b OR i IS NULL", 4000);
    }

    /** A corrupt value fails both jobs; the fused one names its topic, partition and offset. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Format.class)
    void aCorruptValueFailsBothJobsNamingTheRecord(Format format) throws Exception {
        String[] messages = failBoth(format, "corrupt", format.corruptTopic, "SELECT id, i * 2 AS v FROM src WHERE b",
                "id BIGINT, v INT");
        for (String message : messages) {
            assertThat(message).containsIgnoringCase("Magic number does not match");
        }
        assertThat(messages[1]).contains("topic '" + format.corruptTopic + "', partition 0, offset " + FIRST_CORRUPT);
    }

    /** A row the Calc fails on fails both jobs with Flink's message; the fused one names the record. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Format.class)
    void aRowTheCalcFailsOnFailsBothJobs(Format format) throws Exception {
        String[] messages = failBoth(format, "calc-fails", format.topic,
                "SELECT id, bi / MOD(id, 7) AS v FROM src WHERE s IS NOT NULL", "id BIGINT, v BIGINT");
        for (String message : messages) {
            assertThat(message).contains("/ by zero");
        }
        assertThat(messages[1]).contains("topic '" + format.topic + "', partition 0, offset "
                + format.firstDivisionByZero);
    }

    /**
     * A row the Calc fails on and, after it in the same fetched batch, a value that does not decode:
     * the stock job fails at the first (record by record), and so must the fused one, although its
     * native call decodes the whole batch before the Calc runs.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Format.class)
    void aCalcFailureBeforeACorruptValueInOneBatchIsTheOneReported(Format format) throws Exception {
        String topic = KafkaTestSupport.createTopic("fused-calc-then-corrupt", 1);
        try (KafkaProducer<byte[], byte[]> producer = KafkaTestSupport.producer()) {
            for (byte[] value : List.of(format.divisionByZeroValue, format.corruptValue, format.divisionByZeroValue)) {
                producer.send(new ProducerRecord<>(topic, value));
            }
            producer.flush();
        }
        String[] messages = failBoth(format, "calc-then-corrupt", topic,
                "SELECT id, bi / MOD(id, 7) AS v FROM src WHERE s IS NOT NULL", "id BIGINT, v BIGINT");
        for (String message : messages) {
            assertThat(message).contains("/ by zero").doesNotContainIgnoringCase("magic");
        }
        assertThat(messages[1]).contains("topic '" + topic + "', partition 0, offset 0");
    }

    /** Runs {@code select} into a fresh topic on both sides, each of which must fail; their messages. */
    private String[] failBoth(Format format, String label, String topic, String select, String outColumns)
            throws Exception {
        String[] messages = new String[2];
        for (Side side : Side.values()) {
            String name = "fused-" + format.name().toLowerCase(Locale.ROOT) + "-" + label + "-"
                    + side.name().toLowerCase(Locale.ROOT);
            StreamTableEnvironment tEnv = tableEnv(side, name);
            tEnv.executeSql(source(format, side, topic, false));
            tEnv.executeSql(sink(format, side, outColumns, KafkaTestSupport.createTopic(name, 1)));
            fused.clear();
            declined.clear();
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
            assertThat(messages[side.ordinal()]).as("the %s job must fail", side).isNotNull();
        }
        return messages;
    }
}

package io.karrow.flink.formats.avro;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static io.karrow.flink.testutils.KafkaTestSupport.producer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static io.karrow.flink.testutils.SqlTestSupport.tableEnv;
import static io.karrow.flink.testutils.SqlTestSupport.collect;
import static io.karrow.flink.testutils.SqlTestSupport.collectDecodedPerRecord;
import static io.karrow.flink.testutils.SqlTestSupport.size;

import io.karrow.flink.formats.avro.corpus.AvroCorpora;
import io.karrow.flink.formats.avro.corpus.AvroCorpus;
import io.karrow.flink.formats.avro.corpus.ConfluentAvroEncoder;
import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.KafkaJobEnvironment;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * End to end through Flink SQL: a real Kafka broker ({@code -Dkarrow.kafka.bootstrap}, started by
 * {@code tests/services/kafka.sh start}), the dev registry and a MiniCluster of parallelism 2. The
 * same query runs with {@code avro-confluent-native} and with the oracle {@code
 * avro-confluent-reference}; results must be identical multisets.
 */
class AvroConfluentNativeITCase {

    private static final int BIDS = 20_000;
    private static final String BOOTSTRAP = KafkaTestSupport.bootstrap();

    @RegisterExtension
    static final KafkaJobEnvironment ENV = KafkaJobEnvironment.withRegistry(2);

    private static void produce(String topic, List<byte[]> keys, List<byte[]> values) {
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < values.size(); i++) {
                producer.send(new ProducerRecord<>(topic, keys.get(i), values.get(i)));
            }
            producer.flush();
        }
    }

    /** Writes {@link #BIDS} Confluent-Avro bids (keys: the bidder id as text) and returns the topic. */
    private static String bidsTopic() throws Exception {
        String topic = createTopic("bids", 3);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = ENV.registry().register(topic + "-value", corpus.writers().get(0).toString());
        Random random = new Random(corpus.seed());
        List<byte[]> keys = new ArrayList<>(BIDS);
        List<byte[]> values = new ArrayList<>(BIDS);
        for (int i = 0; i < BIDS; i++) {
            var record = AvroCorpora.bid(random, i, corpus.writers().get(0));
            keys.add(String.valueOf(record.get("bidder")).getBytes(StandardCharsets.UTF_8));
            values.add(ConfluentAvroEncoder.encode(id, corpus.writers().get(0), record));
        }
        produce(topic, keys, values);
        return topic;
    }

    private static String valueOnlyDdl(String table, String topic, String format) {
        return "CREATE TABLE " + table + " (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,"
                + " date_time TIMESTAMP(3), extra STRING) WITH ("
                + "'connector' = 'kafka', 'topic' = '" + topic + "',"
                + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                + "'properties.group.id' = 'karrow-it',"
                + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',"
                + "'value.format' = '" + format + "',"
                + "'value." + format + ".url' = '" + ENV.registry().url() + "')";
    }

    private static String keyedDdl(String table, String topic, String format) {
        return "CREATE TABLE " + table + " (k STRING, auction BIGINT, bidder BIGINT, price BIGINT, channel STRING,"
                + " url STRING, date_time TIMESTAMP(3), extra STRING,"
                + " `partition` INT METADATA VIRTUAL, `offset` BIGINT METADATA VIRTUAL,"
                + " ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL) WITH ("
                + "'connector' = 'kafka', 'topic' = '" + topic + "',"
                + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                + "'properties.group.id' = 'karrow-it',"
                + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',"
                + "'key.format' = 'raw', 'key.fields' = 'k', 'value.fields-include' = 'EXCEPT_KEY',"
                + "'value.format' = '" + format + "',"
                + "'value." + format + ".url' = '" + ENV.registry().url() + "')";
    }

    @Test
    void valueOnlyTableGivesTheOraclesRows() throws Exception {
        String topic = bidsTopic();
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(valueOnlyDdl("bids_native", topic, "avro-confluent-native"));
        tEnv.executeSql(valueOnlyDdl("bids_reference", topic, "avro-confluent-reference"));
        Map<Row, Integer> expected = collect(tEnv, "SELECT * FROM bids_reference");
        Map<Row, Integer> actual = collectDecodedPerRecord(tEnv, "SELECT * FROM bids_native", BIDS);
        assertThat(size(expected)).isEqualTo(BIDS);
        assertThat(actual).isEqualTo(expected);
    }

    /**
     * A writer schema that names a type registered under another subject (Confluent's schema
     * references, as Confluent's serializers register them): read through {@code kafka} and
     * {@code kafka-native} (both fetch modes), the oracle's rows, whose stand-in for Confluent's
     * client resolves the references as that client does.
     */
    @Test
    void writerSchemaWithReferencesGivesTheOraclesRows() throws Exception {
        String topic = createTopic("bids-refs", 2);
        String amountSubject = topic + "-amount";
        String amount = "{\"type\":\"record\",\"name\":\"Amount\",\"namespace\":\"money\",\"fields\":["
                + "{\"name\":\"units\",\"type\":\"long\"},{\"name\":\"currency\",\"type\":\"string\"}]}";
        String bid = "{\"type\":\"record\",\"name\":\"Bid\",\"namespace\":\"shop\",\"fields\":["
                + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"price\",\"type\":\"money.Amount\"},"
                + "{\"name\":\"name\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
        ENV.registry().register(amountSubject, amount);
        int id = ENV.registry().register(topic + "-value", "AVRO", bid,
                "[{\"name\":\"money.Amount\",\"subject\":\"" + amountSubject + "\",\"version\":1}]");
        Schema.Parser parser = new Schema.Parser();
        Schema amountSchema = parser.parse(amount);
        Schema writer = parser.parse(bid);
        int count = 300;
        List<byte[]> keys = new ArrayList<>(count);
        List<byte[]> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            GenericData.Record price = new GenericData.Record(amountSchema);
            price.put("units", i * 7L - 50);
            price.put("currency", i % 3 == 0 ? "EUR" : "USD");
            GenericData.Record record = new GenericData.Record(writer);
            record.put("id", (long) i);
            record.put("price", price);
            record.put("name", i % 4 == 0 ? null : "n" + i);
            keys.add(null);
            values.add(ConfluentAvroEncoder.encode(id, writer, record));
        }
        produce(topic, keys, values);
        StreamTableEnvironment tEnv = tableEnv();
        String columns = "id BIGINT NOT NULL, price ROW<units BIGINT NOT NULL, currency STRING NOT NULL> NOT NULL,"
                + " name STRING";
        String[][] tables = {
            {"refs_reference", "kafka", "avro-confluent-reference", ""},
            {"refs_native", "kafka", "avro-confluent-native", ""},
            {"refs_batched", "kafka-native", "avro-confluent-native", ""},
            {"refs_fetched", "kafka-native", "avro-confluent-native", "'scan.fetch-mode' = 'native',"},
        };
        for (String[] t : tables) {
            tEnv.executeSql("CREATE TABLE " + t[0] + " (" + columns + ") WITH ("
                    + "'connector' = '" + t[1] + "', 'topic' = '" + topic + "', " + t[3]
                    + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                    + "'properties.group.id' = 'karrow-it',"
                    + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',"
                    + "'value.format' = '" + t[2] + "',"
                    + "'value." + t[2] + ".url' = '" + ENV.registry().url() + "')");
        }
        Map<Row, Integer> expected = collect(tEnv, "SELECT * FROM refs_reference");
        assertThat(size(expected)).isEqualTo(count);
        for (String[] t : tables) {
            String job = "refs-" + t[0] + "-" + UUID.randomUUID();
            tEnv.getConfig().set("pipeline.name", job);
            assertThat(collect(tEnv, "SELECT * FROM " + t[0])).as(t[0]).isEqualTo(expected);
            if (t[0].equals("refs_native")) {
                // The stock kafka leg: the native format decoded every value, per record.
                assertThat(CollectedMetrics.sum(job, "karrow", "numValuesDecodedNatively")).as(t[0]).isEqualTo(count);
                assertThat(CollectedMetrics.sum(job, "karrow", "numRowsDecodedNatively")).as(t[0]).isEqualTo(count);
            }
            if (t[1].equals("kafka-native")) {
                // The kafka-native legs decoded every record in native batches, the second one
                // fetching natively too.
                assertThat(CollectedMetrics.sum(job, "karrow", "numRecordsDecoded")).as(t[0]).isEqualTo(count);
                assertThat(CollectedMetrics.sum(job, "karrow", "numNativeBatches")).as(t[0]).isPositive();
                assertThat(CollectedMetrics.sum(job, "karrow", "numRecordsFetchedNatively")).as(t[0])
                        .isEqualTo(t[3].isEmpty() ? 0 : count);
            }
        }
    }

    @Test
    void keyAndMetadataColumnsGiveTheOraclesRows() throws Exception {
        String topic = bidsTopic();
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(keyedDdl("keyed_native", topic, "avro-confluent-native"));
        tEnv.executeSql(keyedDdl("keyed_reference", topic, "avro-confluent-reference"));
        Map<Row, Integer> expected = collect(tEnv, "SELECT * FROM keyed_reference");
        Map<Row, Integer> actual = collectDecodedPerRecord(tEnv, "SELECT * FROM keyed_native", BIDS);
        assertThat(size(expected)).isEqualTo(BIDS);
        assertThat(actual).isEqualTo(expected);
    }

    @Test
    void badRecordFailsTheJobWithTheReason() throws Exception {
        String topic = createTopic("bids-bad", 1);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = ENV.registry().register(topic + "-value", corpus.writers().get(0).toString());
        byte[] good = ConfluentAvroEncoder.encode(id, corpus.writers().get(0),
                AvroCorpora.bid(new Random(1), 0, corpus.writers().get(0)));
        byte[] bad = good.clone();
        bad[0] = 7;
        produce(topic, List.of(new byte[] {1}, new byte[] {2}), List.of(good, bad));
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(valueOnlyDdl("bad_native", topic, "avro-confluent-native"));
        tEnv.executeSql(valueOnlyDdl("bad_reference", topic, "avro-confluent-reference"));
        assertThatThrownBy(() -> collect(tEnv, "SELECT * FROM bad_reference"))
                .satisfies(t -> assertThat(ParityHarness.messages(t)).containsIgnoringCase("magic"));
        assertThatThrownBy(() -> collect(tEnv, "SELECT * FROM bad_native"))
                .satisfies(t -> assertThat(ParityHarness.messages(t)).containsIgnoringCase("magic"));
    }
}

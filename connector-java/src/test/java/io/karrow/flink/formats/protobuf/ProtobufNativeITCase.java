package io.karrow.flink.formats.protobuf;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static io.karrow.flink.testutils.KafkaTestSupport.producer;
import static io.karrow.flink.testutils.SqlTestSupport.collect;
import static io.karrow.flink.testutils.SqlTestSupport.collectDecodedInBatches;
import static io.karrow.flink.testutils.SqlTestSupport.collectDecodedPerRecord;
import static io.karrow.flink.testutils.SqlTestSupport.nameNextJobs;
import static io.karrow.flink.testutils.SqlTestSupport.messages;
import static io.karrow.flink.testutils.SqlTestSupport.size;
import static io.karrow.flink.testutils.SqlTestSupport.tableEnv;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.karrow.flink.formats.protobuf.proto.BidsProto;
import io.karrow.flink.formats.protobuf.proto.EditionsProto;
import io.karrow.flink.formats.protobuf.proto.MapsProto;
import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * {@code protobuf-native} from Flink SQL against a real broker ({@code -Dkarrow.kafka.bootstrap}), 3
 * partitions, parallelism 2: the same bounded queries over the same topics with Flink's {@code
 * protobuf} format and with {@code protobuf-native} behind the stock {@code kafka} connector (the
 * format swap) and behind {@code kafka-native} (one native call per fetched batch), compared as exact
 * multisets; the same {@code INSERT} through both formats (both connectors) must leave the same (key,
 * value) bytes on the output topics.
 *
 * <p>The bids topic mixes generated bids with the odd things real topics carry: messages that
 * protobuf merges (two serialized bids back to back), unknown fields, zero-length values (an empty
 * message), keys and headers.
 */
class ProtobufNativeITCase {

    private static final int RECORDS = 12_000;
    private static final String BOOTSTRAP = KafkaTestSupport.bootstrap();
    private static final String BID = BidsProto.Bid.class.getName();
    private static final String MAPS = MapsProto.Maps.class.getName();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = KafkaTestSupport.miniClusterWithMetrics(2);

    private static String bidsTopic;
    private static String mapsTopic;
    private static String editionsTopic;

    @BeforeAll
    static void setUp() throws Exception {
        // Fail (not skip) when the broker is absent: CI must start it.
        KafkaTestSupport.requireBroker();
        bidsTopic = createTopic("pb-bids", 3);
        mapsTopic = createTopic("pb-maps", 3);
        editionsTopic = createTopic("pb-editions", 3);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            Random random = new Random(11);
            for (int i = 0; i < RECORDS; i++) {
                byte[] key = i % 97 == 0 ? null : ("bidder-" + random.nextInt(500)).getBytes(StandardCharsets.UTF_8);
                RecordHeaders headers = new RecordHeaders();
                if (i % 7 == 0) {
                    headers.add("h", new byte[] {(byte) i});
                }
                producer.send(new ProducerRecord<>(bidsTopic, i % 3, key, bidValue(random, i), headers));
                producer.send(new ProducerRecord<>(mapsTopic, i % 3, null, mapsValue(random, i)));
                producer.send(new ProducerRecord<>(editionsTopic, i % 3, null, editionsValue(random, i)));
            }
            producer.flush();
        }
    }

    private static BidsProto.Bid bid(Random random, int i) {
        BidsProto.Bid.Builder b = BidsProto.Bid.newBuilder()
                .setAuction(1000 + i)
                .setBidder(random.nextInt(500))
                .setPrice(random.nextInt(1_000_000))
                .setChannel(i % 3 == 0 ? "Google" : "ché-" + random.nextInt(100))
                .setDateTime(1_764_460_800_000L + i * 1000L);
        if (i % 17 != 0) {
            b.setUrl("https://www.nexmark.com/" + Integer.toHexString(random.nextInt()));
        }
        if (i % 4 != 0) {
            b.setExtra("e" + random.nextInt(1000));
        }
        return b.build();
    }

    /** A bid, two bids merged, a bid with an unknown field, or an empty message. */
    private static byte[] bidValue(Random random, int i) {
        if (i % 61 == 0) {
            return new byte[0];
        }
        byte[] bytes = bid(random, i).toByteArray();
        if (i % 13 == 0) {
            byte[] second = bid(random, i + 1).toBuilder().clearUrl().build().toByteArray();
            byte[] merged = new byte[bytes.length + second.length];
            System.arraycopy(bytes, 0, merged, 0, bytes.length);
            System.arraycopy(second, 0, merged, bytes.length, second.length);
            return merged;
        }
        if (i % 11 == 0) {
            byte[] unknown = {(byte) 0xa8, 0x06, 0x2a}; // field 101, varint 42
            byte[] withUnknown = new byte[bytes.length + unknown.length];
            System.arraycopy(unknown, 0, withUnknown, 0, unknown.length);
            System.arraycopy(bytes, 0, withUnknown, unknown.length, bytes.length);
            return withUnknown;
        }
        return bytes;
    }

    private static byte[] mapsValue(Random random, int i) {
        MapsProto.Maps.Builder m = MapsProto.Maps.newBuilder();
        for (int j = 0; j < i % 5; j++) {
            m.putStringInt64("k" + random.nextInt(20), random.nextLong());
            m.putInt32Value(random.nextInt(10), MapsProto.Maps.Value.newBuilder()
                    .setText("t" + j).setNumber(j).addNumbers(j).addNumbers(-j).build());
        }
        if (i % 3 == 0) {
            m.putStringStatus("s", MapsProto.Maps.Status.forNumber(i % 3 == 0 ? 1 : 2));
        }
        return m.build().toByteArray();
    }

    /** An edition 2023 message: implicit, explicit and required presence, packed and expanded, groups. */
    private static byte[] editionsValue(Random random, int i) {
        EditionsProto.Editions.Builder e = EditionsProto.Editions.newBuilder().setERequired(i);
        if (i % 3 != 0) {
            e.setEInt32(random.nextInt()).setEString("é-" + random.nextInt(100));
        }
        if (i % 4 != 0) {
            e.setEImplicit(i % 8 == 1 ? 0 : random.nextLong());
        }
        if (i % 5 == 0) {
            e.setEDefault(random.nextInt(3));
        }
        for (int j = 0; j < i % 4; j++) {
            e.addEPacked(random.nextInt(1000) - 500).addEExpanded(j);
        }
        if (i % 2 == 0) {
            e.setESub(EditionsProto.Editions.Sub.newBuilder().setName("s" + i));
            e.setEDelimited(EditionsProto.Editions.Sub.newBuilder().setName("d" + i));
        }
        e.setEMood(EditionsProto.Mood.forNumber(i % 3));
        if (i % 6 == 0) {
            e.setEClosedMood(i % 12 == 0 ? EditionsProto.ClosedMood.CLOSED_MOOD_CALM
                    : EditionsProto.ClosedMood.CLOSED_MOOD_ANGRY);
        }
        byte[] bytes = e.build().toByteArray();
        if (i % 9 == 0) {
            // An open-enum number Java does not know, and a closed-enum one (an unknown field there).
            byte[] unknownEnums = {0x48, 0x07, 0x50, 0x09};
            byte[] more = new byte[bytes.length + unknownEnums.length];
            System.arraycopy(bytes, 0, more, 0, bytes.length);
            System.arraycopy(unknownEnums, 0, more, bytes.length, unknownEnums.length);
            return more;
        }
        return bytes;
    }

    private static final String EDITIONS = EditionsProto.Editions.class.getName();

    private static final String EDITIONS_COLUMNS = "e_int32 INT, e_string STRING, e_implicit BIGINT, e_required INT,"
            + " e_default INT, e_packed ARRAY<INT>, e_expanded ARRAY<INT>, e_sub ROW<name STRING>, e_mood STRING,"
            + " e_closed_mood STRING, e_delimited ROW<name STRING>";

    private static final String BID_COLUMNS =
            "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, date_time BIGINT, extra STRING";

    private static String source(
            String table, String connector, String topic, String format, String columns, String options) {
        return "CREATE TABLE " + table + " (" + columns + ") WITH ('connector' = '" + connector + "',"
                + " 'topic' = '" + topic + "', 'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                + " 'properties.group.id' = 'protobuf-native-it', 'scan.startup.mode' = 'earliest-offset',"
                + " 'scan.bounded.mode' = 'latest-offset', 'value.format' = '" + format + "'" + options + ")";
    }

    /** A sink table {@code {name, connector, format, topic}} of {@code columns} writing {@code className}. */
    private static String sinkTable(String[] sink, String columns, String className, String options) {
        return "CREATE TABLE " + sink[0] + " (" + columns + ") WITH ('connector' = '" + sink[1] + "', 'topic' = '"
                + sink[3] + "', 'properties.bootstrap.servers' = '" + BOOTSTRAP + "', 'value.format' = '" + sink[2]
                + "', 'sink.partitioner' = 'default'" + messageClass(sink[2], className) + options + ")";
    }

    private static String messageClass(String format, String className) {
        return ", 'value." + format + ".message-class-name' = '" + className + "'";
    }

    private static final String[][] SOURCES = {
        {"stock", "kafka", "protobuf"}, {"swapped", "kafka", "protobuf-native"}, {"batched", "kafka-native", "protobuf-native"}
    };

    @Test
    void valueOnlyTableGivesTheProtobufFormatsRows() throws Exception {
        StreamTableEnvironment tEnv = tableEnv();
        for (String[] s : SOURCES) {
            tEnv.executeSql(source(s[0], s[1], bidsTopic, s[2], BID_COLUMNS, messageClass(s[2], BID)));
        }
        Map<Row, Integer> expected = collect(tEnv, "SELECT * FROM stock");
        assertThat(size(expected)).isEqualTo(RECORDS);
        assertThat(collectDecodedPerRecord(tEnv, "SELECT * FROM swapped", RECORDS)).isEqualTo(expected);
        assertThat(collectDecodedInBatches(tEnv, "SELECT * FROM batched", RECORDS)).isEqualTo(expected);
    }

    @Test
    void mapsAndNestedRowsGiveTheProtobufFormatsRows() throws Exception {
        String columns = "string_int64 MAP<STRING, BIGINT>, int32_value MAP<INT, ROW<text STRING, number INT,"
                + " numbers ARRAY<INT>>>, string_status MAP<STRING, STRING>";
        StreamTableEnvironment tEnv = tableEnv();
        for (String[] s : SOURCES) {
            tEnv.executeSql(source("m_" + s[0], s[1], mapsTopic, s[2], columns,
                    messageClass(s[2], MAPS) + ", 'value." + s[2] + ".read-default-values' = 'true'"));
        }
        Map<Row, Integer> expected = collect(tEnv, "SELECT * FROM m_stock");
        assertThat(size(expected)).isEqualTo(RECORDS);
        assertThat(collectDecodedPerRecord(tEnv, "SELECT * FROM m_swapped", RECORDS)).isEqualTo(expected);
        assertThat(collectDecodedInBatches(tEnv, "SELECT * FROM m_batched", RECORDS)).isEqualTo(expected);
    }

    /**
     * An edition 2023 message (read-default-values, which its implicit-presence field needs in Flink)
     * is read as Flink reads it, and written back with Flink's bytes, on both connectors.
     */
    @Test
    void editionsMessagesReadAndWriteAsTheProtobufFormatDoes() throws Exception {
        StreamTableEnvironment tEnv = tableEnv();
        for (String[] s : SOURCES) {
            tEnv.executeSql(source("ed_" + s[0], s[1], editionsTopic, s[2], EDITIONS_COLUMNS,
                    messageClass(s[2], EDITIONS) + ", 'value." + s[2] + ".read-default-values' = 'true'"));
        }
        Map<Row, Integer> expected = collect(tEnv, "SELECT * FROM ed_stock");
        assertThat(size(expected)).isEqualTo(RECORDS);
        assertThat(collectDecodedPerRecord(tEnv, "SELECT * FROM ed_swapped", RECORDS)).isEqualTo(expected);
        assertThat(collectDecodedInBatches(tEnv, "SELECT * FROM ed_batched", RECORDS)).isEqualTo(expected);

        String[][] sinks = {{"ed_out_stock", "kafka", "protobuf", createTopic("pb-ed-out-stock", 3)},
                {"ed_out_swapped", "kafka", "protobuf-native", createTopic("pb-ed-out-swapped", 3)},
                {"ed_out_batched", "kafka-native", "protobuf-native", createTopic("pb-ed-out-batched", 3)}};
        var statements = tEnv.createStatementSet();
        for (String[] sink : sinks) {
            tEnv.executeSql(sinkTable(sink, EDITIONS_COLUMNS, EDITIONS, ""));
            statements.addInsertSql("INSERT INTO " + sink[0] + " SELECT * FROM ed_stock");
        }
        String job = nameNextJobs(tEnv, "protobuf-native-editions-insert");
        statements.execute().await();
        Map<String, Integer> written = keyValueMultiset(KafkaTestSupport.readAll(sinks[0][3], false));
        assertThat(size(written)).isEqualTo(RECORDS);
        assertThat(keyValueMultiset(KafkaTestSupport.readAll(sinks[1][3], false))).isEqualTo(written);
        assertThat(keyValueMultiset(KafkaTestSupport.readAll(sinks[2][3], false))).isEqualTo(written);
        // Both protobuf-native sinks encoded every record natively: per record and in batches.
        assertThat(CollectedMetrics.sum(job, "karrow", "numRecordsEncoded"))
                .as("records the two protobuf-native sinks encoded").isEqualTo(2L * RECORDS);
    }

    @Test
    void keyAndMetadataColumnsGiveTheProtobufFormatsRows() throws Exception {
        String columns = "k STRING, `partition` INT METADATA VIRTUAL, `offset` BIGINT METADATA VIRTUAL,"
                + " headers MAP<STRING, BYTES> METADATA VIRTUAL, " + BID_COLUMNS;
        String keyOptions = ", 'key.format' = 'raw', 'key.fields' = 'k', 'value.fields-include' = 'EXCEPT_KEY'";
        StreamTableEnvironment tEnv = tableEnv();
        for (String[] s : SOURCES) {
            tEnv.executeSql(source("k_" + s[0], s[1], bidsTopic, s[2], columns, messageClass(s[2], BID) + keyOptions));
        }
        String query = "SELECT k, `partition`, `offset`, CARDINALITY(headers), auction, bidder, price, channel, url,"
                + " date_time, extra FROM ";
        Map<Row, Integer> expected = collect(tEnv, query + "k_stock");
        assertThat(size(expected)).isEqualTo(RECORDS);
        assertThat(collectDecodedPerRecord(tEnv, query + "k_swapped", RECORDS)).isEqualTo(expected);
        assertThat(collectDecodedInBatches(tEnv, query + "k_batched", RECORDS)).isEqualTo(expected);
    }

    @Test
    void insertWritesTheProtobufFormatsBytes() throws Exception {
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(source("bids", "kafka", bidsTopic, "protobuf", "k STRING, " + BID_COLUMNS,
                messageClass("protobuf", BID)
                        + ", 'key.format' = 'raw', 'key.fields' = 'k', 'value.fields-include' = 'EXCEPT_KEY'"));
        String outStock = createTopic("pb-out-stock", 3);
        String outSwapped = createTopic("pb-out-swapped", 3);
        String outBatched = createTopic("pb-out-batched", 3);
        for (String[] sink : new String[][] {{"out_stock", "kafka", "protobuf", outStock},
                {"out_swapped", "kafka", "protobuf-native", outSwapped},
                {"out_batched", "kafka-native", "protobuf-native", outBatched}}) {
            tEnv.executeSql(sinkTable(sink, "k STRING, auction BIGINT, bidder BIGINT, price BIGINT, channel STRING,"
                    + " date_time BIGINT", BID, ", 'key.format' = 'raw', 'key.fields' = 'k',"
                    + " 'value.fields-include' = 'EXCEPT_KEY'"));
        }
        String select = " SELECT k, auction, bidder, price * 100, channel, date_time FROM bids"
                + " WHERE price > 1000 AND k IS NOT NULL";
        var statements = tEnv.createStatementSet();
        statements.addInsertSql("INSERT INTO out_stock" + select);
        statements.addInsertSql("INSERT INTO out_swapped" + select);
        statements.addInsertSql("INSERT INTO out_batched" + select);
        String job = nameNextJobs(tEnv, "protobuf-native-insert");
        statements.execute().await();
        Map<String, Integer> expected = keyValueMultiset(KafkaTestSupport.readAll(outStock, false));
        assertThat(size(expected)).isGreaterThan(RECORDS / 2);
        assertThat(keyValueMultiset(KafkaTestSupport.readAll(outSwapped, false))).isEqualTo(expected);
        assertThat(keyValueMultiset(KafkaTestSupport.readAll(outBatched, false))).isEqualTo(expected);
        // Both protobuf-native sinks encoded every output record natively (the keys are raw, not native).
        assertThat(CollectedMetrics.sum(job, "karrow", "numRecordsEncoded"))
                .as("records the two protobuf-native sinks encoded").isEqualTo(2L * size(expected));
    }

    /** Truncated, bad tag, wrong wire type, invalid proto3 UTF-8, and good values, in two partitions. */
    private static final List<byte[]> MIXED = List.of(
            BidsProto.Bid.newBuilder().setAuction(1).build().toByteArray(),
            new byte[] {0x08},
            new byte[] {0x00, 0x01},
            new byte[] {0x0d, 1, 2, 3, 4},
            new byte[] {0x22, 0x02, (byte) 0xc3, 0x28},
            BidsProto.Bid.newBuilder().setAuction(6).setChannel("ok").build().toByteArray(),
            new byte[] {0x2a, 0x05, 'a'});

    @Test
    void ignoreParseErrorsSkipsWhatTheProtobufFormatSkips() throws Exception {
        String topic = createTopic("pb-bad", 2);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < MIXED.size(); i++) {
                producer.send(new ProducerRecord<>(topic, i % 2, null, MIXED.get(i)));
            }
            producer.flush();
        }
        StreamTableEnvironment tEnv = tableEnv();
        for (String[] s : SOURCES) {
            tEnv.executeSql(source("bad_" + s[0], s[1], topic, s[2], BID_COLUMNS,
                    messageClass(s[2], BID) + ", 'value." + s[2] + ".ignore-parse-errors' = 'true'"));
        }
        Map<Row, Integer> expected = collect(tEnv, "SELECT * FROM bad_stock");
        // The good values and the wrong-wire-type one (an unknown field for protobuf-java).
        assertThat(size(expected)).isEqualTo(3);
        // Every value reached native code, the skipped ones too.
        assertThat(collectDecodedPerRecord(tEnv, "SELECT * FROM bad_swapped", MIXED.size())).isEqualTo(expected);
        assertThat(collectDecodedInBatches(tEnv, "SELECT * FROM bad_batched", MIXED.size())).isEqualTo(expected);
    }

    @Test
    void badRecordFailsTheJobWithTopicPartitionAndOffset() throws Exception {
        String topic = createTopic("pb-fail", 1);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < 5; i++) {
                byte[] value = i == 3
                        ? new byte[] {0x22, 0x02, (byte) 0xc3, 0x28}
                        : BidsProto.Bid.newBuilder().setAuction(i).build().toByteArray();
                producer.send(new ProducerRecord<>(topic, 0, null, value));
            }
            producer.flush();
        }
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(source("fail_batched", "kafka-native", topic, "protobuf-native", BID_COLUMNS,
                messageClass("protobuf-native", BID)));
        assertThatThrownBy(() -> collect(tEnv, "SELECT * FROM fail_batched"))
                .satisfies(t -> assertThat(messages(t))
                        .contains("topic '" + topic + "', partition 0, offset 3")
                        .contains("invalid UTF-8")
                        .contains("channel"));
    }

    /** The records as a multiset of key hex and value hex. */
    private static Map<String, Integer> keyValueMultiset(List<ConsumerRecord<byte[], byte[]>> records) {
        return KafkaTestSupport.keyValueMultiset(records, HexFormat.of()::formatHex);
    }
}

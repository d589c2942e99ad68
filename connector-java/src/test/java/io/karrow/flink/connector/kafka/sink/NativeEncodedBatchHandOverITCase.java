package io.karrow.flink.connector.kafka.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.nativebridge.NativeEncodedBatch;
import io.karrow.flink.nativebridge.NativeHandle;
import io.karrow.flink.nativebridge.NativeProducerSession;
import io.karrow.flink.nativebridge.NativeStats;
import io.karrow.flink.nativebridge.SessionKind;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.JsonRowDataSerializationSchema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Random;

/**
 * The native half of full fusion on a real broker: a fully fused operator session (JSON values in,
 * {@code SELECT a, p * 100 FROM t WHERE p > 1000}, key {@code (a)} and value {@code (a, p * 100)}
 * encoded as {@code json-native} under the sink's names) turns each fetched batch into one native
 * encoded batch, handed to the native producer without a record crossing to Java. The topic it
 * writes is compared, partition by partition and byte for byte (keys, values, headers), with the
 * topic Kafka's Java producer writes for Flink's stock {@code json} serialization of the same rows
 * filtered and projected in Java: the same bytes, and keyed records in the same partitions; and
 * under a transaction, the handed-over records are those of the transaction open at the hand-over.
 *
 * <p>The Flink runtime around it (the fused source emitting these batches, the sink writer taking
 * them, checkpoints, the planner fusing the sink) is covered by {@code FullFusionParityITCase}.
 */
class NativeEncodedBatchHandOverITCase {

    private static final String BIGINT = "{\"type\":\"BIGINT\",\"nullable\":true}";
    private static final String INPUT = "{\"type\":\"ROW\",\"nullable\":false,\"fields\":["
            + "{\"name\":\"a\",\"type\":" + BIGINT + "},{\"name\":\"p\",\"type\":" + BIGINT + "}]}";

    private static String row(String... names) {
        StringBuilder b = new StringBuilder("{\"type\":\"ROW\",\"nullable\":false,\"fields\":[");
        for (int i = 0; i < names.length; i++) {
            b.append(i == 0 ? "" : ",").append("{\"name\":\"").append(names[i]).append("\",\"type\":")
                    .append(BIGINT).append('}');
        }
        return b.append("]}").toString();
    }

    private static final String PLAN = "{\"version\":1,\"input\":" + INPUT
            + ",\"filter\":{\"call\":\"GREATER_THAN\",\"type\":{\"type\":\"BOOLEAN\",\"nullable\":true},"
            + "\"operands\":[{\"input\":1,\"type\":" + BIGINT + "},"
            + "{\"literal\":1000,\"type\":{\"type\":\"INT\",\"nullable\":false}}]},"
            + "\"projections\":[{\"input\":0,\"type\":" + BIGINT + "},{\"call\":\"TIMES\",\"type\":" + BIGINT
            + ",\"operands\":[{\"input\":1,\"type\":" + BIGINT + "},"
            + "{\"literal\":100,\"type\":{\"type\":\"INT\",\"nullable\":false}}]}],"
            + "\"output\":" + INPUT + ",\"session\":{\"time_zone\":\"UTC\"},"
            + "\"encode\":{\"value\":{\"format\":\"json-native\",\"columns\":[0,1],"
            + "\"config\":{\"row_type\":" + row("id", "cents") + "}},"
            + "\"key\":{\"format\":\"json-native\",\"columns\":[0],\"config\":{\"row_type\":" + row("id") + "}}}}";

    private static final String CONFIG = "{\"plan\":" + PLAN + ",\"decoder\":{\"kind\":3,\"config\":{\"row_type\":"
            + INPUT + "}}}";

    private static final int PARTITIONS = 3;

    @BeforeAll
    static void broker() {
        KafkaTestSupport.requireBroker();
    }

    private static NativeProducerSession producer(String topic) throws KarrowNativeException {
        return producer(topic, false);
    }

    private static NativeProducerSession producer(String topic, boolean transactional) throws KarrowNativeException {
        Properties props = new Properties();
        props.put("bootstrap.servers", KafkaTestSupport.bootstrap());
        NativeProducerSettings settings =
                new NativeProducerSettings(props, topic, NativeProducerSettings.Partitioner.DEFAULT);
        return new NativeProducerSession(settings.configJson(transactional, 0, "-0"));
    }

    /** Runs {@code texts} through {@code session} and hands the batch to {@code producer}. */
    private static int handOver(NativeHandle session, NativeProducerSession producer, List<Value> texts)
            throws KarrowNativeException {
        try (DirectValueBuffer values = new DirectValueBuffer()) {
            for (Value v : texts) {
                values.add(v.text() == null ? null : v.text().getBytes(StandardCharsets.UTF_8));
            }
            try (NativeEncodedBatch batch = NativeEncodedBatch.run(session, values)) {
                return producer.handOver(batch);
            }
        }
    }

    /**
     * Under a transaction (what the exactly-once writer runs per checkpoint) the handed-over records
     * belong to the transaction open at the hand-over: an aborted one's are never read committed, a
     * committed one's are, and they are the stock bytes.
     */
    @Test
    void handedOverBatchesBelongToTheOpenTransaction() throws Exception {
        String fusedTopic = KafkaTestSupport.createTopic("fused-handover-tx", PARTITIONS);
        String stockTopic = KafkaTestSupport.createTopic("stock-handover-tx", PARTITIONS);
        List<List<Value>> batches = fetchedBatches();
        List<List<Value>> aborted = batches.subList(0, batches.size() / 2);
        List<List<Value>> committed = batches.subList(batches.size() / 2, batches.size());
        int handed = 0;
        try (NativeHandle session = NativeHandle.open(SessionKind.OPERATOR_ROWS, CONFIG, null);
                NativeProducerSession producer = producer(fusedTopic, true)) {
            producer.setTransactionalId("fusion-handover-" + fusedTopic);
            producer.initTransactions();
            producer.beginTransaction();
            for (List<Value> texts : aborted) {
                handOver(session, producer, texts);
            }
            producer.abortTransaction();
            producer.beginTransaction();
            for (List<Value> texts : committed) {
                handed += handOver(session, producer, texts);
            }
            producer.commitTransaction();
        }
        int stockCount = writeStock(stockTopic, committed);
        assertThat(handed).isEqualTo(stockCount).isPositive();
        List<ConsumerRecord<byte[], byte[]>> fused = KafkaTestSupport.readAll(fusedTopic, true);
        assertThat(describe(fused)).isEqualTo(describe(KafkaTestSupport.readAll(stockTopic, false)));
    }

    /** One Kafka value: its rows ({@code a}, {@code p}; one, or several as a JSON array), or null. */
    private static final class Value {
        final List<Long[]> rows;

        Value(List<Long[]> rows) {
            this.rows = rows;
        }

        String text() {
            if (rows == null) {
                return null;
            }
            StringBuilder b = new StringBuilder(rows.size() > 1 ? "[" : "");
            for (int i = 0; i < rows.size(); i++) {
                b.append(i == 0 ? "" : ",").append("{\"a\":").append(rows.get(i)[0]).append(",\"p\":")
                        .append(rows.get(i)[1]).append('}');
            }
            return b.append(rows.size() > 1 ? "]" : "").toString();
        }
    }

    /** 3,000 values in fetched batches of 1 to 500: NULLs, tombstones, arrays, kept and dropped rows. */
    private static List<List<Value>> fetchedBatches() {
        Random random = new Random(19);
        List<List<Value>> batches = new ArrayList<>();
        List<Value> batch = new ArrayList<>();
        int size = 1 + random.nextInt(500);
        for (int i = 0; i < 3000; i++) {
            Long a = random.nextInt(20) == 0 ? null : random.nextLong() % 100_000;
            Long p = random.nextInt(25) == 0 ? null : (long) random.nextInt(4000);
            List<Long[]> rows = new ArrayList<>();
            rows.add(new Long[] {a, p});
            if (i % 101 == 0) {
                rows.add(new Long[] {(long) i, 2000L + i});
            }
            batch.add(new Value(i % 97 == 0 ? null : rows));
            if (batch.size() == size) {
                batches.add(batch);
                batch = new ArrayList<>();
                size = 1 + random.nextInt(500);
            }
        }
        batches.add(batch);
        return batches;
    }

    @Test
    void handedOverBatchesWriteWhatTheStockSerializationAndProducerWrite() throws Exception {
        String fusedTopic = KafkaTestSupport.createTopic("fused-handover", PARTITIONS);
        String stockTopic = KafkaTestSupport.createTopic("stock-handover", PARTITIONS);
        List<List<Value>> batches = fetchedBatches();

        long live = NativeStats.snapshot().liveHandles(SessionKind.ENCODED_BATCH);
        int handed = 0;
        try (NativeHandle session = NativeHandle.open(SessionKind.OPERATOR_ROWS, CONFIG, null);
                NativeProducerSession producer = producer(fusedTopic)) {
            for (List<Value> texts : batches) {
                try (DirectValueBuffer values = new DirectValueBuffer()) {
                    for (Value v : texts) {
                        values.add(v.text() == null ? null : v.text().getBytes(StandardCharsets.UTF_8));
                    }
                    try (NativeEncodedBatch batch = NativeEncodedBatch.run(session, values)) {
                        assertThat(batch.failedValue()).isEqualTo(-1);
                        int appended = producer.handOver(batch);
                        assertThat(appended).isEqualTo(batch.records());
                        handed += appended;
                        assertThatThrownBy(() -> producer.handOver(batch))
                                .isInstanceOf(KarrowNativeException.class)
                                .hasMessageContaining("handed over already");
                    }
                }
                producer.poll();
            }
            producer.flush();
            producer.poll();
            assertThat(producer.acknowledged()).isEqualTo(handed);
        }
        assertThat(NativeStats.snapshot().liveHandles(SessionKind.ENCODED_BATCH)).isEqualTo(live);

        int stockCount = writeStock(stockTopic, batches);
        assertThat(handed).isEqualTo(stockCount).isGreaterThan(1000);

        List<ConsumerRecord<byte[], byte[]>> fused = KafkaTestSupport.readAll(fusedTopic, false);
        List<ConsumerRecord<byte[], byte[]>> stock = KafkaTestSupport.readAll(stockTopic, false);
        assertThat(describe(fused)).isEqualTo(describe(stock));
        assertThat(fused).hasSize(stockCount);
    }

    /** Flink's stock JSON serialization of the rows the Calc keeps, through Kafka's Java producer. */
    private static int writeStock(String topic, List<List<Value>> batches) throws Exception {
        RowType valueType = RowType.of(new LogicalType[] {new BigIntType(), new BigIntType()},
                new String[] {"id", "cents"});
        RowType keyType = RowType.of(new LogicalType[] {new BigIntType()},
                new String[] {"id"});
        JsonRowDataSerializationSchema values = new JsonRowDataSerializationSchema(
                valueType, TimestampFormat.SQL, JsonFormatOptions.MapNullKeyMode.FAIL, "null", false, false);
        JsonRowDataSerializationSchema keys = new JsonRowDataSerializationSchema(
                keyType, TimestampFormat.SQL, JsonFormatOptions.MapNullKeyMode.FAIL, "null", false, false);
        values.open(null);
        keys.open(null);
        int count = 0;
        try (KafkaProducer<byte[], byte[]> producer = KafkaTestSupport.producer()) {
            for (List<Value> texts : batches) {
                for (Value value : texts) {
                    if (value.rows == null) {
                        continue;
                    }
                    for (Long[] r : value.rows) {
                        Long a = r[0];
                        Long p = r[1];
                        if (p == null || p <= 1000) {
                            continue;
                        }
                        byte[] k = keys.serialize(GenericRowData.of(a));
                        byte[] v = values.serialize(GenericRowData.of(a, p * 100));
                        producer.send(new ProducerRecord<>(topic, k, v));
                        count++;
                    }
                }
            }
            producer.flush();
        }
        return count;
    }

    /** Partition, key, value and headers of each record, in the order read. */
    private static List<String> describe(List<ConsumerRecord<byte[], byte[]>> records) {
        List<String> out = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            out.add(r.partition() + " " + Arrays.toString(r.key()) + " " + Arrays.toString(r.value()) + " "
                    + Arrays.toString(r.headers().toArray()));
        }
        return out;
    }
}

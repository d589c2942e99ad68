package io.karrow.flink.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.BatchDeserializationSchema;
import io.karrow.flink.formats.DecodedValues;
import io.karrow.flink.formats.ValueBatchDecoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNativeException;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Row assembly, batching and failure attribution of the fetcher-thread decoder, without Kafka or native code. */
class KafkaRecordBatchDecoderTest {

    private static final RowType PRODUCED = (RowType) DataTypes.ROW(
                    DataTypes.FIELD("k", DataTypes.STRING()),
                    DataTypes.FIELD("v", DataTypes.STRING()),
                    DataTypes.FIELD("topic", DataTypes.STRING().notNull()),
                    DataTypes.FIELD("partition", DataTypes.INT().notNull()),
                    DataTypes.FIELD("offset", DataTypes.BIGINT().notNull()),
                    DataTypes.FIELD("ts", DataTypes.TIMESTAMP_LTZ(3).notNull()),
                    DataTypes.FIELD("ts_type", DataTypes.STRING().notNull()),
                    DataTypes.FIELD("epoch", DataTypes.INT()),
                    DataTypes.FIELD("headers", DataTypes.MAP(DataTypes.STRING(), DataTypes.BYTES()).notNull()))
            .getLogicalType();

    private static final KafkaReadableMetadata[] ALL_METADATA = {
        KafkaReadableMetadata.TOPIC, KafkaReadableMetadata.PARTITION, KafkaReadableMetadata.OFFSET,
        KafkaReadableMetadata.TIMESTAMP, KafkaReadableMetadata.TIMESTAMP_TYPE, KafkaReadableMetadata.LEADER_EPOCH,
        KafkaReadableMetadata.HEADERS
    };

    /** A one-field UTF-8 format; the value "bad" fails, "two" yields two rows, "none" and null yield none. */
    static class Utf8Schema implements DeserializationSchema<RowData> {
        @Override
        public RowData deserialize(byte[] message) throws IOException {
            if (message == null) {
                return null;
            }
            String s = new String(message, StandardCharsets.UTF_8);
            if (s.equals("bad")) {
                throw new IOException("bad bytes");
            }
            return GenericRowData.of(StringData.fromString(s));
        }

        @Override
        public void deserialize(byte[] message, Collector<RowData> out) throws IOException {
            RowData row = deserialize(message);
            if (row != null && !((GenericRowData) row).getField(0).toString().equals("none")) {
                out.collect(row);
                if (((GenericRowData) row).getField(0).toString().equals("two")) {
                    out.collect(row);
                }
            }
        }

        @Override
        public boolean isEndOfStream(RowData nextElement) {
            return false;
        }

        @Override
        public TypeInformation<RowData> getProducedType() {
            return null;
        }
    }

    /**
     * The same format with a batch decoder that decodes from the direct buffer, failing like the native
     * one; "calc-fails" fails as a fused Calc does, only once every value of the call has decoded.
     */
    static final class BatchUtf8Schema extends Utf8Schema implements BatchDeserializationSchema {
        final List<Integer> calls = new ArrayList<>();

        @Override
        public ValueBatchDecoder createBatchDecoder() {
            return new ValueBatchDecoder() {
                @Override
                public DecodedValues decode(DirectValueBuffer values, int count) throws IOException {
                    calls.add(count);
                    List<RowData> rows = new ArrayList<>();
                    int[] valueRowEnds = new int[count];
                    long data = values.dataAddress();
                    long lengths = values.lengthsAddress();
                    int at = 0;
                    int calcFailure = -1;
                    for (int i = 0; i < count; i++) {
                        int len = org.apache.flink.core.memory.MemoryUtils.UNSAFE.getInt(lengths + 4L * i);
                        if (len < 0) {
                            valueRowEnds[i] = rows.size();
                            continue;
                        }
                        byte[] bytes = new byte[len];
                        for (int j = 0; j < len; j++) {
                            bytes[j] = org.apache.flink.core.memory.MemoryUtils.UNSAFE.getByte(data + at + j);
                        }
                        at += len;
                        String s = new String(bytes, StandardCharsets.UTF_8);
                        if (s.equals("bad")) {
                            throw new KarrowNativeException("Unknown magic byte! (schema id 7)", i, 7);
                        }
                        if (s.equals("broken-batch")) {
                            throw new KarrowNativeException("registry unreachable", -1, -1);
                        }
                        if (s.equals("calc-fails") && calcFailure < 0) {
                            calcFailure = i;
                        }
                        int copies = s.equals("none") ? 0 : s.equals("two") ? 2 : 1;
                        for (int c = 0; c < copies; c++) {
                            rows.add(GenericRowData.of(StringData.fromString(s)));
                        }
                        valueRowEnds[i] = rows.size();
                    }
                    if (calcFailure >= 0) {
                        throw new KarrowNativeException("java.lang.ArithmeticException: / by zero", calcFailure, -1);
                    }
                    return new DecodedValues(rows.toArray(new RowData[0]), valueRowEnds);
                }

                @Override
                public void close() {}
            };
        }
    }

    private static ConsumerRecord<byte[], byte[]> record(long offset, String key, String value) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("h", new byte[] {1});
        headers.add("h", new byte[] {2});
        return new ConsumerRecord<>("t", 1, offset, 1000 + offset, TimestampType.CREATE_TIME, -1, -1,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8), headers, Optional.of(5));
    }

    private static KafkaRecordBatchDecoder decoder(DeserializationSchema<RowData> key, DeserializationSchema<RowData> value,
            KafkaRowAssembler assembler) throws IOException {
        return new KafkaRecordBatchDecoder(key, value, assembler,
                new KafkaNativeSourceMetrics(UnregisteredMetricsGroup.createSourceReaderMetricGroup()));
    }

    private static KafkaRowAssembler keyedAssembler() {
        return new KafkaRowAssembler(2, new int[] {0}, new int[] {1}, ALL_METADATA, PRODUCED);
    }

    private static KafkaRowAssembler valueOnlyAssembler() {
        return new KafkaRowAssembler(1, new int[0], new int[] {0}, new KafkaReadableMetadata[0],
                (RowType) DataTypes.ROW(DataTypes.FIELD("v", DataTypes.STRING())).getLogicalType());
    }

    private static List<RowData> rows(DecodedKafkaRecord record) throws IOException {
        List<RowData> rows = new ArrayList<>();
        record.emitTo(new Collector<>() {
            @Override
            public void collect(RowData row) {
                rows.add(row);
            }

            @Override
            public void close() {}
        });
        return rows;
    }

    @Test
    void assemblesKeyValueAndMetadataLikeTheStockSource() throws IOException {
        for (Utf8Schema value : new Utf8Schema[] {new Utf8Schema(), new BatchUtf8Schema()}) {
            KafkaRecordBatchDecoder decoder = decoder(new Utf8Schema(), value, keyedAssembler());
            List<DecodedKafkaRecord> out = decoder.decode(List.of(record(10, "a", "x"), record(11, null, "y"), record(12, "c", null)));
            assertThat(out).hasSize(3);
            assertThat(out.get(0).offset()).isEqualTo(10);
            assertThat(out.get(0).timestamp()).isEqualTo(1010);
            GenericRowData row = (GenericRowData) rows(out.get(0)).get(0);
            assertThat(row.getArity()).isEqualTo(9);
            assertThat(row.getField(0)).isEqualTo(StringData.fromString("a"));
            assertThat(row.getField(1)).isEqualTo(StringData.fromString("x"));
            assertThat(row.getField(2)).isEqualTo(StringData.fromString("t"));
            assertThat(row.getField(3)).isEqualTo(1);
            assertThat(row.getField(4)).isEqualTo(10L);
            assertThat(row.getField(5)).isEqualTo(TimestampData.fromEpochMillis(1010));
            assertThat(row.getField(6)).isEqualTo(StringData.fromString("CreateTime"));
            assertThat(row.getField(7)).isEqualTo(5);
            GenericMapData headers = (GenericMapData) row.getField(8);
            assertThat(headers.size()).isEqualTo(1);
            assertThat((byte[]) headers.get(StringData.fromString("h"))).containsExactly(2); // last wins
            // Null key with a key format: no key row, so no output row (spec §5.2.4); null value: none either.
            assertThat(rows(out.get(1))).isEmpty();
            assertThat(rows(out.get(2))).isEmpty();
            decoder.close();
        }
    }

    @Test
    void valueOnlyRowsPassThroughAndMultiRowValuesKeepTheirOrder() throws IOException {
        KafkaRecordBatchDecoder decoder = decoder(null, new Utf8Schema(), valueOnlyAssembler());
        assertThat(decoder.isBatched()).isFalse();
        List<DecodedKafkaRecord> out = decoder.decode(List.of(record(0, null, "two"), record(1, null, "z")));
        assertThat(rows(out.get(0))).hasSize(2);
        assertThat(rows(out.get(1))).containsExactly(GenericRowData.of(StringData.fromString("z")));
    }

    @Test
    void batchValuesWithZeroOrSeveralRowsMatchThePerRecordPath() throws IOException {
        List<ConsumerRecord<byte[], byte[]>> records = List.of(record(0, "k", "two"), record(1, "k", "none"),
                record(2, "k", null), record(3, "k", "x"), record(4, "k", "two"));
        List<List<RowData>> expected = new ArrayList<>();
        for (DecodedKafkaRecord r : decoder(new Utf8Schema(), new Utf8Schema(), keyedAssembler()).decode(records)) {
            expected.add(rows(r));
        }
        KafkaRecordBatchDecoder batched = decoder(new Utf8Schema(), new BatchUtf8Schema(), keyedAssembler());
        assertThat(batched.isBatched()).isTrue();
        List<List<RowData>> actual = new ArrayList<>();
        for (DecodedKafkaRecord r : batched.decode(records)) {
            actual.add(rows(r));
        }
        assertThat(actual).isEqualTo(expected);
        assertThat(actual).extracting(l -> l.size()).containsExactly(2, 0, 0, 1, 2);
        assertThat(((GenericRowData) actual.get(4).get(1)).getField(1)).isEqualTo(StringData.fromString("two"));
        batched.close();
    }

    @Test
    void failureAfterMultiRowValuesKeepsTheRowsBeforeIt() throws IOException {
        BatchUtf8Schema value = new BatchUtf8Schema();
        KafkaRecordBatchDecoder decoder = decoder(null, value, valueOnlyAssembler());
        List<DecodedKafkaRecord> out = decoder.decode(
                List.of(record(0, null, "two"), record(1, null, "none"), record(2, null, "bad"), record(3, null, "c")));
        assertThat(value.calls).containsExactly(4, 2);
        assertThat(out).hasSize(3);
        assertThat(rows(out.get(0))).hasSize(2);
        assertThat(rows(out.get(1))).isEmpty();
        assertThat(out.get(2).failure()).hasMessageContaining("offset 2");
    }

    @Test
    void oneBatchCallPerSplitBatch() throws IOException {
        BatchUtf8Schema value = new BatchUtf8Schema();
        KafkaRecordBatchDecoder decoder = decoder(null, value, valueOnlyAssembler());
        assertThat(decoder.isBatched()).isTrue();
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            records.add(record(i, null, i % 10 == 0 ? null : "value-" + i));
        }
        List<DecodedKafkaRecord> out = decoder.decode(records);
        assertThat(value.calls).containsExactly(1000);
        assertThat(out).hasSize(1000);
        assertThat(rows(out.get(0))).isEmpty();
        assertThat(rows(out.get(999))).containsExactly(GenericRowData.of(StringData.fromString("value-999")));
        decoder.close();
    }

    @Test
    void nativeFailureNamesTheRecordsTopicPartitionAndOffset() throws IOException {
        BatchUtf8Schema value = new BatchUtf8Schema();
        KafkaRecordBatchDecoder decoder = decoder(null, value, valueOnlyAssembler());
        List<DecodedKafkaRecord> out =
                decoder.decode(List.of(record(40, null, "a"), record(41, null, "b"), record(42, null, "bad"), record(43, null, "c")));
        // The records before the bad one keep their rows (decoded again as a prefix); nothing after it is emitted.
        assertThat(value.calls).containsExactly(4, 2);
        assertThat(out).hasSize(3);
        assertThat(rows(out.get(1))).containsExactly(GenericRowData.of(StringData.fromString("b")));
        assertThat(out.get(2).failure())
                .hasMessageContaining("topic 't', partition 1, offset 42")
                .hasMessageContaining("Unknown magic byte! (schema id 7)")
                .hasCauseInstanceOf(KarrowNativeException.class);
    }

    /**
     * A fused session reports a value that does not decode before it runs the Calc, so a row the Calc
     * fails on in an earlier record shows only when the prefix is decoded again: the earlier failure
     * is the one reported, at its record, as the stock source (record by record) fails.
     */
    @Test
    void anEarlierFailureInThePrefixIsTheOneReported() throws IOException {
        BatchUtf8Schema value = new BatchUtf8Schema();
        KafkaRecordBatchDecoder decoder = decoder(null, value, valueOnlyAssembler());
        List<DecodedKafkaRecord> out = decoder.decode(List.of(record(20, null, "a"), record(21, null, "calc-fails"),
                record(22, null, "b"), record(23, null, "bad"), record(24, null, "c")));
        assertThat(value.calls).containsExactly(5, 3, 1);
        assertThat(out).hasSize(2);
        assertThat(rows(out.get(0))).containsExactly(GenericRowData.of(StringData.fromString("a")));
        assertThat(out.get(1).failure())
                .hasMessageContaining("topic 't', partition 1, offset 21")
                .hasMessageContaining("/ by zero");
    }

    @Test
    void batchFailureWithoutRecordIndexIsReportedOnTheFirstRecord() throws IOException {
        KafkaRecordBatchDecoder decoder = decoder(null, new BatchUtf8Schema(), valueOnlyAssembler());
        List<DecodedKafkaRecord> out = decoder.decode(List.of(record(7, null, "a"), record(8, null, "broken-batch")));
        assertThat(out).hasSize(1);
        assertThat(out.get(0).failure())
                .hasMessageContaining("offset 7")
                .hasMessageContaining("offsets 7..8")
                .hasMessageContaining("registry unreachable");
    }

    @Test
    void perRecordFailureAndKeyFailureComeFirst() throws IOException {
        KafkaRecordBatchDecoder decoder = decoder(new Utf8Schema(), new BatchUtf8Schema(), keyedAssembler());
        // Record 1 has a bad key and a good value; record 2 a bad value: the key failure at offset 1 wins.
        List<DecodedKafkaRecord> out =
                decoder.decode(List.of(record(0, "k", "a"), record(1, "bad", "b"), record(2, "k", "bad")));
        assertThat(out).hasSize(2);
        assertThat(out.get(1).failure()).hasMessageContaining("offset 1").hasMessageContaining("bad bytes");

        KafkaRecordBatchDecoder fallback = decoder(null, new Utf8Schema(), valueOnlyAssembler());
        List<DecodedKafkaRecord> failed = fallback.decode(List.of(record(5, null, "bad"), record(6, null, "ok")));
        assertThat(failed).hasSize(1);
        assertThat(failed.get(0).failure()).hasMessageContaining("partition 1, offset 5").hasMessageContaining("bad bytes");
    }
}

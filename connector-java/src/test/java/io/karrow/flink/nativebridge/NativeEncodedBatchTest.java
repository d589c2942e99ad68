package io.karrow.flink.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

/**
 * Full fusion through the JNI entry points: a fully fused operator session (kind 8 with an encode
 * stage) turns a batch of JSON values into one native encoded batch (kind 10) per call, which
 * carries the first failing value; a batch goes only to a producer, and closing it frees it
 * (counted by {@link NativeStats}). The bytes are compared with the encoders' own in the cdylib's
 * tests ({@code operators.rs}).
 */
class NativeEncodedBatchTest {

    private static final String BIGINT = "{\"type\":\"BIGINT\",\"nullable\":true}";
    private static final String INPUT = "{\"type\":\"ROW\",\"nullable\":false,\"fields\":["
            + "{\"name\":\"a\",\"type\":" + BIGINT + "},{\"name\":\"p\",\"type\":" + BIGINT + "}]}";
    private static final String SINK_ROW = "{\"type\":\"ROW\",\"nullable\":false,\"fields\":["
            + "{\"name\":\"id\",\"type\":" + BIGINT + "},{\"name\":\"cents\",\"type\":" + BIGINT + "}]}";

    /** {@code SELECT a, p * 100 FROM t WHERE p > 1000} encoded as json-native with the sink's names. */
    private static final String PLAN = "{\"version\":1,\"input\":" + INPUT
            + ",\"filter\":{\"call\":\"GREATER_THAN\",\"type\":{\"type\":\"BOOLEAN\",\"nullable\":true},"
            + "\"operands\":[{\"input\":1,\"type\":" + BIGINT + "},"
            + "{\"literal\":1000,\"type\":{\"type\":\"INT\",\"nullable\":false}}]},"
            + "\"projections\":[{\"input\":0,\"type\":" + BIGINT + "},{\"call\":\"TIMES\",\"type\":" + BIGINT
            + ",\"operands\":[{\"input\":1,\"type\":" + BIGINT + "},"
            + "{\"literal\":100,\"type\":{\"type\":\"INT\",\"nullable\":false}}]}],"
            + "\"output\":" + INPUT + ",\"session\":{\"time_zone\":\"UTC\"},"
            + "\"encode\":{\"value\":{\"format\":\"json-native\",\"columns\":[0,1],"
            + "\"config\":{\"row_type\":" + SINK_ROW + "}},\"key\":null}}";

    private static final String CONFIG = "{\"plan\":" + PLAN + ",\"decoder\":{\"kind\":3,\"config\":{\"row_type\":"
            + INPUT + "}}}";

    private static DirectValueBuffer values(String... texts) {
        DirectValueBuffer buffer = new DirectValueBuffer();
        for (String text : texts) {
            buffer.add(text == null ? null : text.getBytes(StandardCharsets.UTF_8));
        }
        return buffer;
    }

    @Test
    void oneCallPerFetchedBatchGivesOneNativeBatchOfTheKeptRecords() throws Exception {
        long before = NativeStats.snapshot().liveHandles(SessionKind.ENCODED_BATCH);
        try (NativeHandle session = NativeHandle.open(SessionKind.OPERATOR_ROWS, CONFIG, null);
                DirectValueBuffer in = values("{\"a\":1,\"p\":999}", null, "{\"a\":2,\"p\":1001}", "{\"a\":3,\"p\":5000}")) {
            NativeEncodedBatch batch = NativeEncodedBatch.run(session, in);
            assertThat(batch.records()).isEqualTo(2);
            assertThat(batch.recordBytes())
                    .isEqualTo(("{\"id\":2,\"cents\":100100}" + "{\"id\":3,\"cents\":500000}").length());
            assertThat(batch.failedValue()).isEqualTo(-1);
            assertThat(NativeStats.snapshot().liveHandles(SessionKind.ENCODED_BATCH)).isEqualTo(before + 1);
            // A fully fused session does not give rows back.
            assertThatThrownBy(() -> KarrowNative.decodeBatch(
                            session.get(), in.dataAddress(), in.lengthsAddress(), in.count(), new int[in.count()]))
                    .isInstanceOf(KarrowNativeException.class)
                    .hasMessageContaining("answers runBatch");
            // Only a producer takes a batch; the batch is not handed to itself.
            assertThatThrownBy(() -> KarrowNative.handOver(batch.handle(), session.get()))
                    .isInstanceOf(KarrowNativeException.class)
                    .hasMessageContaining("is handed to a native producer");
            assertThatThrownBy(() -> KarrowNative.handOver(batch.handle(), batch.handle()))
                    .isInstanceOf(KarrowNativeException.class)
                    .hasMessageContaining("same session twice");
            batch.close();
            batch.close();
            assertThat(NativeStats.snapshot().liveHandles(SessionKind.ENCODED_BATCH)).isEqualTo(before);
        }
    }

    @Test
    void aFailingValueIsCarriedWithTheRecordsBeforeIt() throws Exception {
        try (NativeHandle session = NativeHandle.open(SessionKind.OPERATOR_ROWS, CONFIG, null);
                DirectValueBuffer in = values("{\"a\":2,\"p\":2000}", "{\"a\":\"x\"}", "{\"a\":3,\"p\":5000}");
                NativeEncodedBatch batch = NativeEncodedBatch.run(session, in)) {
            assertThat(batch.records()).isEqualTo(1);
            assertThat(batch.failedValue()).isEqualTo(1);
        }
    }

    @Test
    void aPlanWithoutADecoderCannotEncode() {
        assertThatThrownBy(() -> NativeHandle.open(SessionKind.OPERATOR_ROWS, PLAN, null))
                .isInstanceOf(KarrowNativeException.class)
                .hasMessageContaining("fused source");
    }
}

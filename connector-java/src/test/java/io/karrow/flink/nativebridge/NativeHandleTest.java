package io.karrow.flink.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

/**
 * Handles through the generic entry points: a closed, stale or forged handle fails with {@link
 * KarrowNativeException} (it never reaches another session), a call the kind does not answer names
 * the kind, and {@link NativeStats} counts what is open.
 */
class NativeHandleTest {

    private static final String JSON_DECODER = "{\"row_type\":{\"type\":\"ROW\",\"nullable\":false,\"fields\":["
            + "{\"name\":\"a\",\"type\":{\"type\":\"BIGINT\",\"nullable\":true}}]}}";

    private MemorySegment in;
    private MemorySegment out;

    @BeforeEach
    void buffers() {
        in = MemorySegmentFactory.allocateUnpooledOffHeapMemory(64);
        out = MemorySegmentFactory.allocateUnpooledOffHeapMemory(256);
    }

    @AfterEach
    void free() {
        in.free();
        out.free();
    }

    private int decode(long handle, String json) throws KarrowNativeException {
        byte[] value = json.getBytes(StandardCharsets.UTF_8);
        in.put(0, value, 0, value.length);
        return KarrowNative.decodeOneDirect(handle, in.getAddress(), value.length, out.getAddress(), (int) out.size());
    }

    @Test
    void aStaleHandleFailsAndLeavesTheSessionThatReusedItsSlotAlone() throws Exception {
        NativeHandle first = NativeHandle.open(SessionKind.JSON_DECODER, JSON_DECODER, null);
        long stale = first.get();
        assertThat(decode(stale, "{\"a\":1}")).isPositive();
        first.close();
        assertThat(first.isClosed()).isTrue();
        try (NativeHandle second = NativeHandle.open(SessionKind.JSON_DECODER, JSON_DECODER, null)) {
            assertThatThrownBy(() -> decode(stale, "{\"a\":1}"))
                    .isInstanceOf(KarrowNativeException.class)
                    .hasMessageContaining("names no open native session");
            assertThatThrownBy(() -> KarrowNative.close(stale)).isInstanceOf(KarrowNativeException.class);
            assertThat(decode(second.get(), "{\"a\":2}")).as("the live session still decodes").isPositive();
        }
    }

    @Test
    void forgedHandlesFail() throws Exception {
        NativeLibraryLoader.load();
        for (long forged : new long[] {1L, 0x7f00_0000_1000L, -8L, Long.MAX_VALUE, in.getAddress()}) {
            assertThatThrownBy(() -> KarrowNative.schemaId(forged))
                    .as("handle %x", forged)
                    .isInstanceOf(KarrowNativeException.class);
            assertThatThrownBy(() -> KarrowNative.close(forged)).isInstanceOf(KarrowNativeException.class);
        }
        KarrowNative.close(0L); // closing 0 is a no-op
    }

    @Test
    void aCallTheKindDoesNotAnswerNamesTheKind() throws Exception {
        try (NativeHandle decoder = NativeHandle.open(SessionKind.JSON_DECODER, JSON_DECODER, null)) {
            assertThatThrownBy(() -> KarrowNative.encodeOneDirect(decoder.get(), in.getAddress(), 0, out.getAddress(), 8))
                    .isInstanceOf(KarrowNativeException.class)
                    .hasMessageContaining("a JSON decoder does not encode");
            assertThat(KarrowNative.schemaId(decoder.get())).isEqualTo(-1);
        }
        assertThatThrownBy(() -> NativeHandle.open(SessionKind.JSON_DECODER, JSON_DECODER, new byte[] {1}))
                .isInstanceOf(KarrowNativeException.class)
                .hasMessageContaining("takes no bytes");
    }

    @Test
    void statsCountOpenHandlesPerKind() throws Exception {
        // Decoders other tests dropped may be freed by their Cleaner at any moment, so the counts
        // are compared as bounds: opening adds two, closing takes two away.
        long before = NativeStats.snapshot().liveHandles(SessionKind.JSON_DECODER);
        NativeHandle a = NativeHandle.open(SessionKind.JSON_DECODER, JSON_DECODER, null);
        NativeHandle b = NativeHandle.open(SessionKind.JSON_DECODER, JSON_DECODER, null);
        decode(a.get(), "[{\"a\":1},{\"a\":2}]");
        NativeStats during = NativeStats.snapshot();
        assertThat(during.liveHandles(SessionKind.JSON_DECODER)).isBetween(2L, before + 2);
        assertThat(during.retainedBytes(SessionKind.JSON_DECODER)).isPositive();
        a.close();
        b.close();
        assertThat(NativeStats.snapshot().liveHandles(SessionKind.JSON_DECODER))
                .isLessThanOrEqualTo(during.liveHandles(SessionKind.JSON_DECODER) - 2);
    }
}

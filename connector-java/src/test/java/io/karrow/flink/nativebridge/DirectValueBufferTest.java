package io.karrow.flink.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.core.memory.MemoryUtils;
import org.junit.jupiter.api.Test;

/** Layout and growth of the direct value buffer handed to {@code decodeBatch}. */
class DirectValueBufferTest {

    @Test
    void valuesBackToBackWithNativeOrderLengthsAndMinusOneForNull() {
        try (DirectValueBuffer buffer = new DirectValueBuffer()) {
            for (int round = 0; round < 2; round++) {
                buffer.clear();
                buffer.add(new byte[] {1, 2, 3});
                buffer.add(null);
                byte[] big = new byte[200_000]; // forces the data buffer to grow while keeping earlier bytes
                big[199_999] = 9;
                buffer.add(big);
                for (int i = 0; i < 1000; i++) { // forces the lengths buffer to grow
                    buffer.add(new byte[] {(byte) i});
                }
                assertThat(buffer.count()).isEqualTo(1003);
                assertThat(buffer.dataSize()).isEqualTo(3 + 200_000 + 1000);
                long data = buffer.dataAddress();
                long lengths = buffer.lengthsAddress();
                assertThat(MemoryUtils.UNSAFE.getInt(lengths)).isEqualTo(3);
                assertThat(MemoryUtils.UNSAFE.getInt(lengths + 4)).isEqualTo(-1);
                assertThat(MemoryUtils.UNSAFE.getInt(lengths + 8)).isEqualTo(200_000);
                assertThat(MemoryUtils.UNSAFE.getInt(lengths + 4 * 1002)).isEqualTo(1);
                assertThat(MemoryUtils.UNSAFE.getByte(data + 2)).isEqualTo((byte) 3);
                assertThat(MemoryUtils.UNSAFE.getByte(data + 3 + 199_999)).isEqualTo((byte) 9);
                assertThat(MemoryUtils.UNSAFE.getByte(data + 3 + 200_000 + 999)).isEqualTo((byte) 999);
            }
        }
    }
}

package io.karrow.flink.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** The row-list layout of {@code docs/jni-contract.md}, read without native code. */
class RowListLayoutTest {

    private static byte[] image(long value) {
        BinaryRowData row = new BinaryRowData(1);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        writer.writeLong(0, value);
        writer.complete();
        return org.apache.flink.table.data.binary.BinarySegmentUtils.copyToBytes(
                row.getSegments(), row.getOffset(), row.getSizeInBytes());
    }

    /** A layout with the given images, offsets computed as the contract says. */
    private static byte[] layout(byte[]... images) {
        int header = 4 * (images.length + 2);
        int total = header;
        for (byte[] i : images) {
            total += i.length;
        }
        ByteBuffer out = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(images.length);
        int at = header;
        for (byte[] i : images) {
            out.putInt(at);
            at += i.length;
        }
        out.putInt(at);
        for (byte[] i : images) {
            out.put(i);
        }
        return out.array();
    }

    @Test
    void readsEveryRowAsAViewInOrder() {
        byte[] layout = layout(image(7), image(-1), image(42));
        assertThat(RowListLayout.rowCount(layout)).isEqualTo(3);
        RowData[] rows = new RowData[5];
        assertThat(RowListLayout.views(layout, 1, rows, 1)).isEqualTo(3);
        assertThat(rows[0]).isNull();
        assertThat(rows[1].getLong(0)).isEqualTo(7);
        assertThat(rows[2].getLong(0)).isEqualTo(-1);
        assertThat(rows[3].getLong(0)).isEqualTo(42);
        assertThat(((BinaryRowData) rows[3]).getSegments()[0].getArray()).isSameAs(layout);
        assertThat(rows[4]).isNull();
    }

    @Test
    void emptyListHasNoRows() {
        byte[] layout = layout();
        assertThat(layout).hasSize(8);
        assertThat(RowListLayout.rowCount(layout)).isZero();
        assertThat(RowListLayout.views(layout, 1, new RowData[0], 0)).isZero();
    }

    @Test
    void malformedLayoutsAreRejected() {
        assertThatThrownBy(() -> RowListLayout.rowCount(new byte[4])).isInstanceOf(IllegalArgumentException.class);
        byte[] tooMany = layout(image(1));
        tooMany[0] = 9;
        assertThatThrownBy(() -> RowListLayout.rowCount(tooMany)).isInstanceOf(IllegalArgumentException.class);
        byte[] pastEnd = layout(image(1));
        pastEnd[8] = (byte) (pastEnd[8] + 1);
        assertThatThrownBy(() -> RowListLayout.views(pastEnd, 1, new RowData[1], 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RowListLayout.views(layout(image(1), image(2)), 1, new RowData[1], 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

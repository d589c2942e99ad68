package io.karrow.flink.rows;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/** Every way a row can be laid out gives the same contiguous image. */
class BinaryRowImagesTest {

    private static final RowType TYPE = (RowType) DataTypes.ROW(
            DataTypes.FIELD("a", DataTypes.BIGINT()), DataTypes.FIELD("s", DataTypes.STRING())).notNull().getLogicalType();

    private static final GenericRowData ROW =
            GenericRowData.of(42L, StringData.fromString("a string longer than seven bytes"));

    private static byte[] expected() {
        BinaryRowData binary = new RowDataSerializer(TYPE).toBinaryRow(ROW);
        byte[] out = new byte[binary.getSizeInBytes()];
        binary.getSegments()[0].get(binary.getOffset(), out, 0, out.length);
        return out;
    }

    @Test
    void genericRowIsWrittenAsBinary() {
        assertThat(new BinaryRowImages(TYPE).image(ROW)).isEqualTo(expected());
    }

    @Test
    void exactHeapRowIsUsedWithoutCopy() {
        byte[] bytes = expected();
        BinaryRowData row = new BinaryRowData(2);
        row.pointTo(MemorySegmentFactory.wrap(bytes), 0, bytes.length);
        assertThat(new BinaryRowImages(TYPE).image(row)).isSameAs(bytes);
    }

    @Test
    void offsetMultiSegmentAndOffHeapRowsAreCopied() {
        byte[] bytes = expected();
        BinaryRowImages images = new BinaryRowImages(TYPE);

        byte[] padded = new byte[bytes.length + 10];
        System.arraycopy(bytes, 0, padded, 7, bytes.length);
        BinaryRowData atOffset = new BinaryRowData(2);
        atOffset.pointTo(MemorySegmentFactory.wrap(padded), 7, bytes.length);
        assertThat(images.image(atOffset)).isEqualTo(bytes);

        int half = 16;
        MemorySegment first = MemorySegmentFactory.wrap(java.util.Arrays.copyOfRange(bytes, 0, half));
        MemorySegment second = MemorySegmentFactory.wrap(java.util.Arrays.copyOfRange(bytes, half, bytes.length));
        BinaryRowData split = new BinaryRowData(2);
        split.pointTo(new MemorySegment[] {first, second}, 0, bytes.length);
        assertThat(images.image(split)).isEqualTo(bytes);

        MemorySegment offHeap = MemorySegmentFactory.allocateUnpooledOffHeapMemory(bytes.length);
        offHeap.put(0, bytes);
        BinaryRowData direct = new BinaryRowData(2);
        direct.pointTo(offHeap, 0, bytes.length);
        assertThat(images.image(direct)).isEqualTo(bytes);
    }
}

package io.karrow.flink.rows;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
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

    @Test
    void onlyRowsCarryingAJavaDetailGetAMarkedImage() {
        RowType type = (RowType) DataTypes.ROW(DataTypes.FIELD("t", DataTypes.TIMESTAMP(3)),
                DataTypes.FIELD("s", DataTypes.STRING()),
                DataTypes.FIELD("a", DataTypes.ARRAY(DataTypes.TIMESTAMP_LTZ(3)))).notNull().getLogicalType();
        BinaryRowImages images = new BinaryRowImages(type, false, true);
        BinaryRowImages flinkOnly = new BinaryRowImages(type, false, false);
        RowDataSerializer binary = new RowDataSerializer(type);
        TimestampData millis = TimestampData.fromEpochMillis(1_500);
        TimestampData nanos = TimestampData.fromEpochMillis(1_500, 1);
        GenericRowData plain = GenericRowData.of(millis, StringData.fromString("a\uD83D\uDE00"),
                new GenericArrayData(new Object[] {millis, null}));
        for (GenericRowData row : new GenericRowData[] {plain,
                GenericRowData.of(nanos, plain.getString(1), plain.getArray(2)),
                GenericRowData.of(millis, StringData.fromString("a\uD83D"), plain.getArray(2)),
                GenericRowData.of(millis, plain.getString(1), new GenericArrayData(new Object[] {null, nanos}))}) {
            byte[] image = images.image(row).clone();
            boolean detail = row != plain;
            assertThat(image[0] & 0xFF).as("%s", row).isEqualTo(detail ? (JavaDetailImages.MARK & 0xFF) : 0);
            byte[] flink = flinkOnly.image(row).clone();
            assertThat(flink[0] & 0xFF).isZero();
            if (!detail) {
                assertThat(image).isEqualTo(flink);
            } else {
                // The marked layout is that of precision 9, and the lone surrogate is ED A0 BD.
                RowType marked = (RowType) JavaDetailImages.markedLayout(type);
                assertThat(marked.getTypeAt(0)).isEqualTo(DataTypes.TIMESTAMP(9).getLogicalType());
                BinaryRowData read = new BinaryRowData(3);
                read.pointTo(MemorySegmentFactory.wrap(image), 0, image.length);
                assertThat(read.getTimestamp(0, 9)).isEqualTo(row.getTimestamp(0, 3));
                for (int i = 0; i < 2; i++) {
                    assertThat(read.getArray(2).isNullAt(i)).isEqualTo(row.getArray(2).isNullAt(i));
                    if (!row.getArray(2).isNullAt(i)) {
                        assertThat(read.getArray(2).getTimestamp(i, 9)).isEqualTo(row.getArray(2).getTimestamp(i, 3));
                    }
                }
                assertThat(read.getString(1).toBytes()).isEqualTo(JavaDetailImages.javaTextBytes(row.getString(1).toString()));
            }
            // A binary row is used as it is: it cannot carry a detail.
            BinaryRowData stored = binary.toBinaryRow(row).copy();
            assertThat(images.image(stored)[0] & 0xFF).isZero();
        }
        assertThat(JavaDetailImages.javaTextBytes("\uD83Dé\uD83D\uDE00\uDE00"))
                .isEqualTo(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0xBD, (byte) 0xC3, (byte) 0xA9, (byte) 0xF0,
                    (byte) 0x9F, (byte) 0x98, (byte) 0x80, (byte) 0xED, (byte) 0xB8, (byte) 0x80});
    }

    /**
     * A NaN payload as an array element or map value is a detail ({@code BinaryArrayWriter} stores the
     * canonical NaN there): the marked image keeps the bits; a row field keeps them in Flink's layout.
     */
    @Test
    void markedImagesKeepNaNPayloadsOfArrayElementsAndMapValues() {
        RowType type = (RowType) DataTypes.ROW(
                DataTypes.FIELD("f", DataTypes.ARRAY(DataTypes.FLOAT())),
                DataTypes.FIELD("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.DOUBLE())),
                DataTypes.FIELD("x", DataTypes.FLOAT())).notNull().getLogicalType();
        float odd = Float.intBitsToFloat(0xffc00001);
        double oddDouble = Double.longBitsToDouble(0x7ff8000000000abcL);
        java.util.Map<Object, Object> map = new java.util.HashMap<>();
        map.put(StringData.fromString("k"), oddDouble);
        GenericRowData row = GenericRowData.of(new GenericArrayData(new Object[] {1.5f, null, odd}),
                new org.apache.flink.table.data.GenericMapData(map), odd);

        BinaryRowData marked = pointTo(new BinaryRowImages(type, true, true).image(row).clone(), 3);
        assertThat(marked.getRowKind().toByteValue()).isZero();
        assertThat(new BinaryRowImages(type, true, true).image(row)[0] & 0x80).isEqualTo(0x80);
        assertThat(Float.floatToRawIntBits(marked.getArray(0).getFloat(2))).isEqualTo(0xffc00001);
        assertThat(marked.getArray(0).isNullAt(1)).isTrue();
        assertThat(marked.getArray(0).getFloat(0)).isEqualTo(1.5f);
        assertThat(Double.doubleToRawLongBits(marked.getMap(1).valueArray().getDouble(0)))
                .isEqualTo(0x7ff8000000000abcL);
        assertThat(marked.getMap(1).keyArray().getString(0).toString()).isEqualTo("k");
        assertThat(Float.floatToRawIntBits(marked.getFloat(2))).isEqualTo(0xffc00001);

        // Flink's own layout: the elements canonical, the row field as it is
        BinaryRowData plain = pointTo(new BinaryRowImages(type, true, false).image(row).clone(), 3);
        assertThat(Float.floatToRawIntBits(plain.getArray(0).getFloat(2))).isEqualTo(0x7fc00000);
        assertThat(Double.doubleToRawLongBits(plain.getMap(1).valueArray().getDouble(0)))
                .isEqualTo(0x7ff8000000000000L);
        assertThat(Float.floatToRawIntBits(plain.getFloat(2))).isEqualTo(0xffc00001);
        // a canonical NaN in an array is no detail
        GenericRowData canonical = GenericRowData.of(new GenericArrayData(new float[] {Float.NaN}), null, odd);
        assertThat(new BinaryRowImages(type, true, true).image(canonical)[0] & 0x80).isZero();
    }

    private static BinaryRowData pointTo(byte[] image, int arity) {
        // the RowKind header byte without the mark, so Flink's accessors read the image
        image[0] &= 0x7f;
        BinaryRowData row = new BinaryRowData(arity);
        row.pointTo(MemorySegmentFactory.wrap(image), 0, image.length);
        return row;
    }
}

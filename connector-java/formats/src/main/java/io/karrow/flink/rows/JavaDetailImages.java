package io.karrow.flink.rows;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryArrayData;
import org.apache.flink.table.data.binary.BinaryFormat;
import org.apache.flink.table.data.binary.BinaryMapData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.runtime.typeutils.ArrayDataSerializer;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Row images that keep what a Java row holds beyond Flink's binary layout, for the formats whose
 * stock writer reads it (flink-json; flink-protobuf and flink-avro, which hash and compare a map
 * key's Java string and write a float's raw bits): the nano-of-millisecond of a TIMESTAMP /
 * TIMESTAMP_LTZ of precision at most 3 (a {@code BinaryRowData} keeps its epoch millis only), a lone
 * UTF-16 surrogate in a string (Flink stores it as {@code '?'}), and a NaN other than the canonical
 * one as a FLOAT / DOUBLE element of an array or key or value of a map or multiset ({@code
 * BinaryArrayWriter} stores every NaN as {@code Float.NaN} / {@code Double.NaN}; a row field keeps
 * its bits). Flink's JSON decoder hands the first two on in a {@code GenericRowData}: it keeps every
 * parsed fraction digit whatever the precision, and Jackson reads {@code "\uD83D"} into a Java
 * string; Flink's Avro and Protobuf decoders hand on a float's bits as they were written.
 *
 * <p>Only a row that carries such a detail ({@link #carriesDetail}) gets a <em>marked</em> image,
 * whose layout is described next to its reader, in {@code codecs/src/flink_binary/java_detail.rs}:
 * bit {@link #MARK} of the header byte set, every TIMESTAMP / TIMESTAMP_LTZ laid out as a
 * non-compact one (precision 9), every string as its Java text in UTF-8 with a lone surrogate as the
 * 3-byte sequence of its code unit, every FLOAT / DOUBLE element with the bits the Java value has
 * ({@code floatToRawIntBits}). Values inside binary structures ({@link BinaryFormat}) cannot carry a
 * detail, but are copied field by field into the marked layout too. Not thread-safe.
 */
final class JavaDetailImages {

    /** The header-byte bit of a marked image ({@code JAVA_DETAIL_MARK} in {@code java_detail.rs}). */
    static final byte MARK = (byte) 0x80;

    private final RowType rowType;
    private final Node row;
    private final RowDataSerializer markedSerializer;

    /** Images of rows of {@code rowType}. */
    JavaDetailImages(RowType rowType) {
        this.rowType = rowType;
        this.row = Node.of(rowType);
        this.markedSerializer = new RowDataSerializer((RowType) markedLayout(rowType));
    }

    /** Whether {@code row} (not a {@code BinaryRowData}) carries a detail its binary image would lose. */
    boolean carriesDetail(RowData row) {
        return this.row != null && this.row.carries(row);
    }

    /** The marked image of {@code row} as a binary row (valid until the next call). */
    BinaryRowData marked(RowData row) {
        BinaryRowData image = markedSerializer.toBinaryRow((RowData) javaText(row, rowType));
        MemorySegment header = image.getSegments()[0];
        header.put(image.getOffset(), (byte) (header.get(image.getOffset()) | MARK));
        return image;
    }

    /**
     * Where a detail can sit in a type: one node per value that is a string, a compact timestamp, or a
     * structure holding one ({@code null} for every other type).
     */
    private static final class Node {
        final LogicalType type;
        /** ROW fields, or [element] for ARRAY, or [key, value] for MAP and MULTISET; null for scalars. */
        final Node[] children;
        final int[] positions;
        final RowData.FieldGetter[] fieldGetters;
        final ArrayData.ElementGetter[] elementGetters;

        private Node(LogicalType type, Node[] children, int[] positions) {
            this.type = type;
            this.children = children;
            this.positions = positions;
            if (type instanceof RowType && children != null) {
                fieldGetters = new RowData.FieldGetter[children.length];
                for (int i = 0; i < children.length; i++) {
                    fieldGetters[i] = RowData.createFieldGetter(children[i].type, positions[i]);
                }
                elementGetters = null;
            } else if (children != null) {
                fieldGetters = null;
                elementGetters = new ArrayData.ElementGetter[children.length];
                for (int i = 0; i < children.length; i++) {
                    elementGetters[i] = children[i] == null ? null : ArrayData.createElementGetter(children[i].type);
                }
            } else {
                fieldGetters = null;
                elementGetters = null;
            }
        }

        static Node of(LogicalType type) {
            switch (type.getTypeRoot()) {
                case CHAR:
                case VARCHAR:
                    return new Node(type, null, null);
                case TIMESTAMP_WITHOUT_TIME_ZONE:
                case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                    return LogicalTypeChecks.getPrecision(type) <= 3 ? new Node(type, null, null) : null;
                case ROW: {
                    List<Node> fields = new ArrayList<>();
                    List<Integer> positions = new ArrayList<>();
                    List<LogicalType> types = type.getChildren();
                    for (int i = 0; i < types.size(); i++) {
                        Node field = of(types.get(i));
                        if (field != null) {
                            fields.add(field);
                            positions.add(i);
                        }
                    }
                    return fields.isEmpty()
                            ? null
                            : new Node(type, fields.toArray(new Node[0]),
                                    positions.stream().mapToInt(Integer::intValue).toArray());
                }
                case ARRAY: {
                    Node element = ofElement(((ArrayType) type).getElementType());
                    return element == null ? null : new Node(type, new Node[] {element}, null);
                }
                case MAP: {
                    Node key = ofElement(((MapType) type).getKeyType());
                    Node value = ofElement(((MapType) type).getValueType());
                    return key == null && value == null ? null : new Node(type, new Node[] {key, value}, null);
                }
                case MULTISET: {
                    Node element = ofElement(((MultisetType) type).getElementType());
                    return element == null ? null : new Node(type, new Node[] {element, null}, null);
                }
                default:
                    return null;
            }
        }

        /**
         * The node of an element of an array or a key or value of a map: FLOAT and DOUBLE too, whose
         * NaN payloads {@code BinaryArrayWriter} drops there.
         */
        static Node ofElement(LogicalType type) {
            return isFloating(type) ? new Node(type, null, null) : of(type);
        }

        /** Whether {@code value} (of this node's type, not null) carries a detail. */
        boolean carries(Object value) {
            if (children == null) {
                if (value instanceof Float) {
                    float f = (Float) value;
                    return Float.floatToRawIntBits(f) != Float.floatToIntBits(f);
                }
                if (value instanceof Double) {
                    double d = (Double) value;
                    return Double.doubleToRawLongBits(d) != Double.doubleToLongBits(d);
                }
                if (value instanceof TimestampData) {
                    return ((TimestampData) value).getNanoOfMillisecond() != 0;
                }
                return value instanceof BinaryStringData
                        && hasLoneSurrogate(((BinaryStringData) value).getJavaObject());
            }
            if (value instanceof BinaryFormat) {
                return false;
            }
            if (fieldGetters != null) {
                RowData row = (RowData) value;
                for (int i = 0; i < children.length; i++) {
                    Object field = fieldGetters[i].getFieldOrNull(row);
                    if (field != null && children[i].carries(field)) {
                        return true;
                    }
                }
                return false;
            }
            if (value instanceof ArrayData) {
                return elementsCarry((ArrayData) value, 0);
            }
            MapData map = (MapData) value;
            return elementsCarry(map.keyArray(), 0) || elementsCarry(map.valueArray(), 1);
        }

        private boolean elementsCarry(ArrayData array, int child) {
            Node element = children[child];
            if (element == null || array instanceof BinaryFormat) {
                return false;
            }
            for (int i = 0; i < array.size(); i++) {
                Object item = elementGetters[child].getElementOrNull(array, i);
                if (item != null && element.carries(item)) {
                    return true;
                }
            }
            return false;
        }
    }

    private static boolean hasLoneSurrogate(String text) {
        if (text == null) {
            return false;
        }
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code type} as a marked image lays it out: every TIMESTAMP / TIMESTAMP_LTZ of precision at
     * most 3 as precision 9, at any depth.
     */
    static LogicalType markedLayout(LogicalType type) {
        switch (type.getTypeRoot()) {
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return LogicalTypeChecks.getPrecision(type) <= 3 ? new TimestampType(type.isNullable(), 9) : type;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return LogicalTypeChecks.getPrecision(type) <= 3
                        ? new LocalZonedTimestampType(type.isNullable(), 9)
                        : type;
            case ROW: {
                RowType row = (RowType) type;
                List<RowType.RowField> fields = new ArrayList<>();
                for (RowType.RowField field : row.getFields()) {
                    fields.add(new RowType.RowField(
                            field.getName(), markedLayout(field.getType()), field.getDescription().orElse(null)));
                }
                return new RowType(row.isNullable(), fields);
            }
            case ARRAY:
                return new ArrayType(type.isNullable(), markedLayout(((ArrayType) type).getElementType()));
            case MAP:
                return new MapType(type.isNullable(), markedLayout(((MapType) type).getKeyType()),
                        markedLayout(((MapType) type).getValueType()));
            case MULTISET:
                return new MultisetType(type.isNullable(), markedLayout(((MultisetType) type).getElementType()));
            default:
                return type;
        }
    }

    /**
     * A copy of {@code value} (of {@code type}, not null) whose structures are all generic (so the
     * marked serializer lays every value out anew, binary ones included) and whose strings are their
     * Java text in the marked encoding ({@link #javaTextBytes}).
     */
    private static Object javaText(Object value, LogicalType type) {
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return StringData.fromBytes(javaTextBytes(value.toString()));
            case ROW: {
                RowData row = (RowData) value;
                List<LogicalType> types = type.getChildren();
                GenericRowData copy = new GenericRowData(row.getRowKind(), types.size());
                for (int i = 0; i < types.size(); i++) {
                    Object field = RowData.createFieldGetter(types.get(i), i).getFieldOrNull(row);
                    copy.setField(i, field == null ? null : javaText(field, types.get(i)));
                }
                return copy;
            }
            case ARRAY: {
                LogicalType element = ((ArrayType) type).getElementType();
                GenericArrayData items = javaTextArray((ArrayData) value, element);
                return isFloating(element) ? rawBitsArray(items, element) : items;
            }
            case MAP:
                return javaTextMap((MapData) value, ((MapType) type).getKeyType(), ((MapType) type).getValueType());
            case MULTISET:
                return javaTextMap((MapData) value, ((MultisetType) type).getElementType(), new IntType(false));
            default:
                return value;
        }
    }

    /**
     * A map's marked copy, entry for entry: its key and value arrays as {@link ArraysMapData}, or as a
     * {@link BinaryMapData} of arrays laid out here when keys or values are FLOAT / DOUBLE (Flink's
     * map serializer would write their elements through {@code BinaryArrayWriter}, which drops NaN
     * payloads).
     */
    private static MapData javaTextMap(MapData map, LogicalType keyType, LogicalType valueType) {
        GenericArrayData keys = javaTextArray(map.keyArray(), keyType);
        GenericArrayData values = javaTextArray(map.valueArray(), valueType);
        if (!isFloating(keyType) && !isFloating(valueType)) {
            return new ArraysMapData(keys, values);
        }
        return BinaryMapData.valueOf(binaryArray(keys, keyType), binaryArray(values, valueType));
    }

    private static boolean isFloating(LogicalType type) {
        LogicalTypeRoot root = type.getTypeRoot();
        return root == LogicalTypeRoot.FLOAT || root == LogicalTypeRoot.DOUBLE;
    }

    /**
     * {@code items} (already a marked copy) as a binary array of the marked layout, its FLOAT /
     * DOUBLE elements with their raw bits.
     */
    private static BinaryArrayData binaryArray(GenericArrayData items, LogicalType elementType) {
        return isFloating(elementType)
                ? rawBitsArray(items, elementType)
                : new ArrayDataSerializer(markedLayout(elementType)).toBinaryArray(items).copy();
    }

    /**
     * The binary array of FLOAT / DOUBLE {@code items} whose elements hold the bits of the Java values
     * ({@code floatToRawIntBits} / {@code doubleToRawLongBits}), where {@code BinaryArrayWriter}
     * stores every NaN as the canonical one; nulls as Flink lays them out.
     */
    private static BinaryArrayData rawBitsArray(GenericArrayData items, LogicalType elementType) {
        BinaryArrayData array = new ArrayDataSerializer(elementType).toBinaryArray(items).copy();
        MemorySegment segment = array.getSegments()[0];
        int n = items.size();
        int values = array.getOffset() + BinaryArrayData.calculateHeaderInBytes(n);
        boolean isFloat = elementType.getTypeRoot() == LogicalTypeRoot.FLOAT;
        for (int i = 0; i < n; i++) {
            if (items.isNullAt(i)) {
                continue;
            }
            if (isFloat) {
                segment.putInt(values + 4 * i, Float.floatToRawIntBits(items.getFloat(i)));
            } else {
                segment.putLong(values + 8 * i, Double.doubleToRawLongBits(items.getDouble(i)));
            }
        }
        return array;
    }

    private static GenericArrayData javaTextArray(ArrayData array, LogicalType elementType) {
        ArrayData.ElementGetter getter = ArrayData.createElementGetter(elementType);
        Object[] items = new Object[array.size()];
        for (int i = 0; i < items.length; i++) {
            Object item = getter.getElementOrNull(array, i);
            items[i] = item == null ? null : javaText(item, elementType);
        }
        return new GenericArrayData(items);
    }

    /**
     * The UTF-16 text of {@code text} in UTF-8, except that a surrogate which is not half of a pair
     * is the 3-byte sequence of its code unit (what {@code java_text_pieces} in {@code
     * codecs/src/java/utf8.rs} reads back).
     */
    static byte[] javaTextBytes(String text) {
        int n = text.length();
        byte[] out = new byte[n * 3];
        int at = 0;
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                out[at++] = (byte) c;
            } else if (c < 0x800) {
                out[at++] = (byte) (0xC0 | (c >> 6));
                out[at++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, text.charAt(++i));
                out[at++] = (byte) (0xF0 | (cp >> 18));
                out[at++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                out[at++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                out[at++] = (byte) (0x80 | (cp & 0x3F));
            } else {
                // Every other BMP unit, a lone surrogate included.
                out[at++] = (byte) (0xE0 | (c >> 12));
                out[at++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                out[at++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return Arrays.copyOf(out, at);
    }

    /** A map given as its key and value arrays, entry for entry (order and repeated keys kept). */
    private static final class ArraysMapData implements MapData {
        private final ArrayData keys;
        private final ArrayData values;

        ArraysMapData(ArrayData keys, ArrayData values) {
            this.keys = keys;
            this.values = values;
        }

        @Override
        public int size() {
            return keys.size();
        }

        @Override
        public ArrayData keyArray() {
            return keys;
        }

        @Override
        public ArrayData valueArray() {
            return values;
        }
    }
}

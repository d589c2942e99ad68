package io.karrow.flink.rows;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryFormat;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.IntType;
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
 * stock writer reads it (flink-json; flink-protobuf, which hashes and compares a map key's Java
 * string): the nano-of-millisecond of a TIMESTAMP / TIMESTAMP_LTZ of
 * precision at most 3 (a {@code BinaryRowData} keeps its epoch millis only) and a lone UTF-16
 * surrogate in a string (Flink stores it as {@code '?'}). Flink's JSON decoder hands both on in a
 * {@code GenericRowData}: it keeps every parsed fraction digit whatever the precision, and Jackson
 * reads {@code "\uD83D"} into a Java string.
 *
 * <p>Only a row that carries such a detail ({@link #carriesDetail}) gets a <em>marked</em> image,
 * whose layout is described next to its reader, in {@code codecs/src/flink_binary/java_detail.rs}:
 * bit {@link #MARK} of the header byte set, every TIMESTAMP / TIMESTAMP_LTZ laid out as a
 * non-compact one (precision 9), every string as its Java text in UTF-8 with a lone surrogate as the
 * 3-byte sequence of its code unit. Values inside binary structures ({@link BinaryFormat}) cannot
 * carry a detail, but are copied field by field into the marked layout too. Not thread-safe.
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
                    Node element = of(((ArrayType) type).getElementType());
                    return element == null ? null : new Node(type, new Node[] {element}, null);
                }
                case MAP: {
                    Node key = of(((MapType) type).getKeyType());
                    Node value = of(((MapType) type).getValueType());
                    return key == null && value == null ? null : new Node(type, new Node[] {key, value}, null);
                }
                case MULTISET: {
                    Node element = of(((MultisetType) type).getElementType());
                    return element == null ? null : new Node(type, new Node[] {element, null}, null);
                }
                default:
                    return null;
            }
        }

        /** Whether {@code value} (of this node's type, not null) carries a detail. */
        boolean carries(Object value) {
            if (children == null) {
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
            case ARRAY:
                return javaTextArray((ArrayData) value, ((ArrayType) type).getElementType());
            case MAP:
                return new ArraysMapData(
                        javaTextArray(((MapData) value).keyArray(), ((MapType) type).getKeyType()),
                        javaTextArray(((MapData) value).valueArray(), ((MapType) type).getValueType()));
            case MULTISET:
                return new ArraysMapData(
                        javaTextArray(((MapData) value).keyArray(), ((MultisetType) type).getElementType()),
                        javaTextArray(((MapData) value).valueArray(), new IntType(false)));
            default:
                return value;
        }
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

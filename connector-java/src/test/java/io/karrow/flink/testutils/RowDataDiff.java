package io.karrow.flink.testutils;

import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.IntType;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Exact, field-by-field comparison of two Flink internal rows of the same {@link RowType}, whatever
 * their classes (GenericRowData, BinaryRowData, nested binary or generic data). {@link #diff} compares
 * maps as maps; {@link #diffInOrder} also compares their entry order (the order every encoder
 * downstream writes them in). Everything else exactly, floats by bit pattern (so NaN equals NaN and
 * -0.0 differs from 0.0).
 */
public final class RowDataDiff {

    private RowDataDiff() {}

    /** Returns null if equal (maps compared as maps), else a description of the first difference. */
    public static String diff(RowType type, RowData expected, RowData actual) {
        return diff(type, expected, actual, false);
    }

    /** As {@link #diff}, and every map's entries must also come in the same order. */
    public static String diffInOrder(RowType type, RowData expected, RowData actual) {
        return diff(type, expected, actual, true);
    }

    private static String diff(RowType type, RowData expected, RowData actual, boolean ordered) {
        if (expected == null || actual == null) {
            return expected == actual ? null : "row: expected " + expected + " but got " + actual;
        }
        if (expected.getRowKind() != actual.getRowKind()) {
            return "row kind: expected " + expected.getRowKind() + " but got " + actual.getRowKind();
        }
        if (expected.getArity() != actual.getArity()) {
            return "arity: expected " + expected.getArity() + " but got " + actual.getArity();
        }
        return rowDiff("", type, expected, actual, ordered);
    }

    private static String rowDiff(String path, RowType type, RowData e, RowData a, boolean ordered) {
        for (int i = 0; i < type.getFieldCount(); i++) {
            String p = path + "." + type.getFieldNames().get(i);
            LogicalType t = type.getTypeAt(i);
            RowData.FieldGetter getter = RowData.createFieldGetter(t, i);
            String d = valueDiff(p, t, getter.getFieldOrNull(e), getter.getFieldOrNull(a), ordered);
            if (d != null) {
                return d;
            }
        }
        return null;
    }

    private static String valueDiff(String path, LogicalType t, Object e, Object a, boolean ordered) {
        if (e == null || a == null) {
            return e == a ? null : path + ": expected " + render(e) + " but got " + render(a);
        }
        boolean equal;
        switch (t.getTypeRoot()) {
            case FLOAT:
                equal = Float.floatToIntBits((Float) e) == Float.floatToIntBits((Float) a);
                break;
            case DOUBLE:
                equal = Double.doubleToLongBits((Double) e) == Double.doubleToLongBits((Double) a);
                break;
            case CHAR:
            case VARCHAR:
                equal = Arrays.equals(((StringData) e).toBytes(), ((StringData) a).toBytes());
                break;
            case BINARY:
            case VARBINARY:
                equal = Arrays.equals((byte[]) e, (byte[]) a);
                break;
            case DECIMAL:
                DecimalData de = (DecimalData) e;
                DecimalData da = (DecimalData) a;
                DecimalType dt = (DecimalType) t;
                equal = de.precision() == da.precision() && de.scale() == da.scale()
                        && de.toBigDecimal().equals(da.toBigDecimal())
                        && da.precision() == dt.getPrecision() && da.scale() == dt.getScale();
                break;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                TimestampData te = (TimestampData) e;
                TimestampData ta = (TimestampData) a;
                equal = te.getMillisecond() == ta.getMillisecond()
                        && te.getNanoOfMillisecond() == ta.getNanoOfMillisecond();
                break;
            case ROW:
                return rowDiff(path, (RowType) t, (RowData) e, (RowData) a, ordered);
            case ARRAY:
                return arrayDiff(path, ((ArrayType) t).getElementType(), (ArrayData) e, (ArrayData) a, ordered);
            case MAP:
                return mapDiff(path, ((MapType) t).getKeyType(), ((MapType) t).getValueType(), (MapData) e, (MapData) a, ordered);
            case MULTISET:
                return mapDiff(path, ((MultisetType) t).getElementType(), new IntType(false), (MapData) e, (MapData) a, ordered);
            default:
                equal = e.equals(a);
        }
        return equal ? null : path + ": expected " + render(e) + " but got " + render(a);
    }

    private static String arrayDiff(String path, LogicalType elementType, ArrayData e, ArrayData a, boolean ordered) {
        if (e.size() != a.size()) {
            return path + ": expected array size " + e.size() + " but got " + a.size();
        }
        ArrayData.ElementGetter getter = ArrayData.createElementGetter(elementType);
        for (int i = 0; i < e.size(); i++) {
            String d = valueDiff(path + "[" + i + "]", elementType, getter.getElementOrNull(e, i), getter.getElementOrNull(a, i), ordered);
            if (d != null) {
                return d;
            }
        }
        return null;
    }

    private static String mapDiff(String path, LogicalType keyType, LogicalType valueType, MapData e, MapData a,
                                  boolean ordered) {
        if (e.size() != a.size()) {
            return path + ": expected map size " + e.size() + " but got " + a.size();
        }
        if (ordered) {
            String keys = arrayDiff(path + ".keys", keyType, e.keyArray(), a.keyArray(), true);
            return keys != null ? keys : arrayDiff(path + ".values", valueType, e.valueArray(), a.valueArray(), true);
        }
        Map<Object, Object> expected = toJava(keyType, valueType, e);
        Map<Object, Object> actual = toJava(keyType, valueType, a);
        if (expected.size() != e.size() || actual.size() != a.size()) {
            return path + ": duplicate map keys (expected " + expected.keySet() + ", actual " + actual.keySet() + ")";
        }
        ArrayData.ElementGetter valueGetter = ArrayData.createElementGetter(valueType);
        for (Map.Entry<Object, Object> entry : expected.entrySet()) {
            if (!actual.containsKey(entry.getKey())) {
                return path + ": missing key " + entry.getKey() + " (actual keys " + actual.keySet() + ")";
            }
            String d = valueDiff(path + "{" + entry.getKey() + "}", valueType, entry.getValue(), actual.get(entry.getKey()), false);
            if (d != null) {
                return d;
            }
        }
        return null;
    }

    private static Map<Object, Object> toJava(LogicalType keyType, LogicalType valueType, MapData m) {
        ArrayData.ElementGetter keyGetter = ArrayData.createElementGetter(keyType);
        ArrayData.ElementGetter valueGetter = ArrayData.createElementGetter(valueType);
        Map<Object, Object> out = new HashMap<>();
        for (int i = 0; i < m.size(); i++) {
            Object key = keyGetter.getElementOrNull(m.keyArray(), i);
            out.put(key == null ? null : key.toString(), valueGetter.getElementOrNull(m.valueArray(), i));
        }
        return out;
    }

    private static String render(Object value) {
        if (value instanceof byte[]) {
            return Arrays.toString((byte[]) value);
        }
        if (value instanceof DecimalData) {
            DecimalData d = (DecimalData) value;
            return d.toBigDecimal().toPlainString() + " (p=" + d.precision() + ",s=" + d.scale() + ")";
        }
        if (value instanceof TimestampData) {
            TimestampData t = (TimestampData) value;
            return t.getMillisecond() + "ms+" + t.getNanoOfMillisecond() + "ns";
        }
        return String.valueOf(value);
    }
}

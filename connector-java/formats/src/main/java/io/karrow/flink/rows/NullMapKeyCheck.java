package io.karrow.flink.rows;

import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;

/**
 * Rejects a NULL key in any MAP or MULTISET of a row that is not yet binary, as Flink's Avro writer
 * does (it converts every key with {@code toString()}). A {@code BinaryRowData} needs no check: there
 * a NULL key slot reads as the empty string, and Flink writes {@code ""}, as the native encoder does.
 */
public final class NullMapKeyCheck implements Serializable {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final boolean needed;

    /** Creates the check for rows of {@code rowType}. */
    public NullMapKeyCheck(RowType rowType) {
        this.rowType = rowType;
        this.needed = containsMap(rowType);
    }

    /** Whether the row type has a MAP or MULTISET anywhere (otherwise {@link #check} is a no-op). */
    public boolean isNeeded() {
        return needed;
    }

    /**
     * Throws when {@code row} holds a NULL map key.
     *
     * @throws IllegalArgumentException naming the column
     */
    public void check(RowData row) {
        if (needed) {
            checkRow(row, rowType, "");
        }
    }

    private static boolean containsMap(LogicalType type) {
        if (type instanceof MapType || type instanceof MultisetType) {
            return true;
        }
        return type.getChildren().stream().anyMatch(NullMapKeyCheck::containsMap);
    }

    private static void checkRow(RowData row, RowType type, String path) {
        for (int i = 0; i < type.getFieldCount(); i++) {
            LogicalType field = type.getTypeAt(i);
            if (!containsMap(field) || row.isNullAt(i)) {
                continue;
            }
            String name = path + type.getFieldNames().get(i);
            checkValue(RowData.createFieldGetter(field, i).getFieldOrNull(row), field, name);
        }
    }

    private static void checkValue(Object value, LogicalType type, String path) {
        if (value == null) {
            return;
        }
        if (type instanceof RowType) {
            checkRow((RowData) value, (RowType) type, path + ".");
        } else if (type instanceof ArrayType) {
            LogicalType element = ((ArrayType) type).getElementType();
            ArrayData array = (ArrayData) value;
            ArrayData.ElementGetter getter = ArrayData.createElementGetter(element);
            for (int i = 0; i < array.size(); i++) {
                checkValue(getter.getElementOrNull(array, i), element, path);
            }
        } else if (type instanceof MapType || type instanceof MultisetType) {
            MapData map = (MapData) value;
            ArrayData keys = map.keyArray();
            for (int i = 0; i < keys.size(); i++) {
                if (keys.isNullAt(i)) {
                    throw new IllegalArgumentException(
                            "Failed to serialize row: MAP column '" + path
                                    + "' has a NULL key, which an Avro map cannot hold.");
                }
            }
            if (type instanceof MapType) {
                LogicalType valueType = ((MapType) type).getValueType();
                ArrayData values = map.valueArray();
                ArrayData.ElementGetter getter = ArrayData.createElementGetter(valueType);
                for (int i = 0; i < values.size(); i++) {
                    checkValue(getter.getElementOrNull(values, i), valueType, path);
                }
            }
        }
    }
}

package io.karrow.flink.rows;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;

/**
 * Copies the top-level fields of a {@code RowData} (typically a native {@code BinaryRowData}) into
 * a {@link GenericRowData}, for consumers that cast to {@code GenericRowData} (Flink's Kafka
 * connector does when a table has a key format or metadata columns).
 *
 * <p>Only the top level is copied: nested values stay in their internal binary form ({@code
 * BinaryStringData}, {@code BinaryArrayData}, {@code BinaryMapData}, nested {@code BinaryRowData}),
 * which are valid {@code RowData} internals.
 */
public final class BinaryToGenericRows implements Serializable {

    private static final long serialVersionUID = 1L;

    private final RowData.FieldGetter[] getters;

    /** Creates a converter for rows of {@code rowType}. */
    public BinaryToGenericRows(RowType rowType) {
        this.getters = new RowData.FieldGetter[rowType.getFieldCount()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = RowData.createFieldGetter(rowType.getTypeAt(i), i);
        }
    }

    /** Returns a new {@link GenericRowData} with the row kind and top-level fields of {@code row}. */
    public GenericRowData toGeneric(RowData row) {
        GenericRowData out = new GenericRowData(row.getRowKind(), getters.length);
        for (int i = 0; i < getters.length; i++) {
            out.setField(i, getters[i].getFieldOrNull(row));
        }
        return out;
    }
}

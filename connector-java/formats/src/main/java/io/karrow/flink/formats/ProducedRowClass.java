package io.karrow.flink.formats;

import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.factories.DynamicTableFactory;

/**
 * Which {@code RowData} class a native decoding format must produce for a table.
 *
 * <p>Native formats produce {@code BinaryRowData} views without per-field objects. Flink's Kafka
 * connector casts key and value rows to {@code GenericRowData} as soon as the table declares a key
 * format or metadata columns, so for such tables the rows must be converted.
 */
public final class ProducedRowClass {

    /** Table option of the Kafka connectors naming the key format. */
    public static final String KEY_FORMAT_OPTION = "key.format";

    private ProducedRowClass() {}

    /**
     * Whether the consuming connector may cast rows to {@code GenericRowData}: the table has a key
     * format (the format may be the key or the value format) or declares metadata columns.
     */
    public static boolean needsGenericRows(DynamicTableFactory.Context context) {
        ResolvedCatalogTable table = context.getCatalogTable();
        if (table.getOptions().containsKey(KEY_FORMAT_OPTION)) {
            return true;
        }
        return table.getResolvedSchema().getColumns().stream().anyMatch(c -> c instanceof Column.MetadataColumn);
    }
}

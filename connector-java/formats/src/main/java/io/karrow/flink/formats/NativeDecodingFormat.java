package io.karrow.flink.formats;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.Projection;
import org.apache.flink.table.connector.format.ProjectableDecodingFormat;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.Objects;

/**
 * What every native decoding format shares: its decode settings, whether its rows must be {@code
 * GenericRowData}, top-level projection (columns are matched by name; nested projection is not
 * supported) and an insert-only changelog. A format checks the projected row type and creates its
 * deserialization schema in {@link #createDecoder}.
 *
 * @param <C> the format's decode settings
 */
public abstract class NativeDecodingFormat<C> implements ProjectableDecodingFormat<DeserializationSchema<RowData>> {

    /** The decode settings. */
    protected final C config;
    /** Whether produced rows must be {@code GenericRowData}. */
    protected final boolean emitGenericRows;

    /**
     * Creates the format.
     *
     * @param config the decode settings
     * @param emitGenericRows whether produced rows must be {@code GenericRowData}
     */
    protected NativeDecodingFormat(C config, boolean emitGenericRows) {
        this.config = Objects.requireNonNull(config, "config");
        this.emitGenericRows = emitGenericRows;
    }

    @Override
    public final DeserializationSchema<RowData> createRuntimeDecoder(
            DynamicTableSource.Context context, DataType physicalDataType, int[][] projections) {
        DataType producedDataType = Projection.of(projections).project(physicalDataType);
        return createDecoder(context, producedDataType, (RowType) producedDataType.getLogicalType());
    }

    /**
     * Checks the projected row type (with Flink's messages) and creates the deserialization schema.
     *
     * @param context the planner's context, for the produced type information
     * @param producedDataType the projected physical data type
     * @param rowType its logical type
     */
    protected abstract DeserializationSchema<RowData> createDecoder(
            DynamicTableSource.Context context, DataType producedDataType, RowType rowType);

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    /** The decode settings of this format. */
    public C getConfig() {
        return config;
    }
}

package io.karrow.flink.formats;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.Objects;

/**
 * What every native encoding format shares: its encode settings and an insert-only changelog. A
 * format checks the physical row type and creates its serialization schema in {@link
 * #createEncoder}.
 *
 * @param <C> the format's encode settings
 */
public abstract class NativeEncodingFormat<C> implements EncodingFormat<SerializationSchema<RowData>> {

    /** The encode settings. */
    protected final C config;

    /**
     * Creates the format.
     *
     * @param config the encode settings
     */
    protected NativeEncodingFormat(C config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    @Override
    public final SerializationSchema<RowData> createRuntimeEncoder(
            DynamicTableSink.Context context, DataType physicalDataType) {
        return createEncoder((RowType) physicalDataType.getLogicalType());
    }

    /** Checks the physical row type (with Flink's messages) and creates the serialization schema. */
    protected abstract SerializationSchema<RowData> createEncoder(RowType rowType);

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    /** The encode settings of this format. */
    public C getConfig() {
        return config;
    }
}

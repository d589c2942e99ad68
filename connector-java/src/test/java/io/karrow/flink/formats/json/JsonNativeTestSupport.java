package io.karrow.flink.formats.json;

import io.karrow.flink.testutils.TestInitContext;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.SerializationFormatFactory;
import org.apache.flink.table.runtime.connector.sink.SinkRuntimeProviderContext;
import org.apache.flink.table.runtime.connector.source.ScanRuntimeProviderContext;
import org.apache.flink.table.types.DataType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Opens {@code json-native} and Flink's {@code json} (the oracle) schemas the way the planner does:
 * factory discovery, {@code createDecodingFormat} / {@code createEncodingFormat}, runtime codec, open.
 */
final class JsonNativeTestSupport {

    private JsonNativeTestSupport() {}

    /** A table context for {@code physical}, with a metadata column when asked (forces generic rows). */
    static DynamicTableFactory.Context context(DataType physical, boolean metadataColumn) {
        List<Column> columns = new ArrayList<>();
        for (DataTypes.Field field : DataType.getFields(physical)) {
            columns.add(Column.physical(field.getName(), field.getDataType()));
        }
        if (metadataColumn) {
            columns.add(Column.metadata("kafka_offset", DataTypes.BIGINT(), "offset", true));
        }
        ResolvedSchema schema = ResolvedSchema.of(columns);
        CatalogTable table = CatalogTable.newBuilder()
                .schema(org.apache.flink.table.api.Schema.newBuilder().fromResolvedSchema(schema).build())
                .options(Map.of())
                .build();
        return new FactoryUtil.DefaultDynamicTableContext(
                ObjectIdentifier.of("c", "d", "t"), new ResolvedCatalogTable(table, schema), Map.of(),
                new Configuration(), Thread.currentThread().getContextClassLoader(), false);
    }

    /** An opened deserializer of format {@code identifier} for {@code physical}. */
    static DeserializationSchema<RowData> decoder(
            String identifier, DataType physical, Map<String, String> options, boolean metadataColumn) throws Exception {
        DeserializationFormatFactory factory = FactoryUtil.discoverFactory(
                Thread.currentThread().getContextClassLoader(), DeserializationFormatFactory.class, identifier);
        DeserializationSchema<RowData> schema = factory
                .createDecodingFormat(context(physical, metadataColumn), Configuration.fromMap(options))
                .createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, physical);
        schema.open(TestInitContext.INSTANCE);
        return schema;
    }

    /** An opened serializer of format {@code identifier} for {@code physical}. */
    static SerializationSchema<RowData> encoder(String identifier, DataType physical, Map<String, String> options)
            throws Exception {
        SerializationFormatFactory factory = FactoryUtil.discoverFactory(
                Thread.currentThread().getContextClassLoader(), SerializationFormatFactory.class, identifier);
        SerializationSchema<RowData> schema = factory
                .createEncodingFormat(context(physical, false), Configuration.fromMap(options))
                .createRuntimeEncoder(new SinkRuntimeProviderContext(false), physical);
        schema.open(TestInitContext.INSTANCE);
        return schema;
    }
}

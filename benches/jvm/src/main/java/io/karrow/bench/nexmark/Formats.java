package io.karrow.bench.nexmark;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.SerializationFormatFactory;
import org.apache.flink.table.runtime.connector.sink.SinkRuntimeProviderContext;
import org.apache.flink.table.runtime.connector.source.ScanRuntimeProviderContext;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runtime (de)serializers of a format, created as a SQL table on a single Kafka topic gets them:
 * the factory discovered by identifier, the format options without prefix, a value-only table of
 * the row type's columns.
 */
final class Formats {

    private Formats() {}

    /** The opened encoder of {@code identifier} for rows of {@code rowType}, writing to {@code topic}. */
    static SerializationSchema<RowData> encoder(String identifier, Map<String, String> options, RowType rowType,
            String topic) throws Exception {
        SerializationFormatFactory factory = FactoryUtil.discoverFactory(
                Thread.currentThread().getContextClassLoader(), SerializationFormatFactory.class, identifier);
        SerializationSchema<RowData> schema = factory
                .createEncodingFormat(context(rowType, identifier, topic), Configuration.fromMap(options))
                .createRuntimeEncoder(new SinkRuntimeProviderContext(false), physical(rowType));
        schema.open(InitContext.INSTANCE);
        return schema;
    }

    /** The opened decoder of {@code identifier} for rows of {@code rowType}, reading {@code topic}. */
    static DeserializationSchema<RowData> decoder(String identifier, Map<String, String> options, RowType rowType,
            String topic) throws Exception {
        DeserializationFormatFactory factory = FactoryUtil.discoverFactory(
                Thread.currentThread().getContextClassLoader(), DeserializationFormatFactory.class, identifier);
        DeserializationSchema<RowData> schema = factory
                .createDecodingFormat(context(rowType, identifier, topic), Configuration.fromMap(options))
                .createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, physical(rowType));
        schema.open(InitContext.INSTANCE);
        return schema;
    }

    private static DataType physical(RowType rowType) {
        return TypeConversions.fromLogicalToDataType(rowType);
    }

    /** A value-only Kafka table of {@code rowType}'s columns on {@code topic} with {@code 'value.format'}. */
    private static FactoryUtil.DefaultDynamicTableContext context(RowType rowType, String identifier, String topic) {
        List<Column> columns = new ArrayList<>();
        for (RowType.RowField field : rowType.getFields()) {
            columns.add(Column.physical(field.getName(), TypeConversions.fromLogicalToDataType(field.getType())));
        }
        ResolvedSchema schema = ResolvedSchema.of(columns);
        Map<String, String> tableOptions = new HashMap<>();
        tableOptions.put("connector", "kafka");
        tableOptions.put("topic", topic);
        tableOptions.put("value.format", identifier);
        CatalogTable table = CatalogTable.newBuilder()
                .schema(Schema.newBuilder().fromResolvedSchema(schema).build())
                .options(tableOptions)
                .build();
        return new FactoryUtil.DefaultDynamicTableContext(
                ObjectIdentifier.of("default_catalog", "default_database", "t"),
                new ResolvedCatalogTable(table, schema),
                Map.of(),
                new Configuration(),
                Thread.currentThread().getContextClassLoader(),
                false);
    }

    /** The initialization context a task passes to {@code open}. */
    private static final class InitContext
            implements DeserializationSchema.InitializationContext, SerializationSchema.InitializationContext {
        static final InitContext INSTANCE = new InitContext();

        @Override
        public MetricGroup getMetricGroup() {
            return new UnregisteredMetricsGroup();
        }

        @Override
        public UserCodeClassLoader getUserCodeClassLoader() {
            return SimpleUserCodeClassLoader.create(Thread.currentThread().getContextClassLoader());
        }
    }
}

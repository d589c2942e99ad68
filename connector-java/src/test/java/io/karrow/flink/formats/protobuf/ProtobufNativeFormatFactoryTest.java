package io.karrow.flink.formats.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.karrow.flink.formats.protobuf.proto.BidsProto;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.SerializationFormatFactory;
import org.apache.flink.table.runtime.connector.sink.SinkRuntimeProviderContext;
import org.apache.flink.table.runtime.connector.source.ScanRuntimeProviderContext;
import org.apache.flink.table.types.DataType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Options and planning-time validation of {@code protobuf-native}, checked against Flink's own
 * {@code protobuf} factory (flink-protobuf 2.2.0); and one value decoded and encoded through the
 * factory as a smoke test of the native path (the parity suites cover the semantics).
 */
class ProtobufNativeFormatFactoryTest {

    private static final String BID = BidsProto.Bid.class.getName();

    private static DynamicTableFactory.Context context(DataType physical) {
        List<Column> columns = ((org.apache.flink.table.types.logical.RowType) physical.getLogicalType())
                .getFields().stream()
                .map(f -> Column.physical(f.getName(), DataTypes.of(f.getType())))
                .collect(Collectors.toList());
        ResolvedSchema schema = ResolvedSchema.of(columns);
        CatalogTable table = CatalogTable.newBuilder()
                .schema(org.apache.flink.table.api.Schema.newBuilder().fromResolvedSchema(schema).build())
                .options(Map.of())
                .build();
        return new FactoryUtil.DefaultDynamicTableContext(
                ObjectIdentifier.of("c", "d", "t"), new ResolvedCatalogTable(table, schema), Map.of(),
                new Configuration(), Thread.currentThread().getContextClassLoader(), false);
    }

    private static DeserializationSchema<RowData> decoder(String identifier, DataType physical, Map<String, String> options) {
        DeserializationFormatFactory factory = FactoryUtil.discoverFactory(
                Thread.currentThread().getContextClassLoader(), DeserializationFormatFactory.class, identifier);
        return factory.createDecodingFormat(context(physical), Configuration.fromMap(options))
                .createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, physical);
    }

    private static SerializationSchema<RowData> encoder(String identifier, DataType physical, Map<String, String> options) {
        SerializationFormatFactory factory = FactoryUtil.discoverFactory(
                Thread.currentThread().getContextClassLoader(), SerializationFormatFactory.class, identifier);
        return factory.createEncodingFormat(context(physical), Configuration.fromMap(options))
                .createRuntimeEncoder(new SinkRuntimeProviderContext(false), physical);
    }

    private static Set<String> keys(Set<ConfigOption<?>> options) {
        return options.stream().map(ConfigOption::key).collect(Collectors.toSet());
    }

    @Test
    void optionsAreFlinksProtobufOptions() {
        DeserializationFormatFactory flink = FactoryUtil.discoverFactory(
                getClass().getClassLoader(), DeserializationFormatFactory.class, "protobuf");
        ProtobufNativeFormatFactory nativeFactory = new ProtobufNativeFormatFactory();
        assertThat(keys(nativeFactory.requiredOptions())).isEqualTo(keys(flink.requiredOptions()));
        assertThat(keys(nativeFactory.optionalOptions())).isEqualTo(keys(flink.optionalOptions()));
        for (ConfigOption<?> option : nativeFactory.optionalOptions()) {
            ConfigOption<?> theirs = flink.optionalOptions().stream()
                    .filter(o -> o.key().equals(option.key())).findFirst().orElseThrow();
            assertThat(option.defaultValue()).as(option.key()).isEqualTo(theirs.defaultValue());
        }
    }

    @Test
    void validationFailsAsFlinkDoes() {
        Map<String, String> options = Map.of("message-class-name", BID);
        List<DataType> wrong = List.of(
                DataTypes.ROW(DataTypes.FIELD("nope", DataTypes.BIGINT())),
                DataTypes.ROW(DataTypes.FIELD("auction", DataTypes.INT())),
                DataTypes.ROW(DataTypes.FIELD("channel", DataTypes.BYTES())),
                DataTypes.ROW(DataTypes.FIELD("price", DataTypes.ARRAY(DataTypes.BIGINT()))));
        for (DataType physical : wrong) {
            for (Function<String, Object> create : List.<Function<String, Object>>of(
                    id -> decoder(id, physical, options), id -> encoder(id, physical, options))) {
                Throwable flink = catchThrowable(() -> create.apply("protobuf"));
                assertThat(flink).as("Flink rejects %s", physical).isNotNull();
                assertThatThrownBy(() -> create.apply("protobuf-native"))
                        .isInstanceOf(flink.getClass())
                        .hasMessage(flink.getMessage());
            }
        }
        Throwable missingClass = catchThrowable(() -> decoder("protobuf",
                DataTypes.ROW(DataTypes.FIELD("a", DataTypes.INT())), Map.of("message-class-name", "no.Such")));
        assertThatThrownBy(() -> decoder("protobuf-native",
                DataTypes.ROW(DataTypes.FIELD("a", DataTypes.INT())), Map.of("message-class-name", "no.Such")))
                .isInstanceOf(missingClass.getClass())
                .hasMessage(missingClass.getMessage());
    }

    @Test
    void aBidDecodesAndEncodesThroughTheFactory() throws Exception {
        DataType physical = DataTypes.ROW(
                DataTypes.FIELD("auction", DataTypes.BIGINT()),
                DataTypes.FIELD("price", DataTypes.BIGINT()),
                DataTypes.FIELD("channel", DataTypes.STRING()));
        Map<String, String> options = Map.of("message-class-name", BID);
        byte[] bytes = BidsProto.Bid.newBuilder()
                .setAuction(7).setBidder(9).setPrice(1234).setChannel("Google").setExtra("x").build().toByteArray();
        DeserializationSchema<RowData> nativeDecoder = decoder("protobuf-native", physical, options);
        nativeDecoder.open(null);
        RowData row = nativeDecoder.deserialize(bytes);
        assertThat(row.getLong(0)).isEqualTo(7);
        assertThat(row.getLong(1)).isEqualTo(1234);
        assertThat(row.getString(2).toString()).isEqualTo("Google");

        SerializationSchema<RowData> nativeEncoder = encoder("protobuf-native", physical, options);
        SerializationSchema<RowData> flinkEncoder = encoder("protobuf", physical, options);
        nativeEncoder.open(null);
        flinkEncoder.open(null);
        assertThat(nativeEncoder.serialize(row)).isEqualTo(flinkEncoder.serialize(row));
    }

    private static Throwable catchThrowable(Runnable r) {
        try {
            r.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }
}

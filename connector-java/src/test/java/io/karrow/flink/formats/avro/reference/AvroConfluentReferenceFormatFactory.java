package io.karrow.flink.formats.avro.reference;

import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.BASIC_AUTH_CREDENTIALS_SOURCE;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.BASIC_AUTH_USER_INFO;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.BEARER_AUTH_CREDENTIALS_SOURCE;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.BEARER_AUTH_TOKEN;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.PROPERTIES;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.SCHEMA;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.SSL_KEYSTORE_LOCATION;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.SSL_KEYSTORE_PASSWORD;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.SSL_TRUSTSTORE_LOCATION;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.SSL_TRUSTSTORE_PASSWORD;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.SUBJECT;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.URL;

import io.karrow.flink.formats.registry.SubjectAutoCompletion;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.Projection;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.format.ProjectableDecodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.SerializationFormatFactory;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.Set;

/**
 * Test-scope format {@code avro-confluent-reference}: the parity oracle. It runs what Flink's
 * {@code avro-confluent} runs (see {@link ReferenceDeserializers} and {@link ReferenceSerializers}),
 * with the same options, so SQL tests can run one query both ways.
 *
 * <p>Flink's Kafka connector fills in the subject of {@code avro-confluent} sinks ({@code
 * <topic>-value} / {@code <topic>-key}) but not for this identifier, so this factory applies the
 * same {@link SubjectAutoCompletion} as {@code avro-confluent-native}.
 */
public class AvroConfluentReferenceFormatFactory implements DeserializationFormatFactory, SerializationFormatFactory {

    /** The format identifier used in DDL. */
    public static final String IDENTIFIER = "avro-confluent-reference";

    @Override
    public DecodingFormat<DeserializationSchema<RowData>> createDecodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        FactoryUtil.validateFactoryOptions(this, formatOptions);
        String url = formatOptions.get(URL);
        String schema = formatOptions.getOptional(SCHEMA).orElse(null);
        return new ProjectableDecodingFormat<DeserializationSchema<RowData>>() {
            @Override
            public DeserializationSchema<RowData> createRuntimeDecoder(
                    DynamicTableSource.Context ctx, DataType physicalDataType, int[][] projections) {
                DataType produced = Projection.of(projections).project(physicalDataType);
                RowType rowType = (RowType) produced.getLogicalType();
                TypeInformation<RowData> typeInfo = ctx.createTypeInformation(produced);
                return ReferenceDeserializers.create(rowType, typeInfo, url, schema);
            }

            @Override
            public ChangelogMode getChangelogMode() {
                return ChangelogMode.insertOnly();
            }
        };
    }

    @Override
    public EncodingFormat<SerializationSchema<RowData>> createEncodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        FactoryUtil.validateFactoryOptions(this, formatOptions);
        String url = formatOptions.get(URL);
        String schema = formatOptions.getOptional(SCHEMA).orElse(null);
        String subject = formatOptions.getOptional(SUBJECT)
                .or(() -> SubjectAutoCompletion.defaultSubject(
                        IDENTIFIER, context.getCatalogTable().getOptions(), formatOptions))
                .orElseThrow(() -> new ValidationException(
                        String.format("Option %s.%s is required for serialization", IDENTIFIER, SUBJECT.key())));
        return new EncodingFormat<SerializationSchema<RowData>>() {
            @Override
            public SerializationSchema<RowData> createRuntimeEncoder(DynamicTableSink.Context ctx, DataType physicalDataType) {
                return ReferenceSerializers.create((RowType) physicalDataType.getLogicalType(), url, subject, schema);
            }

            @Override
            public ChangelogMode getChangelogMode() {
                return ChangelogMode.insertOnly();
            }
        };
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(URL);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(SUBJECT, SCHEMA, PROPERTIES, SSL_KEYSTORE_LOCATION, SSL_KEYSTORE_PASSWORD,
                SSL_TRUSTSTORE_LOCATION, SSL_TRUSTSTORE_PASSWORD, BASIC_AUTH_CREDENTIALS_SOURCE,
                BASIC_AUTH_USER_INFO, BEARER_AUTH_CREDENTIALS_SOURCE, BEARER_AUTH_TOKEN);
    }
}

package io.karrow.flink.formats.protobuf;

import static io.karrow.flink.formats.protobuf.ProtobufNativeFormatOptions.IGNORE_PARSE_ERRORS;
import static io.karrow.flink.formats.protobuf.ProtobufNativeFormatOptions.MESSAGE_CLASS_NAME;
import static io.karrow.flink.formats.protobuf.ProtobufNativeFormatOptions.READ_DEFAULT_VALUES;
import static io.karrow.flink.formats.protobuf.ProtobufNativeFormatOptions.WRITE_NULL_STRING_LITERAL;

import io.karrow.flink.formats.ProducedRowClass;

import com.google.protobuf.Descriptors.Descriptor;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.SerializationFormatFactory;

import java.util.Set;

/**
 * Factory of the {@code protobuf-native} format: a drop-in replacement for Flink's {@code protobuf}
 * format (flink-protobuf 2.2.0) with the same options, whose decoding and encoding run in Rust.
 *
 * <p>The generated message class is loaded only here, while the job is planned: its descriptor (with
 * every imported file) is serialized into the format's configuration, and native code decodes and
 * encodes from that, so task managers never call the generated code. Value-only tables get {@code
 * BinaryRowData} rows, tables with a key format or metadata columns {@code GenericRowData} (Flink's
 * Kafka connector casts to it).
 */
public class ProtobufNativeFormatFactory implements DeserializationFormatFactory, SerializationFormatFactory {

    /** The format identifier used in DDL. */
    public static final String IDENTIFIER = "protobuf-native";

    @Override
    public DecodingFormat<DeserializationSchema<RowData>> createDecodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        FactoryUtil.validateFactoryOptions(this, formatOptions);
        Descriptor message = message(context, formatOptions);
        return new ProtobufNativeDecodingFormat(
                message, config(message, formatOptions), ProducedRowClass.needsGenericRows(context));
    }

    @Override
    public EncodingFormat<SerializationSchema<RowData>> createEncodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        FactoryUtil.validateFactoryOptions(this, formatOptions);
        Descriptor message = message(context, formatOptions);
        return new ProtobufNativeEncodingFormat(message, config(message, formatOptions));
    }

    /** The descriptor of the class named by {@code message-class-name}, from the user class loader. */
    private static Descriptor message(DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        ClassLoader loader = context.getClassLoader() != null
                ? context.getClassLoader()
                : Thread.currentThread().getContextClassLoader();
        return ProtobufDescriptors.descriptorOf(formatOptions.get(MESSAGE_CLASS_NAME), loader);
    }

    /** The message's serialized descriptors and the options. */
    private static ProtobufConfig config(Descriptor message, ReadableConfig formatOptions) {
        return new ProtobufConfig(
                message.getFullName(),
                ProtobufDescriptors.descriptorSet(message),
                formatOptions.get(IGNORE_PARSE_ERRORS),
                formatOptions.get(READ_DEFAULT_VALUES),
                formatOptions.get(WRITE_NULL_STRING_LITERAL));
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(MESSAGE_CLASS_NAME);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(IGNORE_PARSE_ERRORS, READ_DEFAULT_VALUES, WRITE_NULL_STRING_LITERAL);
    }
}

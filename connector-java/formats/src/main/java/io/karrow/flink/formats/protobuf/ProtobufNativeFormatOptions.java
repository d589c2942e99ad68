package io.karrow.flink.formats.protobuf;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** Options of the {@code protobuf-native} format: the keys, types and defaults of Flink's {@code protobuf}. */
public final class ProtobufNativeFormatOptions {

    /** The generated message class the schema comes from (only needed while the job is planned). */
    public static final ConfigOption<String> MESSAGE_CLASS_NAME = ConfigOptions.key("message-class-name")
            .stringType()
            .noDefaultValue()
            .withDescription("Fully-qualified name of the generated Protobuf message class ('$' for nested classes).");

    /** Skip messages that cannot be parsed instead of failing. */
    public static final ConfigOption<Boolean> IGNORE_PARSE_ERRORS = ConfigOptions.key("ignore-parse-errors")
            .booleanType()
            .defaultValue(false)
            .withDescription("Skip messages that cannot be parsed instead of failing the job.");

    /** Read absent fields as their default values (decode only). */
    public static final ConfigOption<Boolean> READ_DEFAULT_VALUES = ConfigOptions.key("read-default-values")
            .booleanType()
            .defaultValue(false)
            .withDescription("Read absent fields as their Protobuf default values instead of NULL.");

    /** The string written for NULL strings inside arrays and maps (encode only). */
    public static final ConfigOption<String> WRITE_NULL_STRING_LITERAL = ConfigOptions.key("write-null-string-literal")
            .stringType()
            .defaultValue("")
            .withDescription("String written for NULL string elements of arrays and NULL string map keys and values.");

    private ProtobufNativeFormatOptions() {}
}

package io.karrow.flink.formats.protobuf;

import io.karrow.flink.formats.registry.RegistryFormatOptions;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The options {@code protobuf-confluent-native} has on top of the registry options every registry
 * format takes ({@code url}, {@code subject}, authentication, TLS, {@code properties}; see {@link
 * io.karrow.flink.formats.registry.RegistryFormatOptions}) and the three options of {@code
 * protobuf-native} it shares ({@link ProtobufNativeFormatOptions}: {@code ignore-parse-errors}, {@code
 * read-default-values}, {@code write-null-string-literal}).
 */
public final class ProtobufConfluentNativeFormatOptions {

    /** The {@code .proto} text registered for the written values; derived from the table when absent. */
    public static final ConfigOption<String> SCHEMA =
            RegistryFormatOptions.schema(
                    "The Protobuf schema (.proto text) registered under the subject when writing; its "
                            + "imports may be google/protobuf/* files and the registered schemas named by "
                            + "'schema.references'. If absent, a proto3 schema is derived from the table "
                            + "schema. Not used when reading.");

    /**
     * The registered schemas {@link #SCHEMA} imports (Confluent's schema references), each under the
     * import name it gives: a JSON array of {@code {"name", "subject", "version"}}, resolved when the
     * encoder opens and registered with the schema. Not used when reading (the writer schema's
     * references come from the registry).
     */
    public static final ConfigOption<String> SCHEMA_REFERENCES =
            ConfigOptions.key("schema.references")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Schema references of the writer schema given in 'schema' (the files it imports), "
                                    + "as a JSON array of {\"name\", \"subject\", \"version\"} objects, 'name' "
                                    + "being the import name; registered with it.");

    /** The message of {@link #SCHEMA} rows are written as; the first message of the file when absent. */
    public static final ConfigOption<String> MESSAGE_NAME =
            ConfigOptions.key("message-name")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The message of the 'schema' option rows are written as: its full name or its name "
                                    + "relative to the file's package (e.g. 'Order.Line'). Default: the first "
                                    + "message of the file. Not used when reading.");

    private ProtobufConfluentNativeFormatOptions() {}
}

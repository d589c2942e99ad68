package io.karrow.flink.formats.json;

import io.karrow.flink.formats.registry.RegistryFormatOptions;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The options {@code json-confluent-native} has on top of the eight options of {@code json-native}
 * ({@link JsonNativeFormatOptions}) and the registry options every registry format takes ({@code
 * url}, {@code subject}, authentication, TLS, {@code properties}; see {@link
 * io.karrow.flink.formats.registry.RegistryFormatOptions}).
 */
public final class JsonConfluentNativeFormatOptions {

    /** The JSON Schema registered for the written values; derived from the table when absent. */
    public static final ConfigOption<String> SCHEMA =
            RegistryFormatOptions.schema(
                    "The JSON Schema (text) registered under the subject when writing. If absent, a "
                            + "draft-07 JSON Schema is derived from the table schema. Not used when reading.");

    /** Whether every schema id read must name a JSON schema in the registry (decode). */
    public static final ConfigOption<Boolean> VALIDATE_SCHEMA_ID =
            ConfigOptions.key("validate-schema-id")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Whether the schema id of each value read must name a JSON schema in the registry "
                                    + "(looked up once per id). By default the id is not checked.");

    private JsonConfluentNativeFormatOptions() {}
}

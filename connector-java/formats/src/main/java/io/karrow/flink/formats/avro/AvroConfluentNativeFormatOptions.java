package io.karrow.flink.formats.avro;

import io.karrow.flink.formats.registry.RegistryFormatOptions;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.util.Map;

/**
 * Options of the {@code avro-confluent-native} format: the same keys, fallback keys, types and
 * defaults as Flink's {@code avro-confluent} format (flink-avro-confluent-registry 2.2.0): the
 * registry options shared by every registry format ({@link RegistryFormatOptions}) and the Avro
 * {@link #SCHEMA}.
 */
public final class AvroConfluentNativeFormatOptions {

    /** See {@link RegistryFormatOptions#URL}. */
    public static final ConfigOption<String> URL = RegistryFormatOptions.URL;

    /** See {@link RegistryFormatOptions#SUBJECT}. */
    public static final ConfigOption<String> SUBJECT = RegistryFormatOptions.SUBJECT;

    /** See {@link RegistryFormatOptions#SSL_KEYSTORE_LOCATION}. */
    public static final ConfigOption<String> SSL_KEYSTORE_LOCATION = RegistryFormatOptions.SSL_KEYSTORE_LOCATION;

    /** See {@link RegistryFormatOptions#SSL_KEYSTORE_PASSWORD}. */
    public static final ConfigOption<String> SSL_KEYSTORE_PASSWORD = RegistryFormatOptions.SSL_KEYSTORE_PASSWORD;

    /** See {@link RegistryFormatOptions#SSL_TRUSTSTORE_LOCATION}. */
    public static final ConfigOption<String> SSL_TRUSTSTORE_LOCATION = RegistryFormatOptions.SSL_TRUSTSTORE_LOCATION;

    /** See {@link RegistryFormatOptions#SSL_TRUSTSTORE_PASSWORD}. */
    public static final ConfigOption<String> SSL_TRUSTSTORE_PASSWORD = RegistryFormatOptions.SSL_TRUSTSTORE_PASSWORD;

    /** See {@link RegistryFormatOptions#BASIC_AUTH_CREDENTIALS_SOURCE}. */
    public static final ConfigOption<String> BASIC_AUTH_CREDENTIALS_SOURCE = RegistryFormatOptions.BASIC_AUTH_CREDENTIALS_SOURCE;

    /** See {@link RegistryFormatOptions#BASIC_AUTH_USER_INFO}. */
    public static final ConfigOption<String> BASIC_AUTH_USER_INFO = RegistryFormatOptions.BASIC_AUTH_USER_INFO;

    /** See {@link RegistryFormatOptions#BEARER_AUTH_CREDENTIALS_SOURCE}. */
    public static final ConfigOption<String> BEARER_AUTH_CREDENTIALS_SOURCE = RegistryFormatOptions.BEARER_AUTH_CREDENTIALS_SOURCE;

    /** See {@link RegistryFormatOptions#BEARER_AUTH_TOKEN}. */
    public static final ConfigOption<String> BEARER_AUTH_TOKEN = RegistryFormatOptions.BEARER_AUTH_TOKEN;

    /** See {@link RegistryFormatOptions#PROPERTIES}. */
    public static final ConfigOption<Map<String, String>> PROPERTIES = RegistryFormatOptions.PROPERTIES;

    /** Explicit Avro reader schema (JSON text); must match the table schema. */
    public static final ConfigOption<String> SCHEMA =
            RegistryFormatOptions.schema(
                    "The Avro schema used as reader schema. If absent, it is derived from the table "
                            + "schema the way Flink's avro-confluent format derives it. It must match the "
                            + "table schema.");

    /**
     * The registered schemas the writer {@link #SCHEMA} refers to (Confluent's schema references):
     * a JSON array of {@code {"name": ..., "subject": ..., "version": ...}}. Resolved recursively
     * when the encoder opens and registered with the schema. Not used when reading (the writer
     * schema's references come from the registry).
     */
    public static final ConfigOption<String> SCHEMA_REFERENCES =
            ConfigOptions.key("schema.references")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Schema references of the writer schema given in 'schema', as a JSON array of "
                                    + "{\"name\", \"subject\", \"version\"} objects; registered with it.");

    private AvroConfluentNativeFormatOptions() {}
}

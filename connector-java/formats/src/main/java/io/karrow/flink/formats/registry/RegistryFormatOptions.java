package io.karrow.flink.formats.registry;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.util.Map;
import java.util.Set;

/**
 * Options every Schema Registry format takes ({@code avro-confluent-native},
 * {@code json-confluent-native}): where the registry is, the subject to register under, and how to
 * reach it (TLS, authentication, client properties). Same keys, fallback keys and defaults as Flink's
 * {@code avro-confluent} format.
 */
public final class RegistryFormatOptions {

    /** Schema Registry URL (comma-separated list allowed); required. */
    public static final ConfigOption<String> URL =
            ConfigOptions.key("url")
                    .stringType()
                    .noDefaultValue()
                    .withFallbackKeys("schema-registry.url")
                    .withDescription("The URL of the Confluent Schema Registry to fetch/register schemas.");

    /** Subject used to register the writer schema; only meaningful for serialization. */
    public static final ConfigOption<String> SUBJECT =
            ConfigOptions.key("subject")
                    .stringType()
                    .noDefaultValue()
                    .withFallbackKeys("schema-registry.subject")
                    .withDescription(
                            "The Confluent Schema Registry subject under which to register the schema used by "
                                    + "this format during serialization. Not used when reading.");

    /** Location of the SSL keystore (client certificates). */
    public static final ConfigOption<String> SSL_KEYSTORE_LOCATION =
            ConfigOptions.key("ssl.keystore.location")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Location / File of SSL keystore");

    /** Password of the SSL keystore. */
    public static final ConfigOption<String> SSL_KEYSTORE_PASSWORD =
            ConfigOptions.key("ssl.keystore.password")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Password for SSL keystore");

    /** Location of the SSL truststore (JKS or PKCS12) holding the trusted CA certificates. */
    public static final ConfigOption<String> SSL_TRUSTSTORE_LOCATION =
            ConfigOptions.key("ssl.truststore.location")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Location / File of SSL truststore");

    /** Password of the SSL truststore. */
    public static final ConfigOption<String> SSL_TRUSTSTORE_PASSWORD =
            ConfigOptions.key("ssl.truststore.password")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Password for SSL truststore");

    /** Basic auth credentials source, e.g. {@code USER_INFO}. */
    public static final ConfigOption<String> BASIC_AUTH_CREDENTIALS_SOURCE =
            ConfigOptions.key("basic-auth.credentials-source")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Basic auth credentials source for Schema Registry");

    /** Basic auth user info, {@code user:password}. */
    public static final ConfigOption<String> BASIC_AUTH_USER_INFO =
            ConfigOptions.key("basic-auth.user-info")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Basic auth user info for schema registry");

    /** Bearer auth credentials source, e.g. {@code STATIC_TOKEN}. */
    public static final ConfigOption<String> BEARER_AUTH_CREDENTIALS_SOURCE =
            ConfigOptions.key("bearer-auth.credentials-source")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Bearer auth credentials source for Schema Registry");

    /** Bearer auth token. */
    public static final ConfigOption<String> BEARER_AUTH_TOKEN =
            ConfigOptions.key("bearer-auth.token")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Bearer auth token for Schema Registry");

    /** Extra registry-client properties; the named options above take precedence. */
    public static final ConfigOption<Map<String, String>> PROPERTIES =
            ConfigOptions.key("properties")
                    .mapType()
                    .noDefaultValue()
                    .withDescription(
                            "Properties map that is forwarded to the underlying Schema Registry client. "
                                    + "Options of this format have higher precedence.");

    /**
     * The optional options that say how to reach the registry (TLS, authentication, client
     * properties); every registry format ({@code avro-confluent-native}, {@code json-confluent-native})
     * accepts and forwards them, next to {@link #URL} and {@link #SUBJECT}.
     */
    public static final Set<ConfigOption<?>> REGISTRY_CONNECTION_OPTIONS = Set.of(
            PROPERTIES,
            SSL_KEYSTORE_LOCATION,
            SSL_KEYSTORE_PASSWORD,
            SSL_TRUSTSTORE_LOCATION,
            SSL_TRUSTSTORE_PASSWORD,
            BASIC_AUTH_CREDENTIALS_SOURCE,
            BASIC_AUTH_USER_INFO,
            BEARER_AUTH_CREDENTIALS_SOURCE,
            BEARER_AUTH_TOKEN);

    private RegistryFormatOptions() {}
}

package io.karrow.flink.formats.registry;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.time.Duration;
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
     * Timeout of one registry request (connect, send, answer), after which it counts as failed and
     * is retried (see {@link #MAX_RETRIES}). Karrow's own option; Flink's {@code avro-confluent} has
     * none (Confluent's client takes {@code http.*.timeout.ms} properties instead).
     */
    public static final ConfigOption<Duration> REQUEST_TIMEOUT =
            ConfigOptions.key("request-timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .withDescription("Timeout of one Schema Registry request (connect, send and answer); "
                            + "between 1 ms and 1 h.");

    /** Retries of a registry request after a connect error, a timeout or a 5xx answer. */
    public static final ConfigOption<Integer> MAX_RETRIES =
            ConfigOptions.key("max-retries")
                    .intType()
                    .defaultValue(3)
                    .withDescription("Retries of a Schema Registry request after a connect error, a timeout "
                            + "or a 5xx answer; between 0 and 100. A look-up fails after at most "
                            + "(max-retries + 1) x request-timeout plus the backoffs.");

    /** Delay before the first retry; doubled per retry up to {@link #RETRY_BACKOFF_MAX}. */
    public static final ConfigOption<Duration> RETRY_BACKOFF =
            ConfigOptions.key("retry-backoff")
                    .durationType()
                    .defaultValue(Duration.ofMillis(100))
                    .withDescription("Delay before the first retry of a Schema Registry request, doubled per "
                            + "retry up to 'retry-backoff-max'; between 0 and 10 min.");

    /** Longest delay between two retries. */
    public static final ConfigOption<Duration> RETRY_BACKOFF_MAX =
            ConfigOptions.key("retry-backoff-max")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(2))
                    .withDescription("Longest delay between two retries of a Schema Registry request; "
                            + "at least 'retry-backoff', at most 10 min.");

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
            BEARER_AUTH_TOKEN,
            REQUEST_TIMEOUT,
            MAX_RETRIES,
            RETRY_BACKOFF,
            RETRY_BACKOFF_MAX);


    /**
     * The {@code schema} option of a registry format (fallback key {@code schema-registry.schema},
     * as Flink's {@code avro-confluent}), with what the schema means to that format.
     */
    public static ConfigOption<String> schema(String description) {
        return ConfigOptions.key("schema")
                .stringType()
                .noDefaultValue()
                .withFallbackKeys("schema-registry.schema")
                .withDescription(description);
    }

    private RegistryFormatOptions() {}
}

package io.karrow.flink.formats.registry;

import static io.karrow.flink.formats.registry.RegistryFormatOptions.BASIC_AUTH_CREDENTIALS_SOURCE;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.BASIC_AUTH_USER_INFO;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.BEARER_AUTH_CREDENTIALS_SOURCE;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.BEARER_AUTH_TOKEN;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.MAX_RETRIES;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.PROPERTIES;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.REQUEST_TIMEOUT;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.RETRY_BACKOFF;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.RETRY_BACKOFF_MAX;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.SSL_KEYSTORE_LOCATION;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.SSL_TRUSTSTORE_LOCATION;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.SSL_TRUSTSTORE_PASSWORD;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.URL;

import io.karrow.flink.nativebridge.JsonText;
import io.karrow.flink.nativebridge.LogicalTypeJson;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The registry-related settings of one {@code avro-confluent-native} table, and their rendering as
 * the {@code configJson} of {@code docs/jni-contract.md}. {@code json-confluent-native} uses the same
 * settings (built by {@link #fromOptions}) for the {@code confluent} section of its configuration
 * ({@link #toRegistryJson()}).
 *
 * <p>Like Flink's format, a named option wins over the same setting given through {@code
 * properties} (e.g. {@code basic-auth.user-info} over {@code properties.basic.auth.user.info}). The
 * truststore is read when the JSON is built, i.e. on the task manager in {@code open()}.
 */
public final class RegistryDecoderConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String url;
    private final String schema;
    private final String basicAuthCredentialsSource;
    private final String basicAuthUserInfo;
    private final String bearerAuthCredentialsSource;
    private final String bearerAuthToken;
    private final String truststoreLocation;
    private final String truststorePassword;
    private final TreeMap<String, String> properties;
    /** The registry client's bounds: request timeout, retries and backoff (milliseconds). */
    private long requestTimeoutMs = REQUEST_TIMEOUT.defaultValue().toMillis();
    private int maxRetries = MAX_RETRIES.defaultValue();
    private long retryBackoffMs = RETRY_BACKOFF.defaultValue().toMillis();
    private long retryBackoffMaxMs = RETRY_BACKOFF_MAX.defaultValue().toMillis();

    /** Creates the settings; every argument but {@code url} and {@code properties} may be null. */
    public RegistryDecoderConfig(
            String url,
            String schema,
            String basicAuthCredentialsSource,
            String basicAuthUserInfo,
            String bearerAuthCredentialsSource,
            String bearerAuthToken,
            String truststoreLocation,
            String truststorePassword,
            Map<String, String> properties) {
        this.url = Objects.requireNonNull(url, "url");
        this.schema = schema;
        this.properties = new TreeMap<>(properties == null ? Map.of() : properties);
        this.basicAuthCredentialsSource = orProperty(basicAuthCredentialsSource, "basic.auth.credentials.source");
        this.basicAuthUserInfo = orProperty(basicAuthUserInfo, "basic.auth.user.info");
        this.bearerAuthCredentialsSource = orProperty(bearerAuthCredentialsSource, "bearer.auth.credentials.source");
        this.bearerAuthToken = orProperty(bearerAuthToken, "bearer.auth.token");
        this.truststoreLocation = orProperty(truststoreLocation, "schema.registry.ssl.truststore.location");
        this.truststorePassword = orProperty(truststorePassword, "schema.registry.ssl.truststore.password");
    }

    /**
     * Reads the registry settings from a registry format's (already validated) options: {@code url},
     * the basic / bearer authentication options, the truststore and {@code properties}.
     *
     * @param identifier the format identifier, for messages
     * @param formatOptions the format's options (prefix removed)
     * @param schema the format's schema text (reader or writer schema), or null
     * @param clientCertificateAlternative a format to suggest when client certificates are asked for,
     *     or null
     * @throws ValidationException if {@code ssl.keystore.location} (TLS client certificates, not
     *     supported natively yet) is set
     */
    public static RegistryDecoderConfig fromOptions(
            String identifier, ReadableConfig formatOptions, String schema, String clientCertificateAlternative) {
        if (formatOptions.getOptional(SSL_KEYSTORE_LOCATION).isPresent()) {
            throw new ValidationException("Option '" + SSL_KEYSTORE_LOCATION.key()
                    + "' (TLS client certificates) is not supported by '" + identifier + "' yet"
                    + (clientCertificateAlternative == null
                            ? "."
                            : "; use '" + clientCertificateAlternative
                                    + "' for registries that require client certificates."));
        }
        RegistryDecoderConfig config = new RegistryDecoderConfig(
                formatOptions.get(URL),
                schema,
                formatOptions.getOptional(BASIC_AUTH_CREDENTIALS_SOURCE).orElse(null),
                formatOptions.getOptional(BASIC_AUTH_USER_INFO).orElse(null),
                formatOptions.getOptional(BEARER_AUTH_CREDENTIALS_SOURCE).orElse(null),
                formatOptions.getOptional(BEARER_AUTH_TOKEN).orElse(null),
                formatOptions.getOptional(SSL_TRUSTSTORE_LOCATION).orElse(null),
                formatOptions.getOptional(SSL_TRUSTSTORE_PASSWORD).orElse(null),
                formatOptions.getOptional(PROPERTIES).orElse(Map.of()));
        config.requestTimeoutMs = millis(identifier, formatOptions, REQUEST_TIMEOUT, 1, MAX_REQUEST_TIMEOUT_MS);
        config.maxRetries = formatOptions.get(MAX_RETRIES);
        if (config.maxRetries < 0 || config.maxRetries > MAX_MAX_RETRIES) {
            throw new ValidationException("Option '" + MAX_RETRIES.key() + "' of '" + identifier
                    + "' must be between 0 and " + MAX_MAX_RETRIES + ", but is " + config.maxRetries + ".");
        }
        config.retryBackoffMs = millis(identifier, formatOptions, RETRY_BACKOFF, 0, MAX_BACKOFF_MS);
        config.retryBackoffMaxMs = millis(identifier, formatOptions, RETRY_BACKOFF_MAX, 0, MAX_BACKOFF_MS);
        if (config.retryBackoffMaxMs < config.retryBackoffMs) {
            throw new ValidationException("Option '" + RETRY_BACKOFF_MAX.key() + "' of '" + identifier + "' ("
                    + config.retryBackoffMaxMs + " ms) must not be shorter than '" + RETRY_BACKOFF.key() + "' ("
                    + config.retryBackoffMs + " ms).");
        }
        return config;
    }

    /** Longest accepted {@code request-timeout}: one hour. */
    static final long MAX_REQUEST_TIMEOUT_MS = Duration.ofHours(1).toMillis();
    /** Most accepted {@code max-retries}. */
    static final int MAX_MAX_RETRIES = 100;
    /** Longest accepted {@code retry-backoff} and {@code retry-backoff-max}: ten minutes. */
    static final long MAX_BACKOFF_MS = Duration.ofMinutes(10).toMillis();

    /** The duration option {@code option} in whole milliseconds, checked to lie in {@code [min, max]}. */
    private static long millis(
            String identifier, ReadableConfig formatOptions, ConfigOption<Duration> option,
            long min, long max) {
        Duration value = formatOptions.get(option);
        if (value.isNegative() || value.compareTo(Duration.ofMillis(max)) > 0 || value.toMillis() < min) {
            throw new ValidationException("Option '" + option.key() + "' of '" + identifier + "' must be between "
                    + Duration.ofMillis(min) + " and " + Duration.ofMillis(max) + ", but is " + value + ".");
        }
        return value.toMillis();
    }

    private String orProperty(String value, String propertyKey) {
        return value != null ? value : properties.get(propertyKey);
    }

    /** The registry URL(s). */
    public String getUrl() {
        return url;
    }

    /** The timeout of one registry request, in milliseconds ({@code request-timeout}). */
    public long getRequestTimeoutMs() {
        return requestTimeoutMs;
    }

    /** The retries of a failed registry request ({@code max-retries}). */
    public int getMaxRetries() {
        return maxRetries;
    }

    /** The delay before the first retry, in milliseconds ({@code retry-backoff}). */
    public long getRetryBackoffMs() {
        return retryBackoffMs;
    }

    /** The longest delay between two retries, in milliseconds ({@code retry-backoff-max}). */
    public long getRetryBackoffMaxMs() {
        return retryBackoffMaxMs;
    }

    /** The explicit reader schema, or null when it is derived from the row type. */
    public String getSchema() {
        return schema;
    }

    /**
     * Renders the contract's {@code configJson} for a decoder of {@code rowType}: the row type, then
     * the fields of {@link #toRegistryJson()}.
     *
     * @throws IOException if the configured truststore cannot be read
     */
    public String toConfigJson(RowType rowType) throws IOException {
        String registry = toRegistryJson();
        StringBuilder out = new StringBuilder(registry.length() + 256);
        out.append("{\"row_type\":");
        LogicalTypeJson.append(out, rowType);
        return out.append(',').append(registry, 1, registry.length()).toString();
    }

    /**
     * Renders the registry settings as one JSON object: {@code url}, {@code schema}, the
     * authentication fields, {@code ssl_ca_pem} (the truststore's certificates as PEM, read now) and
     * {@code properties}, as listed in {@code docs/jni-contract.md}.
     *
     * @throws IOException if the configured truststore cannot be read
     */
    public String toRegistryJson() throws IOException {
        String caPem = truststoreLocation == null ? null : TruststorePem.read(truststoreLocation, truststorePassword);
        StringBuilder out = new StringBuilder(256);
        out.append("{\"url\":");
        JsonText.appendString(out, url);
        field(out, "schema", schema);
        field(out, "basic_auth_credentials_source", basicAuthCredentialsSource);
        field(out, "basic_auth_user_info", basicAuthUserInfo);
        field(out, "bearer_auth_credentials_source", bearerAuthCredentialsSource);
        field(out, "bearer_auth_token", bearerAuthToken);
        field(out, "ssl_ca_pem", caPem);
        out.append(",\"request_timeout_ms\":").append(requestTimeoutMs);
        out.append(",\"max_retries\":").append(maxRetries);
        out.append(",\"retry_backoff_ms\":").append(retryBackoffMs);
        out.append(",\"retry_backoff_max_ms\":").append(retryBackoffMaxMs);
        out.append(",\"properties\":");
        JsonText.appendStringMap(out, properties);
        return out.append('}').toString();
    }

    private static void field(StringBuilder out, String name, String value) {
        out.append(",\"").append(name).append("\":");
        JsonText.appendString(out, value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RegistryDecoderConfig that
                && url.equals(that.url)
                && Objects.equals(schema, that.schema)
                && Objects.equals(basicAuthCredentialsSource, that.basicAuthCredentialsSource)
                && Objects.equals(basicAuthUserInfo, that.basicAuthUserInfo)
                && Objects.equals(bearerAuthCredentialsSource, that.bearerAuthCredentialsSource)
                && Objects.equals(bearerAuthToken, that.bearerAuthToken)
                && Objects.equals(truststoreLocation, that.truststoreLocation)
                && Objects.equals(truststorePassword, that.truststorePassword)
                && properties.equals(that.properties)
                && requestTimeoutMs == that.requestTimeoutMs
                && maxRetries == that.maxRetries
                && retryBackoffMs == that.retryBackoffMs
                && retryBackoffMaxMs == that.retryBackoffMaxMs;
    }

    @Override
    public int hashCode() {
        return Objects.hash(url, schema, basicAuthCredentialsSource, basicAuthUserInfo,
                bearerAuthCredentialsSource, bearerAuthToken, truststoreLocation, truststorePassword, properties,
                requestTimeoutMs, maxRetries, retryBackoffMs, retryBackoffMaxMs);
    }

    @Override
    public String toString() {
        return "RegistryDecoderConfig{url=" + url + ", schema=" + (schema == null ? "derived" : "explicit") + "}";
    }
}

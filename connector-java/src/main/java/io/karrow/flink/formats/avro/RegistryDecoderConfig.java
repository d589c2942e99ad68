package io.karrow.flink.formats.avro;

import io.karrow.flink.nativebridge.JsonText;
import io.karrow.flink.nativebridge.LogicalTypeJson;

import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.io.Serializable;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The registry-related settings of one {@code avro-confluent-native} table, and their rendering as
 * the {@code configJson} of {@code docs/jni-contract.md}.
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

    private String orProperty(String value, String propertyKey) {
        return value != null ? value : properties.get(propertyKey);
    }

    /** The registry URL(s). */
    public String getUrl() {
        return url;
    }

    /** The explicit reader schema, or null when it is derived from the row type. */
    public String getSchema() {
        return schema;
    }

    /**
     * Renders the contract's {@code configJson} for a decoder of {@code rowType}.
     *
     * @throws IOException if the configured truststore cannot be read
     */
    public String toConfigJson(RowType rowType) throws IOException {
        String caPem = truststoreLocation == null ? null : TruststorePem.read(truststoreLocation, truststorePassword);
        StringBuilder out = new StringBuilder(512);
        out.append("{\"row_type\":");
        LogicalTypeJson.append(out, rowType);
        field(out, "url", url);
        field(out, "schema", schema);
        field(out, "basic_auth_credentials_source", basicAuthCredentialsSource);
        field(out, "basic_auth_user_info", basicAuthUserInfo);
        field(out, "bearer_auth_credentials_source", bearerAuthCredentialsSource);
        field(out, "bearer_auth_token", bearerAuthToken);
        field(out, "ssl_ca_pem", caPem);
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
        if (this == o) {
            return true;
        }
        if (!(o instanceof RegistryDecoderConfig)) {
            return false;
        }
        RegistryDecoderConfig that = (RegistryDecoderConfig) o;
        return url.equals(that.url)
                && Objects.equals(schema, that.schema)
                && Objects.equals(basicAuthCredentialsSource, that.basicAuthCredentialsSource)
                && Objects.equals(basicAuthUserInfo, that.basicAuthUserInfo)
                && Objects.equals(bearerAuthCredentialsSource, that.bearerAuthCredentialsSource)
                && Objects.equals(bearerAuthToken, that.bearerAuthToken)
                && Objects.equals(truststoreLocation, that.truststoreLocation)
                && Objects.equals(truststorePassword, that.truststorePassword)
                && properties.equals(that.properties);
    }

    @Override
    public int hashCode() {
        return Objects.hash(url, schema, basicAuthCredentialsSource, basicAuthUserInfo,
                bearerAuthCredentialsSource, bearerAuthToken, truststoreLocation, truststorePassword, properties);
    }

    @Override
    public String toString() {
        return "RegistryDecoderConfig{url=" + url + ", schema=" + (schema == null ? "derived" : "explicit") + "}";
    }
}

package io.karrow.flink.connector.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import javax.net.ssl.TrustManagerFactory;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import javax.net.ssl.X509TrustManager;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What {@link NativeKafkaSecurity} lets the native client speak, and the configuration it passes. */
class NativeKafkaSecurityTest {

    private static final String PLAIN_JAAS =
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\"s3cr\\\"t\";";
    private static final String SCRAM_JAAS =
            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"bob\" password=\"pw\";";

    @Test
    void whatTheNativeClientSpeaksAndWhyNot() {
        Map<String, String> props = new HashMap<>();
        assertThat(NativeKafkaSecurity.unsupported(props)).isNull();
        props.put("security.protocol", "sasl_ssl");
        assertThat(NativeKafkaSecurity.unsupported(props)).contains("'sasl.mechanism' is 'GSSAPI'");
        props.put("sasl.mechanism", "SCRAM-SHA-256");
        props.put("sasl.jaas.config", SCRAM_JAAS);
        assertThat(NativeKafkaSecurity.unsupported(props)).isNull();
        props.put("sasl.mechanism", "PLAIN");
        assertThat(NativeKafkaSecurity.unsupported(props)).contains("PlainLoginModule");
        props.put("sasl.mechanism", "SCRAM-SHA-512");
        props.put("sasl.jaas.config", SCRAM_JAAS.replace(";", " tokenauth=\"true\";"));
        assertThat(NativeKafkaSecurity.unsupported(props)).contains("delegation token");
        props.put("sasl.jaas.config", SCRAM_JAAS);
        props.put("sasl.login.callback.handler.class", "com.example.Handler");
        assertThat(NativeKafkaSecurity.unsupported(props)).contains("sasl.login.callback.handler.class");
        props.remove("sasl.login.callback.handler.class");
        props.put("ssl.endpoint.identification.algorithm", "");
        assertThat(NativeKafkaSecurity.unsupported(props)).isNull();
        props.put("ssl.enabled.protocols", "TLSv1.1");
        assertThat(NativeKafkaSecurity.unsupported(props)).contains("TLSv1.2");
        props.put("ssl.enabled.protocols", "TLSv1.3");
        props.put("ssl.engine.factory.class", "com.example.Engine");
        assertThat(NativeKafkaSecurity.unsupported(props)).contains("ssl.engine.factory.class");
        props.remove("ssl.engine.factory.class");
        props.put("security.protocol", "SASL_PLAINTEXT");
        props.put("ssl.engine.factory.class", "com.example.Engine");
        assertThat(NativeKafkaSecurity.unsupported(props)).as("SSL settings of a plaintext protocol").isNull();
    }

    @Test
    void saslCredentialsComeFromTheJaasConfigurationAsKafkaParsesIt() {
        Properties props = new Properties();
        assertThat(NativeKafkaSecurity.configJson(props)).isEmpty();
        props.setProperty("security.protocol", "SASL_PLAINTEXT");
        props.setProperty("sasl.mechanism", "PLAIN");
        props.setProperty("sasl.jaas.config", PLAIN_JAAS);
        assertThat(NativeKafkaSecurity.configJson(props)).isEqualTo(
                ",\"security\":{\"sasl\":{\"mechanism\":\"PLAIN\",\"username\":\"alice\",\"password\":\"s3cr\\\"t\"}}");
        props.setProperty("sasl.mechanism", "OAUTHBEARER");
        assertThatThrownBy(() -> NativeKafkaSecurity.configJson(props)).hasMessageContaining("OAUTHBEARER");
        props.setProperty("sasl.mechanism", "PLAIN");
        props.setProperty("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required;");
        assertThatThrownBy(() -> NativeKafkaSecurity.configJson(props)).hasMessageContaining("username and password");
    }

    private static final String OAUTH_JAAS = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
            + " required unsecuredLoginStringClaim_sub=\"alice\" unsecuredLoginExtension_traceId=\"t42\";";

    @Test
    void anOAuthBearerTokenComesFromKafkasLoginWithItsCallbackHandler() throws Exception {
        Map<String, String> settings = new HashMap<>();
        settings.put("security.protocol", "SASL_PLAINTEXT");
        settings.put("sasl.mechanism", "OAUTHBEARER");
        settings.put("sasl.jaas.config", OAUTH_JAAS);
        assertThat(NativeKafkaSecurity.unsupported(settings)).isNull();
        // The login callback handler is the token's source: Kafka's login runs it natively too.
        settings.put("sasl.login.callback.handler.class",
                "org.apache.kafka.common.security.oauthbearer.internals.unsecured.OAuthBearerUnsecuredLoginCallbackHandler");
        assertThat(NativeKafkaSecurity.unsupported(settings)).isNull();
        settings.put("sasl.login.class", "com.example.Login");
        assertThat(NativeKafkaSecurity.unsupported(settings)).contains("sasl.login.class");
        settings.remove("sasl.login.class");
        settings.put("sasl.client.callback.handler.class", "com.example.Handler");
        assertThat(NativeKafkaSecurity.unsupported(settings)).contains("sasl.client.callback.handler.class");
        settings.remove("sasl.client.callback.handler.class");
        settings.put("sasl.jaas.config", SCRAM_JAAS);
        assertThat(NativeKafkaSecurity.unsupported(settings)).contains("OAuthBearerLoginModule");

        Properties props = new Properties();
        props.setProperty("security.protocol", "SASL_PLAINTEXT");
        props.setProperty("sasl.mechanism", "OAUTHBEARER");
        props.setProperty("sasl.jaas.config", OAUTH_JAAS);
        long before = System.currentTimeMillis();
        try (NativeOAuthBearerLogin login = NativeKafkaSecurity.oauthBearerLogin(props)) {
            assertThat(login).isNotNull();
            String json = NativeKafkaSecurity.configJson(props, login);
            JsonNode token = new ObjectMapper().readTree(json.substring(",\"security\":".length()))
                    .path("sasl").path("token");
            assertThat(json).startsWith(",\"security\":{\"sasl\":{\"mechanism\":\"OAUTHBEARER\",\"token\":{");
            // An unsecured JWS: header.claims. with an empty signature, sub alice.
            String[] parts = token.path("value").asText().split("\\.", -1);
            assertThat(parts).hasSize(3);
            assertThat(parts[2]).isEmpty();
            assertThat(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8))
                    .contains("\"sub\":\"alice\"");
            // Kafka's unsecured login: one hour.
            assertThat(token.path("lifetimeMs").asLong()).isGreaterThan(before + 3_000_000L);
            assertThat(token.path("extensions").path("traceId").asText()).isEqualTo("t42");
            // Handed over: nothing new until the login refreshes the token.
            List<String> handedOver = new ArrayList<>();
            login.handOverRefreshed(handedOver::add);
            assertThat(handedOver).isEmpty();
        }
        // Without a held login, one for this call only.
        assertThat(NativeKafkaSecurity.configJson(props)).contains("\"OAUTHBEARER\",\"token\":{\"value\":");
        props.setProperty("sasl.mechanism", "SCRAM-SHA-256");
        props.setProperty("sasl.jaas.config", SCRAM_JAAS);
        assertThat(NativeKafkaSecurity.oauthBearerLogin(props)).isNull();
    }

    @Test
    void withoutATruststoreTheJvmsDefaultTrustIsPassed() {
        Properties props = new Properties();
        props.setProperty("security.protocol", "SSL");
        String json = NativeKafkaSecurity.configJson(props);
        assertThat(json).startsWith(",\"security\":{\"tls\":{\"trustedCertificates\":[\"")
                .contains("\"verifyHostname\":true")
                .contains("\"protocols\":[\"TLSv1.2\",\"TLSv1.3\"]")
                .doesNotContain("clientKey");
        props.setProperty("ssl.endpoint.identification.algorithm", "");
        assertThat(NativeKafkaSecurity.configJson(props)).contains("\"verifyHostname\":false");
    }

    /**
     * A truststore whose only entry is a private key with the chain [leaf, CA]: Java's default trust
     * manager trusts the leaf alone (the first certificate of a key entry), and so must the native
     * client; the CA above it is not a trust anchor.
     */
    @Test
    void aKeyEntryOfTheTruststoreTrustsItsOwnCertificateOnlyAsJavaDoes() throws Exception {
        Path store = Paths.get(NativeKafkaSecurityTest.class.getResource("/security/key-entry-with-ca-chain.p12").toURI());
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, "changeit".toCharArray());
        }
        Certificate[] chain = ks.getCertificateChain("leaf");
        assertThat(chain).hasSize(2);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        X509Certificate[] javaTrusts = ((X509TrustManager) tmf.getTrustManagers()[0]).getAcceptedIssuers();
        assertThat(javaTrusts).as("what the JDK trusts").containsExactly((X509Certificate) chain[0]);

        Properties props = new Properties();
        props.setProperty("security.protocol", "SSL");
        props.setProperty("ssl.truststore.location", store.toString());
        props.setProperty("ssl.truststore.type", "PKCS12");
        props.setProperty("ssl.truststore.password", "changeit");
        assertThat(trustedCertificates(NativeKafkaSecurity.configJson(props)))
                .as("what the native client trusts").containsExactly(chain[0].getEncoded());
    }

    /** The DER certificates of the configuration's {@code trustedCertificates}. */
    private static List<byte[]> trustedCertificates(String json) {
        String marker = "\"trustedCertificates\":[";
        int start = json.indexOf(marker) + marker.length();
        String list = json.substring(start, json.indexOf(']', start));
        List<byte[]> out = new ArrayList<>();
        for (String quoted : list.split(",")) {
            out.add(Base64.getDecoder().decode(quoted.substring(1, quoted.length() - 1)));
        }
        return out;
    }

    /**
     * With a blank {@code sasl.jaas.config} Kafka's client takes the login module from the JVM-wide
     * JAAS configuration: planning reads it too, and keeps the Java client for a module the native
     * client does not speak, or when there is none to read.
     */
    @Test
    void aBlankJaasConfigIsDecidedByTheJvmWideJaasConfiguration() {
        Map<String, String> props = new HashMap<>();
        props.put("security.protocol", "SASL_PLAINTEXT");
        props.put("sasl.mechanism", "PLAIN");
        try {
            jvmWideJaas(null);
            assertThat(NativeKafkaSecurity.unsupported(props)).as("no KafkaClient section").contains("JAAS");
            jvmWideJaas("com.sun.security.auth.module.Krb5LoginModule");
            assertThat(NativeKafkaSecurity.unsupported(props)).contains("Krb5LoginModule");
            jvmWideJaas("org.apache.kafka.common.security.plain.PlainLoginModule");
            assertThat(NativeKafkaSecurity.unsupported(props)).isNull();
            props.put("sasl.mechanism", "SCRAM-SHA-256");
            assertThat(NativeKafkaSecurity.unsupported(props)).contains("ScramLoginModule");
        } finally {
            Configuration.setConfiguration(null);
        }
    }

    /** Makes the JVM-wide JAAS configuration's KafkaClient section {@code module} (null: none). */
    private static void jvmWideJaas(String module) {
        Configuration.setConfiguration(new Configuration() {
            @Override
            public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
                if (module == null || !name.equals("KafkaClient")) {
                    return null;
                }
                Map<String, String> options = new HashMap<>();
                options.put("username", "alice");
                options.put("password", "pw");
                return new AppConfigurationEntry[] {
                    new AppConfigurationEntry(module, AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, options)
                };
            }
        });
    }
}

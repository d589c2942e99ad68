package io.karrow.flink.connector.kafka;

import io.karrow.flink.nativebridge.JsonText;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.ssl.DefaultSslEngineFactory;

import javax.annotation.Nullable;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import javax.security.auth.login.AppConfigurationEntry;

import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * What the native Kafka client ({@code 'scan.fetch-mode' = 'native'}, {@code 'sink.produce-mode' =
 * 'native'}) does about {@code security.protocol}: TLS ({@code SSL}, {@code SASL_SSL}) and SASL PLAIN,
 * SCRAM-SHA-256/512 and OAUTHBEARER ({@code SASL_PLAINTEXT}, {@code SASL_SSL}) are spoken natively;
 * anything else (GSSAPI, custom login classes or client callback handlers, custom SSL engines, cipher
 * suite lists) keeps Kafka's Java client, decided when the table is planned ({@link #unsupported}).
 * OAUTHBEARER's token comes from Kafka's own login with the configured {@code
 * sasl.login.callback.handler.class} ({@link NativeOAuthBearerLogin}), refreshed as Kafka refreshes it.
 *
 * <p>The key and trust stores are read here with Kafka's own {@link DefaultSslEngineFactory} (so JKS,
 * PKCS12 and PEM stores, inline PEM certificates and keys, and their passwords work exactly as for
 * Kafka's Java client), and the credentials come from {@code sasl.jaas.config} through Kafka's {@link
 * JaasContext}: native code receives DER certificates, a PKCS#8 key and a user name and password
 * ({@link #configJson}), and reads no store format itself.
 */
public final class NativeKafkaSecurity {

    private static final Set<String> MECHANISMS = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER");
    private static final Set<String> TLS_VERSIONS = Set.of("TLSv1.2", "TLSv1.3");
    private static final String PLAIN_LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule";
    private static final String SCRAM_LOGIN_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule";
    private static final String OAUTHBEARER_LOGIN_MODULE =
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";

    private NativeKafkaSecurity() {}

    /**
     * Why the native client cannot connect with the Kafka client properties {@code props} (a table's
     * {@code properties.*} without the prefix), or null when it can. Reads no key or trust store; with
     * SASL and a blank {@code sasl.jaas.config} it reads the JVM-wide JAAS configuration, as Kafka's
     * client would.
     */
    @Nullable
    public static String unsupported(Map<String, String> props) {
        String protocol = protocol(props);
        switch (protocol) {
            case "PLAINTEXT":
                return null;
            case "SSL":
            case "SASL_PLAINTEXT":
            case "SASL_SSL":
                break;
            default:
                return "'security.protocol' is '" + protocol + "'";
        }
        boolean tls = protocol.endsWith("SSL");
        boolean sasl = protocol.startsWith("SASL_");
        if (tls) {
            for (String key : List.of(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG, SslConfigs.SSL_PROVIDER_CONFIG,
                    SslConfigs.SSL_CIPHER_SUITES_CONFIG, SslConfigs.SSL_SECURE_RANDOM_IMPLEMENTATION_CONFIG)) {
                if (!blank(props.get(key))) {
                    return "'" + key + "' is set (the native client uses rustls' own suites and engine)";
                }
            }
            String kmf = props.get(SslConfigs.SSL_KEYMANAGER_ALGORITHM_CONFIG);
            if (!blank(kmf) && !kmf.trim().equals(KeyManagerFactory.getDefaultAlgorithm())) {
                return "'" + SslConfigs.SSL_KEYMANAGER_ALGORITHM_CONFIG + "' is '" + kmf + "'";
            }
            String tmf = props.get(SslConfigs.SSL_TRUSTMANAGER_ALGORITHM_CONFIG);
            if (!blank(tmf) && !tmf.trim().equals(TrustManagerFactory.getDefaultAlgorithm())) {
                return "'" + SslConfigs.SSL_TRUSTMANAGER_ALGORITHM_CONFIG + "' is '" + tmf + "'";
            }
            String endpoint = props.get(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG);
            if (endpoint != null && !endpoint.trim().isEmpty() && !endpoint.trim().equalsIgnoreCase("https")) {
                return "'" + SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG + "' is '" + endpoint + "'";
            }
            if (tlsVersions(props.get(SslConfigs.SSL_ENABLED_PROTOCOLS_CONFIG)).isEmpty()) {
                return "'" + SslConfigs.SSL_ENABLED_PROTOCOLS_CONFIG + "' names neither TLSv1.2 nor TLSv1.3";
            }
        }
        if (sasl) {
            String mechanism = props.getOrDefault(SaslConfigs.SASL_MECHANISM, SaslConfigs.DEFAULT_SASL_MECHANISM).trim();
            if (!MECHANISMS.contains(mechanism)) {
                return "'sasl.mechanism' is '" + mechanism
                        + "' (natively: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER)";
            }
            // OAUTHBEARER's login callback handler is where its token comes from: Kafka's login runs it
            // for the native client too. Any other login or client callback class is Kafka's client's.
            List<String> refused = mechanism.equals(NativeOAuthBearerLogin.MECHANISM)
                    ? List.of(SaslConfigs.SASL_CLIENT_CALLBACK_HANDLER_CLASS, SaslConfigs.SASL_LOGIN_CLASS)
                    : List.of(SaslConfigs.SASL_CLIENT_CALLBACK_HANDLER_CLASS, SaslConfigs.SASL_LOGIN_CLASS,
                            SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS);
            for (String key : refused) {
                if (!blank(props.get(key))) {
                    return "'" + key + "' is set";
                }
            }
            // The login module comes from sasl.jaas.config or, when it is blank, from the JVM-wide
            // JAAS configuration (its KafkaClient section), as Kafka's client reads it. One that
            // cannot be read is no reason to go native: Kafka's client reports it in its own words.
            AppConfigurationEntry entry;
            try {
                entry = loginModule(jaasContext(props));
            } catch (RuntimeException e) {
                return "the JAAS configuration cannot be used (" + e.getMessage() + ")";
            }
            String why = loginModuleUnsupported(entry, mechanism);
            if (why != null) {
                return why;
            }
        }
        return null;
    }

    /**
     * The {@code "security"} member of the native fetch or produce configuration for the Kafka client
     * properties {@code props} ({@code docs/jni-contract.md}, "Kafka security"), with a leading comma,
     * or "" for {@code PLAINTEXT}. Reads the key and trust stores now (on the task manager, where
     * Kafka's Java client would read them).
     *
     * @throws IllegalArgumentException when {@link #unsupported} names a reason, or a store or the
     *     JAAS configuration cannot be read (with Kafka's message)
     */
    public static String configJson(Properties props) {
        return configJson(props, null);
    }

    /**
     * {@link #configJson(Properties)} with the OAUTHBEARER token of {@code login} (held by the caller,
     * which hands refreshed tokens over; see {@link #oauthBearerLogin}); with a null {@code login} an
     * OAUTHBEARER token comes from a login acquired for this call only.
     */
    public static String configJson(Properties props, @Nullable NativeOAuthBearerLogin login) {
        Map<String, String> strings = new HashMap<>();
        for (String name : props.stringPropertyNames()) {
            strings.put(name, props.getProperty(name));
        }
        String why = unsupported(strings);
        if (why != null) {
            throw new IllegalArgumentException("The native Kafka client cannot connect: " + why);
        }
        String protocol = protocol(strings);
        if (protocol.equals("PLAINTEXT")) {
            return "";
        }
        Map<String, Object> values = parsed(props);
        StringBuilder out = new StringBuilder(",\"security\":{");
        boolean first = true;
        if (protocol.endsWith("SSL")) {
            tlsJson(out, values, strings);
            first = false;
        }
        if (protocol.startsWith("SASL_")) {
            if (!first) {
                out.append(',');
            }
            saslJson(out, values, strings, login);
        }
        return out.append('}').toString();
    }

    /**
     * Kafka's OAUTHBEARER login for the client properties {@code props} when they authenticate with
     * OAUTHBEARER (the caller closes it), else null.
     *
     * @throws IllegalArgumentException when the login fails
     */
    @Nullable
    public static NativeOAuthBearerLogin oauthBearerLogin(Properties props) {
        Map<String, String> strings = new HashMap<>();
        for (String name : props.stringPropertyNames()) {
            strings.put(name, props.getProperty(name));
        }
        if (!protocol(strings).startsWith("SASL_") || !NativeOAuthBearerLogin.MECHANISM.equals(mechanism(strings))) {
            return null;
        }
        return NativeOAuthBearerLogin.acquire(parsed(props));
    }

    private static String mechanism(Map<String, String> props) {
        return props.getOrDefault(SaslConfigs.SASL_MECHANISM, SaslConfigs.DEFAULT_SASL_MECHANISM).trim();
    }

    private static void tlsJson(StringBuilder out, Map<String, Object> values, Map<String, String> props) {
        Map<String, Object> configs = new HashMap<>(values);
        // A client engine: the broker-side setting only keeps Kafka from logging its absence.
        configs.put("ssl.client.auth", "none");
        DefaultSslEngineFactory factory = new DefaultSslEngineFactory();
        try {
            factory.configure(configs);
            KeyStore truststore = factory.truststore();
            KeyStore keystore = factory.keystore();
            out.append("\"tls\":{\"trustedCertificates\":[");
            appendCertificates(out, truststore == null ? defaultTrust() : trusted(truststore));
            String endpoint = props.get(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG);
            boolean verify = endpoint == null || endpoint.trim().equalsIgnoreCase("https");
            out.append("],\"verifyHostname\":").append(verify);
            if (keystore != null) {
                appendClientKey(out, keystore, values);
            }
            out.append(",\"protocols\":[");
            List<String> versions = tlsVersions(props.get(SslConfigs.SSL_ENABLED_PROTOCOLS_CONFIG));
            for (int i = 0; i < versions.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                JsonText.appendString(out, versions.get(i));
            }
            out.append("]}");
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("Could not read the SSL key or trust store: " + e.getMessage(), e);
        } finally {
            factory.close();
        }
    }

    private static void appendClientKey(StringBuilder out, KeyStore keystore, Map<String, Object> values)
            throws GeneralSecurityException {
        List<char[]> passwords = new ArrayList<>();
        for (String key : List.of(SslConfigs.SSL_KEY_PASSWORD_CONFIG, SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG)) {
            Object password = values.get(key);
            if (password instanceof Password) {
                passwords.add(((Password) password).value().toCharArray());
            }
        }
        passwords.add(new char[0]);
        for (String alias : Collections.list(keystore.aliases())) {
            if (!keystore.isKeyEntry(alias)) {
                continue;
            }
            Key key = null;
            GeneralSecurityException last = null;
            for (char[] password : passwords) {
                try {
                    key = keystore.getKey(alias, password);
                    if (key != null) {
                        break;
                    }
                } catch (GeneralSecurityException e) {
                    last = e;
                }
            }
            if (!(key instanceof PrivateKey)) {
                throw last != null ? last
                        : new GeneralSecurityException("the key store entry '" + alias + "' holds no private key");
            }
            Certificate[] chain = keystore.getCertificateChain(alias);
            if (chain == null || chain.length == 0 || key.getEncoded() == null) {
                throw new GeneralSecurityException("the key store entry '" + alias + "' has no certificate chain");
            }
            out.append(",\"clientCertificateChain\":[");
            appendCertificates(out, List.of(chain));
            out.append("],\"clientKey\":");
            JsonText.appendString(out, Base64.getEncoder().encodeToString(key.getEncoded()));
            // Kafka's key manager picks the first entry matching the broker's request; stores with
            // one key (the usual case) are read alike.
            return;
        }
    }

    private static void saslJson(StringBuilder out, Map<String, Object> values, Map<String, String> props,
            @Nullable NativeOAuthBearerLogin login) {
        String mechanism = mechanism(props);
        AppConfigurationEntry entry = loginModule(JaasContext.loadClientContext(values));
        String why = loginModuleUnsupported(entry, mechanism);
        if (why != null) {
            throw new IllegalArgumentException("The native Kafka client cannot connect: " + why);
        }
        if (mechanism.equals(NativeOAuthBearerLogin.MECHANISM)) {
            out.append("\"sasl\":{\"mechanism\":\"OAUTHBEARER\",\"token\":");
            if (login != null) {
                out.append(login.tokenJson());
            } else {
                try (NativeOAuthBearerLogin once = NativeOAuthBearerLogin.acquire(values)) {
                    out.append(once.tokenJson());
                }
            }
            out.append('}');
            return;
        }
        Object username = entry.getOptions().get("username");
        Object password = entry.getOptions().get("password");
        if (!(username instanceof String) || !(password instanceof String)) {
            throw new IllegalArgumentException("The JAAS configuration of " + entry.getLoginModuleName()
                    + " needs the options username and password");
        }
        out.append("\"sasl\":{\"mechanism\":");
        JsonText.appendString(out, mechanism);
        out.append(",\"username\":");
        JsonText.appendString(out, (String) username);
        out.append(",\"password\":");
        JsonText.appendString(out, (String) password);
        out.append('}');
    }

    @Nullable
    private static String loginModuleUnsupported(AppConfigurationEntry entry, String mechanism) {
        String module = entry.getLoginModuleName();
        String expected = mechanism.equals("PLAIN") ? PLAIN_LOGIN_MODULE
                : mechanism.equals(NativeOAuthBearerLogin.MECHANISM) ? OAUTHBEARER_LOGIN_MODULE : SCRAM_LOGIN_MODULE;
        if (!module.equals(expected)) {
            return "the JAAS login module is " + module + " (natively: " + expected + " for " + mechanism + ")";
        }
        if ("true".equalsIgnoreCase(String.valueOf(entry.getOptions().get("tokenauth")))) {
            return "the SCRAM login uses a delegation token (tokenauth=true)";
        }
        return null;
    }

    private static AppConfigurationEntry loginModule(JaasContext context) {
        List<AppConfigurationEntry> entries = context.configurationEntries();
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("The JAAS configuration names no login module");
        }
        return entries.get(0);
    }

    /** The client JAAS context of {@code props}: its {@code sasl.jaas.config}, else the JVM-wide one. */
    private static JaasContext jaasContext(Map<String, String> props) {
        String jaas = props.get(SaslConfigs.SASL_JAAS_CONFIG);
        Map<String, Object> configs = new HashMap<>();
        if (!blank(jaas)) {
            configs.put(SaslConfigs.SASL_JAAS_CONFIG, new Password(jaas));
        }
        return JaasContext.loadClientContext(configs);
    }

    /** The client security settings as Kafka's own ConfigDef parses them (types, defaults). */
    private static Map<String, Object> parsed(Properties props) {
        ConfigDef def = new ConfigDef()
                .define(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, ConfigDef.Type.STRING,
                        CommonClientConfigs.DEFAULT_SECURITY_PROTOCOL, ConfigDef.Importance.MEDIUM, "")
                .withClientSslSupport()
                .withClientSaslSupport();
        Properties known = new Properties();
        for (String name : props.stringPropertyNames()) {
            if (def.names().contains(name)) {
                known.put(name, props.getProperty(name));
            }
        }
        return def.parse(known);
    }

    /**
     * The trust anchors of {@code store}, exactly as Java's default trust manager (the one Kafka's
     * client uses: {@code unsupported} refuses any other algorithm) takes them: every trusted
     * certificate entry and, of a private-key entry, its own certificate only (the first of its
     * chain; the issuers above it are not trusted).
     */
    private static List<Certificate> trusted(KeyStore store) throws GeneralSecurityException {
        List<Certificate> out = acceptedIssuers(store);
        if (out.isEmpty()) {
            throw new GeneralSecurityException("the SSL truststore holds no certificate");
        }
        return out;
    }

    /** The JVM's default trust (what Kafka's client trusts without a truststore). */
    private static List<Certificate> defaultTrust() throws GeneralSecurityException {
        return acceptedIssuers(null);
    }

    /** What the default trust manager built from {@code store} (null: the JVM's) trusts. */
    private static List<Certificate> acceptedIssuers(@Nullable KeyStore store) throws GeneralSecurityException {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        Set<Certificate> out = new LinkedHashSet<>();
        for (TrustManager tm : tmf.getTrustManagers()) {
            if (tm instanceof X509TrustManager) {
                Collections.addAll(out, ((X509TrustManager) tm).getAcceptedIssuers());
            }
        }
        return new ArrayList<>(out);
    }

    private static void appendCertificates(StringBuilder out, List<Certificate> certificates)
            throws GeneralSecurityException {
        for (int i = 0; i < certificates.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            JsonText.appendString(out, Base64.getEncoder().encodeToString(certificates.get(i).getEncoded()));
        }
    }

    private static List<String> tlsVersions(@Nullable String enabled) {
        String list = blank(enabled) ? SslConfigs.DEFAULT_SSL_ENABLED_PROTOCOLS : enabled;
        List<String> out = new ArrayList<>();
        for (String p : list.split(",")) {
            if (TLS_VERSIONS.contains(p.trim())) {
                out.add(p.trim());
            }
        }
        return out;
    }

    private static String protocol(Map<String, String> props) {
        return props.getOrDefault(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "PLAINTEXT")
                .trim()
                .toUpperCase(Locale.ROOT);
    }

    private static boolean blank(@Nullable String s) {
        return s == null || s.trim().isEmpty();
    }
}

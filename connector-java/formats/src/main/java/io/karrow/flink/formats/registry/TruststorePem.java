package io.karrow.flink.formats.registry;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Converts a Java truststore (JKS or PKCS12, detected from the file) into the PEM text of its
 * certificates, which native code uses as trusted CAs for the registry's TLS.
 */
final class TruststorePem {

    private TruststorePem() {}

    /**
     * Reads every certificate of the truststore at {@code location}.
     *
     * @param password the store password, or null for none
     * @return PEM text, one {@code CERTIFICATE} block per distinct certificate
     * @throws IOException if the file cannot be read or holds no certificate
     */
    static String read(String location, String password) throws IOException {
        Path path = Path.of(location);
        char[] pass = password == null ? null : password.toCharArray();
        KeyStore store = load(path, pass);
        Set<Certificate> certificates = new LinkedHashSet<>();
        try {
            for (String alias : Collections.list(store.aliases())) {
                if (store.isCertificateEntry(alias)) {
                    certificates.add(store.getCertificate(alias));
                } else {
                    Certificate[] chain = store.getCertificateChain(alias);
                    if (chain != null) {
                        Collections.addAll(certificates, chain);
                    }
                }
            }
            if (certificates.isEmpty()) {
                throw new IOException("The SSL truststore " + location + " contains no certificate");
            }
            Base64.Encoder base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
            StringBuilder pem = new StringBuilder();
            for (Certificate certificate : certificates) {
                pem.append("-----BEGIN CERTIFICATE-----\n")
                        .append(base64.encodeToString(certificate.getEncoded()))
                        .append("\n-----END CERTIFICATE-----\n");
            }
            return pem.toString();
        } catch (GeneralSecurityException e) {
            throw new IOException("Could not read the SSL truststore " + location + ": " + e.getMessage(), e);
        }
    }

    private static KeyStore load(Path path, char[] password) throws IOException {
        if (!Files.isRegularFile(path)) {
            throw new IOException("The SSL truststore " + path + " does not exist");
        }
        try {
            return KeyStore.getInstance(path.toFile(), password);
        } catch (GeneralSecurityException | IOException first) {
            // Fall back to explicit types (e.g. a JKS file that auto-detection could not read).
            for (String type : new String[] {"PKCS12", "JKS"}) {
                try (InputStream in = Files.newInputStream(path)) {
                    KeyStore store = KeyStore.getInstance(type);
                    store.load(in, password);
                    return store;
                } catch (GeneralSecurityException | IOException ignored) {
                    // try the next type
                }
            }
            throw new IOException(
                    "Could not load the SSL truststore " + path + " as JKS or PKCS12: " + first.getMessage(), first);
        }
    }
}

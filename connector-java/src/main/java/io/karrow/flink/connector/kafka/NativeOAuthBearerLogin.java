package io.karrow.flink.connector.kafka;

import io.karrow.flink.nativebridge.JsonText;

import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.auth.SaslExtensions;
import org.apache.kafka.common.security.authenticator.LoginManager;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerRefreshingLogin;

import javax.annotation.Nullable;
import javax.security.auth.Subject;
import javax.security.auth.login.LoginException;

import java.io.IOException;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Kafka's own OAUTHBEARER login, run for the native client: the login Kafka's Java client runs for
 * {@code sasl.mechanism=OAUTHBEARER} ({@link LoginManager} with {@link OAuthBearerRefreshingLogin},
 * which asks the configured {@code sasl.login.callback.handler.class} — by default Kafka's unsecured
 * one — for a token and refreshes it in the background before it expires, as {@code
 * sasl.login.refresh.*} say). The native side never fetches a token itself: it gets the current one
 * when the session opens ({@link #tokenJson}) and every refreshed one afterwards ({@link
 * #handOverRefreshed}, called before each fetch and each producer poll), and takes the newest when a
 * connection authenticates or re-authenticates (KIP-368).
 *
 * <p>The token is picked from the login's subject exactly as Kafka's {@code
 * OAuthBearerSaslClientCallbackHandler} picks it (the one expiring last), with the SASL extensions of
 * its public credentials.
 */
public final class NativeOAuthBearerLogin implements AutoCloseable {

    /** The mechanism name. */
    public static final String MECHANISM = "OAUTHBEARER";

    private final LoginManager manager;
    @Nullable
    private String handedOver;
    private boolean closed;

    private NativeOAuthBearerLogin(LoginManager manager) {
        this.manager = manager;
    }

    /**
     * Logs in as Kafka's client would with the parsed client settings {@code configs} (its {@code
     * sasl.jaas.config}, else the JVM-wide JAAS configuration; {@code sasl.login.*}).
     *
     * @throws IllegalArgumentException when the login fails (with Kafka's message)
     */
    static NativeOAuthBearerLogin acquire(Map<String, Object> configs) {
        JaasContext context = JaasContext.loadClientContext(configs);
        try {
            return new NativeOAuthBearerLogin(
                    LoginManager.acquireLoginManager(context, MECHANISM, OAuthBearerRefreshingLogin.class, configs));
        } catch (LoginException e) {
            throw new IllegalArgumentException("The OAUTHBEARER login failed: " + e.getMessage(), e);
        }
    }

    /**
     * The current token as the native side reads it ({@code {"value", "lifetimeMs", "extensions"}}),
     * remembered as handed over.
     */
    public synchronized String tokenJson() {
        Subject subject = manager.subject();
        OAuthBearerToken token = newest(subject);
        handedOver = token.value();
        StringBuilder out = new StringBuilder("{\"value\":");
        JsonText.appendString(out, token.value());
        out.append(",\"lifetimeMs\":").append(token.lifetimeMs()).append(",\"extensions\":{");
        Set<SaslExtensions> extensions = subject.getPublicCredentials(SaslExtensions.class);
        if (!extensions.isEmpty()) {
            boolean first = true;
            for (Map.Entry<String, String> e : new TreeMap<>(extensions.iterator().next().map()).entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                JsonText.appendString(out, e.getKey());
                out.append(':');
                JsonText.appendString(out, e.getValue());
            }
        }
        return out.append("}}").toString();
    }

    /** What takes a refreshed token: a native session's {@code setToken}. */
    @FunctionalInterface
    public interface TokenReceiver {
        /** Takes the token as {@link #tokenJson} writes it. */
        void setToken(String tokenJson) throws IOException;
    }

    /**
     * Hands the current token ({@link #tokenJson}) to {@code receiver} when the login refreshed it
     * since it was last handed over; it counts as handed over only once {@code receiver} returned,
     * so a refused or failed hand-over is tried again on the next call.
     *
     * @throws IOException what {@code receiver} threw, or when the login holds no token
     */
    public synchronized void handOverRefreshed(TokenReceiver receiver) throws IOException {
        if (closed) {
            return;
        }
        OAuthBearerToken token;
        try {
            token = newest(manager.subject());
        } catch (IllegalStateException e) {
            throw new IOException("The OAUTHBEARER login holds no token: " + e.getMessage(), e);
        }
        if (token.value().equals(handedOver)) {
            return;
        }
        String previous = handedOver;
        String json = tokenJson();
        try {
            receiver.setToken(json);
        } catch (IOException | RuntimeException e) {
            handedOver = previous;
            throw e;
        }
    }

    private static OAuthBearerToken newest(Subject subject) {
        Set<OAuthBearerToken> tokens = subject.getPrivateCredentials(OAuthBearerToken.class);
        return tokens.stream()
                .max(Comparator.comparingLong(OAuthBearerToken::lifetimeMs))
                .orElseThrow(() -> new IllegalStateException(
                        "No OAuth Bearer tokens in Subject's private credentials (the "
                                + SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS + " gave none)"));
    }

    /** Releases the login (Kafka's login manager stops refreshing once nobody holds it). */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            manager.release();
        }
    }
}

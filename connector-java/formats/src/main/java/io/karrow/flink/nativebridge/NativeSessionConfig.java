package io.karrow.flink.nativebridge;

import javax.annotation.Nullable;

import java.util.Objects;

/**
 * What {@link KarrowNative#open} takes to open a session: its kind, its JSON configuration and the
 * kind's bytes. Lets a format say how its decoder is configured without opening it, so another
 * session can own a decoder of it (the fused {@code kafka-native} source's operator session).
 */
public final class NativeSessionConfig {

    private final SessionKind kind;
    private final String configJson;
    private final @Nullable byte[] bytes;

    /** A session configuration; {@code bytes} is null unless the kind takes some. */
    public NativeSessionConfig(SessionKind kind, String configJson, @Nullable byte[] bytes) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.configJson = Objects.requireNonNull(configJson, "configJson");
        this.bytes = bytes;
    }

    /** The kind of session. */
    public SessionKind kind() {
        return kind;
    }

    /** Its JSON configuration ({@code docs/jni-contract.md}). */
    public String configJson() {
        return configJson;
    }

    /** The kind's bytes (a Protobuf descriptor set), or null. */
    public @Nullable byte[] bytes() {
        return bytes;
    }

    /** Opens the session. */
    public NativeHandle open() throws KarrowNativeException {
        return NativeHandle.open(kind, configJson, bytes);
    }
}

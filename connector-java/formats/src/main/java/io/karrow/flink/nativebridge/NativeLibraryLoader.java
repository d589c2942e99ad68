package io.karrow.flink.nativebridge;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads {@code libkarrow_native.so} once per classloader.
 *
 * <p>A JNI library binds to the classloader that loaded it, and Flink gives each job its own
 * user-code classloader; loading the same file path from a second classloader fails. So, unless the
 * system property {@value #LIBRARY_PROPERTY} names an absolute path (which wins, and is meant for
 * tests and for a connector installed in Flink's {@code lib/}), the library bundled in the jar at
 * {@value #RESOURCE} is extracted to a temporary file unique to this classloader and loaded from
 * there.
 */
public final class NativeLibraryLoader {

    /** System property holding an absolute path to the library; overrides the bundled copy. */
    public static final String LIBRARY_PROPERTY = "karrow.native.library";

    /** Where the jar carries the Linux x86-64 build of the library. */
    public static final String RESOURCE = "/native/linux-x86_64/libkarrow_native.so";

    private static final Object LOCK = new Object();
    private static volatile boolean loaded;
    private static Throwable failure;

    private NativeLibraryLoader() {}

    /**
     * Loads the library if this classloader has not loaded it yet.
     *
     * @throws UnsatisfiedLinkError if the platform is unsupported or the library cannot be loaded;
     *     a failure is remembered and rethrown on later calls
     */
    public static void load() {
        if (loaded) {
            return;
        }
        synchronized (LOCK) {
            if (loaded) {
                return;
            }
            if (failure != null) {
                throw linkError("karrow native library failed to load earlier: " + failure.getMessage(), failure);
            }
            try {
                doLoad();
                loaded = true;
            } catch (Throwable t) {
                failure = t;
                if (t instanceof UnsatisfiedLinkError) {
                    throw (UnsatisfiedLinkError) t;
                }
                throw linkError("Could not load the karrow native library: " + t.getMessage(), t);
            }
        }
    }

    /** Whether {@link #load()} has succeeded in this classloader. */
    public static boolean isLoaded() {
        return loaded;
    }

    private static void doLoad() throws IOException {
        String override = System.getProperty(LIBRARY_PROPERTY);
        if (override != null && !override.isBlank()) {
            Path path = Path.of(override);
            if (!path.isAbsolute()) {
                throw new UnsatisfiedLinkError(
                        "System property " + LIBRARY_PROPERTY + " must be an absolute path, got: " + override);
            }
            if (!Files.isRegularFile(path)) {
                throw new UnsatisfiedLinkError(
                        "System property " + LIBRARY_PROPERTY + " points to a missing file: " + override
                                + " (build it with `cargo build --release -p karrow-native`)");
            }
            System.load(path.toString());
            return;
        }
        checkPlatform();
        try (InputStream in = NativeLibraryLoader.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new UnsatisfiedLinkError(
                        "The karrow connector jar does not contain " + RESOURCE
                                + "; it was built without the native library. Rebuild it after "
                                + "`cargo build --release -p karrow-native`, or set -D"
                                + LIBRARY_PROPERTY + "=/absolute/path/libkarrow_native.so");
            }
            Path file = Files.createTempFile("libkarrow_native-", ".so");
            file.toFile().deleteOnExit();
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            System.load(file.toAbsolutePath().toString());
        }
    }

    private static void checkPlatform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        boolean linux = os.startsWith("linux");
        boolean x8664 = arch.equals("amd64") || arch.equals("x86_64");
        if (!linux || !x8664) {
            throw new UnsatisfiedLinkError(
                    "karrow ships a native library for linux x86-64 only; this JVM runs on "
                            + os + "/" + arch + ". Set -D" + LIBRARY_PROPERTY
                            + "=/absolute/path/to/a/library built for this platform.");
        }
    }

    private static UnsatisfiedLinkError linkError(String message, Throwable cause) {
        UnsatisfiedLinkError error = new UnsatisfiedLinkError(message);
        error.initCause(cause);
        return error;
    }
}

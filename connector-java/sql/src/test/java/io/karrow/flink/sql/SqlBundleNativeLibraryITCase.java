package io.karrow.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.nativebridge.NativeLibraryLoader;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;

/**
 * The sql bundle packs the native library this build made ({@code karrow.native.library}), once: a
 * copy left in another module's {@code target/classes} by an older layout (connector-java packed the
 * library before the formats module did) must not shadow it, or a cluster runs an old library.
 */
class SqlBundleNativeLibraryITCase {

    @Test
    void theBundledLibraryIsTheOneThisBuildMade() throws Exception {
        List<URL> copies = Collections.list(
                NativeLibraryLoader.class.getClassLoader().getResources(NativeLibraryLoader.RESOURCE.substring(1)));
        assertThat(copies).as("copies of the native library on the class path").hasSize(1);
        assertThat(copies.get(0).toString()).as("where it is packed").contains("karrow-sql-connector-kafka");
        byte[] bundled;
        try (InputStream in = copies.get(0).openStream()) {
            bundled = in.readAllBytes();
        }
        byte[] built = Files.readAllBytes(Path.of(System.getProperty("karrow.native.library")));
        assertThat(sha256(bundled)).as("the bundled library's SHA-256").isEqualTo(sha256(built));
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}

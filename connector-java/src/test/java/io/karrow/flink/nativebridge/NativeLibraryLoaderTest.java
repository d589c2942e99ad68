package io.karrow.flink.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The bundled library is extracted once per classloader, so two classloaders (two Flink jobs) can
 * both load and call it. Needs {@code target/classes/native/linux-x86_64/libkarrow_native.so}
 * (copied there by the build from {@code -Dkarrow.native.library}).
 */
class NativeLibraryLoaderTest {

    @Test
    void twoClassloadersLoadTheBundledLibrary() throws Exception {
        URL classes = NativeLibraryLoader.class.getProtectionDomain().getCodeSource().getLocation();
        assertThat(Files.isRegularFile(Path.of(classes.toURI()).resolve("native/linux-x86_64/libkarrow_native.so")))
                .as("native library bundled into target/classes").isTrue();
        String saved = System.clearProperty(NativeLibraryLoader.LIBRARY_PROPERTY);
        try {
            for (int i = 0; i < 2; i++) {
                try (URLClassLoader loader = new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader())) {
                    Class<?> loaderClass = loader.loadClass(NativeLibraryLoader.class.getName());
                    loaderClass.getMethod("load").invoke(null);
                    Class<?> nativeClass = loader.loadClass(KarrowNative.class.getName());
                    Method close = nativeClass.getMethod("close", long.class);
                    close.invoke(null, 0L); // bound in this classloader; closing 0 is a no-op
                    assertThat(loaderClass.getMethod("isLoaded").invoke(null)).isEqualTo(true);
                }
            }
        } finally {
            if (saved != null) {
                System.setProperty(NativeLibraryLoader.LIBRARY_PROPERTY, saved);
            }
        }
    }
}

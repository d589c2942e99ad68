package io.karrow.flink.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;

/**
 * The bundled library is extracted once per classloader, so two classloaders (two Flink jobs) can
 * both load and call it. Needs the library in karrow-formats' classes or jar ({@link
 * NativeLibraryLoader#RESOURCE}, copied there by the build from {@code -Dkarrow.native.library}).
 */
class NativeLibraryLoaderTest {

    @Test
    void twoClassloadersLoadTheBundledLibrary() throws Exception {
        URL classes = NativeLibraryLoader.class.getProtectionDomain().getCodeSource().getLocation();
        assertThat(NativeLibraryLoader.class.getResource(NativeLibraryLoader.RESOURCE))
                .as("native library bundled next to the classes (" + classes + ")").isNotNull();
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

package io.karrow.flink.planner;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.security.ProtectionDomain;
import java.util.Enumeration;

/**
 * Defines karrow's planner-linked classes (package {@value #RULES_PACKAGE}) next to the planner
 * that plans the statement.
 *
 * <p>Those classes extend Calcite and planner classes, which only the planner's class loader sees
 * (with {@code flink-table-planner-loader} it is an isolated component loader; with the plain
 * planner jar in {@code lib/} it is the lib/ loader). They are packaged as resources under
 * {@value #RESOURCE_ROOT} inside karrow's jar, so karrow's own loader never defines them. This
 * loader:
 * <ul>
 *   <li>defines {@code io.karrow.flink.planner.rules.*} from those resources;
 *   <li>delegates every other {@code io.karrow.*} class to karrow's loader, so the rules and the
 *       connector share one copy of karrow's classes;
 *   <li>delegates everything else to the planner's loader, then to karrow's (a Kafka connector in a
 *       job jar is visible only to the latter).
 * </ul>
 * Nothing it defines may reach a job graph: operators and sources are karrow's ordinary classes.
 */
final class PlannerRulesClassLoader extends ClassLoader {

    /** The package of the planner-linked classes. */
    static final String RULES_PACKAGE = "io.karrow.flink.planner.rules";

    /** Where the compiled planner-linked classes are inside karrow's jar. */
    static final String RESOURCE_ROOT = "karrow-planner-rules/";

    static {
        registerAsParallelCapable();
    }

    private final ClassLoader plannerLoader;
    private final ClassLoader karrowLoader;
    private final ProtectionDomain karrowDomain;

    PlannerRulesClassLoader(ClassLoader plannerLoader, ClassLoader karrowLoader) {
        super("karrow-planner-rules", null);
        this.plannerLoader = plannerLoader;
        this.karrowLoader = karrowLoader;
        this.karrowDomain = PlannerRulesClassLoader.class.getProtectionDomain();
    }

    /** The planner's class loader this one links against. */
    ClassLoader plannerLoader() {
        return plannerLoader;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                if (name.startsWith(RULES_PACKAGE + ".")) {
                    c = defineRulesClass(name);
                } else if (name.startsWith("io.karrow.")) {
                    c = karrowLoader.loadClass(name);
                } else {
                    try {
                        c = plannerLoader.loadClass(name);
                    } catch (ClassNotFoundException notInPlanner) {
                        c = karrowLoader.loadClass(name);
                    }
                }
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    private Class<?> defineRulesClass(String name) throws ClassNotFoundException {
        String resource = RESOURCE_ROOT + name.replace('.', '/') + ".class";
        byte[] bytes;
        try (InputStream in = karrowLoader.getResourceAsStream(resource)) {
            if (in == null) {
                throw new ClassNotFoundException(name + " (karrow's jar has no " + resource + ")");
            }
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read " + resource + " from karrow's jar", e);
        }
        return defineClass(name, bytes, 0, bytes.length, karrowDomain);
    }

    @Override
    public URL getResource(String name) {
        URL url = plannerLoader.getResource(name);
        return url != null ? url : karrowLoader.getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        return plannerLoader.getResources(name);
    }
}

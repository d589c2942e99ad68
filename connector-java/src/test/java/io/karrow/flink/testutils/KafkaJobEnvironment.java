package io.karrow.flink.testutils;

import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * What an ITCase that runs Flink jobs against the test broker needs, as one extension for a
 * static {@code @RegisterExtension} field: before the class's tests the broker must answer
 * ({@link KafkaTestSupport#requireBroker()}: a missing broker fails, never skips), then a
 * MiniCluster of one TaskManager that reports to {@link CollectedMetrics} ({@link
 * KafkaTestSupport#miniClusterWithMetrics(int)}) starts and, with {@link #withRegistry(int)}, the
 * dev registry ({@link DevRegistry#perClass()}); both are stopped after the tests. The
 * MiniCluster's parameters ({@code @InjectMiniCluster} and the like) resolve as with a {@link
 * MiniClusterExtension} of its own.
 */
public final class KafkaJobEnvironment
        implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback, ParameterResolver {

    private final MiniClusterExtension miniCluster;
    private final DevRegistry registry;

    private KafkaJobEnvironment(int slots, DevRegistry registry) {
        this.miniCluster = KafkaTestSupport.miniClusterWithMetrics(slots);
        this.registry = registry;
    }

    /** The broker check and a MiniCluster with {@code slots} slots. */
    public static KafkaJobEnvironment withoutRegistry(int slots) {
        return new KafkaJobEnvironment(slots, null);
    }

    /** The broker check, a MiniCluster with {@code slots} slots and the dev registry. */
    public static KafkaJobEnvironment withRegistry(int slots) {
        return new KafkaJobEnvironment(slots, DevRegistry.perClass());
    }

    /** The dev registry of {@link #withRegistry(int)}, started once the class's tests begin. */
    public DevRegistry registry() {
        if (registry == null) {
            throw new IllegalStateException("this environment has no registry (use withRegistry)");
        }
        return registry;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        KafkaTestSupport.requireBroker();
        miniCluster.beforeAll(context);
        if (registry != null) {
            registry.beforeAll(context);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        miniCluster.beforeEach(context);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        miniCluster.afterEach(context);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            if (registry != null) {
                registry.afterAll(context);
            }
        } finally {
            miniCluster.afterAll(context);
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context)
            throws ParameterResolutionException {
        return miniCluster.supportsParameter(parameter, context);
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context)
            throws ParameterResolutionException {
        return miniCluster.resolveParameter(parameter, context);
    }
}

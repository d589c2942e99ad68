package io.karrow.flink.testutils;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;

/**
 * The initialization context a task would pass a format's schema outside a job (unregistered
 * metrics, the test's class loader), for both directions.
 */
public final class TestInitContext
        implements DeserializationSchema.InitializationContext, SerializationSchema.InitializationContext {

    /** The one instance (it holds no state). */
    public static final TestInitContext INSTANCE = new TestInitContext();

    private TestInitContext() {}

    @Override
    public MetricGroup getMetricGroup() {
        return new UnregisteredMetricsGroup();
    }

    @Override
    public UserCodeClassLoader getUserCodeClassLoader() {
        return SimpleUserCodeClassLoader.create(Thread.currentThread().getContextClassLoader());
    }
}

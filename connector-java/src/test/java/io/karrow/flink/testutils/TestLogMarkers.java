package io.karrow.flink.testutils;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes where each test starts and ends (and whether it failed) into the test log, so that a
 * failed run's {@code target/test-logs/tests.log} can be cut to the failing test's own lines
 * ({@code tests/print-test-failures.sh}). Registered for every test through JUnit's extension
 * auto-detection ({@code junit-platform.properties}).
 */
public final class TestLogMarkers implements BeforeEachCallback, AfterEachCallback {

    private static final Logger LOG = LoggerFactory.getLogger(TestLogMarkers.class);

    @Override
    public void beforeEach(ExtensionContext context) {
        LOG.info("test started: {}", name(context));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (context.getExecutionException().isPresent()) {
            LOG.info("test ended: {} (failed)", name(context), context.getExecutionException().get());
        } else {
            LOG.info("test ended: {}", name(context));
        }
    }

    private static String name(ExtensionContext context) {
        return context.getRequiredTestClass().getSimpleName() + "." + context.getRequiredTestMethod().getName();
    }
}

package io.karrow.flink.planner;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The one place karrow's planner reports what it replaced and what it left to Flink: one log line
 * per decision (INFO), and the same decision to any registered {@link Listener} (tests assert with
 * it that the native path engaged, and that a decline happened for the reason they expect).
 */
public final class FusionDecisions {

    private static final Logger LOG = LoggerFactory.getLogger(FusionDecisions.class);

    private static final List<Listener> LISTENERS = new CopyOnWriteArrayList<>();

    /** Receives every planning decision of this JVM. */
    public interface Listener {
        /** {@code segment} (e.g. "Calc over kafka-native scan of `cat`.`db`.`bids`") now runs natively. */
        void fused(String segment, String detail);

        /** {@code segment} stays Flink's, because of {@code reason}. */
        void declined(String segment, String reason);
    }

    private FusionDecisions() {}

    /** Registers a listener. */
    public static void addListener(Listener listener) {
        LISTENERS.add(listener);
    }

    /** Unregisters a listener. */
    public static void removeListener(Listener listener) {
        LISTENERS.remove(listener);
    }

    /** Reports a replaced segment. */
    public static void fused(String segment, String detail) {
        LOG.info("karrow operator core: {} runs natively: {}", segment, detail);
        for (Listener l : LISTENERS) {
            l.fused(segment, detail);
        }
    }

    /** Reports a segment left to Flink, with the reason. */
    public static void declined(String segment, String reason) {
        LOG.info("karrow operator core: {} stays Flink's: {}", segment, reason);
        for (Listener l : LISTENERS) {
            l.declined(segment, reason);
        }
    }
}

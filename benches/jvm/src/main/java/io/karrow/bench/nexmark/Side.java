package io.karrow.bench.nexmark;

import java.util.Locale;

/** The two ways every query runs: stock Flink, and karrow. */
enum Side {
    /** Flink's {@code kafka} / {@code upsert-kafka} connectors and stock formats. */
    STOCK,
    /** {@code kafka-native} (native fetch) with karrow's native formats; {@code upsert-kafka} with them for updating queries. */
    KARROW;

    String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}

package io.karrow.bench.nexmark;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code WITH} options of the source and sink tables on each side. Stock: {@code kafka} (and
 * {@code upsert-kafka} for updating queries) with the family's stock formats. karrow: {@code
 * kafka-native} with {@code 'scan.fetch-mode' = 'native'} and the native formats, {@code
 * kafka-native} sinks for insert-only queries (batched native encode) and {@code upsert-kafka} with
 * the native formats as key and value formats for updating ones, plus whatever {@code
 * --karrow-source-option}, {@code --karrow-sink-option}, {@code --karrow-upsert-sink-option} and
 * {@code --karrow-upsert-connector} add: the switches for paths that are not on by default.
 */
final class Sides {

    private Sides() {}

    static String source(SuiteOptions o, Family family, Side side, String topic) {
        List<String> w = new ArrayList<>();
        w.add(kv("connector", side == Side.STOCK ? "kafka" : "kafka-native"));
        w.add(kv("topic", topic));
        w.add(kv("properties.bootstrap.servers", o.bootstrap));
        w.add(kv("properties.group.id", "nexmark"));
        w.add(kv("scan.startup.mode", "earliest-offset"));
        w.add(kv("scan.bounded.mode", "latest-offset"));
        String format = family.sourceFormat(side);
        w.add(kv("format", format));
        formatOptions(w, format + ".", family.sourceFormatOptions(side, o.registry));
        if (side == Side.KARROW) {
            w.add(kv("scan.fetch-mode", "native"));
            w.addAll(o.karrowSourceOptions);
        }
        return String.join(",\n    ", w);
    }

    static String sink(SuiteOptions o, Family family, Side side, QuerySpec q, String topic) {
        List<String> w = new ArrayList<>();
        String format = family.sinkFormat(side);
        if (q.updating()) {
            w.add(kv("connector", side == Side.STOCK ? "upsert-kafka" : o.karrowUpsertConnector));
            w.add(kv("key.format", format));
            formatOptions(w, "key." + format + ".", family.sinkFormatOptions(side, o.registry, q.name(), true));
            w.add(kv("value.format", format));
            formatOptions(w, "value." + format + ".", family.sinkFormatOptions(side, o.registry, q.name(), false));
        } else {
            w.add(kv("connector", side == Side.STOCK ? "kafka" : "kafka-native"));
            w.add(kv("format", format));
            formatOptions(w, format + ".", family.sinkFormatOptions(side, o.registry, q.name(), false));
        }
        w.add(kv("topic", topic));
        w.add(kv("properties.bootstrap.servers", o.bootstrap));
        w.add(kv("sink.delivery-guarantee", "exactly-once"));
        w.add(kv("sink.transactional-id-prefix", topic));
        // Flink's default (1 h) is above the broker's transaction.max.timeout.ms (15 min).
        w.add(kv("properties.transaction.timeout.ms", "600000"));
        if (side == Side.KARROW) {
            w.addAll(q.updating() ? o.karrowUpsertSinkOptions : o.karrowSinkOptions);
        }
        return String.join(",\n    ", w);
    }

    private static void formatOptions(List<String> w, String prefix, Map<String, String> options) {
        options.forEach((k, v) -> w.add(kv(prefix + k, v)));
    }

    private static String kv(String k, String v) {
        return "'" + k + "' = '" + v.replace("'", "''") + "'";
    }
}

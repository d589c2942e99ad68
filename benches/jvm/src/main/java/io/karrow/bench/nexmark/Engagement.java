package io.karrow.bench.nexmark;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which karrow paths a job ran, read from its metrics and plan, never from its configuration:
 *
 * <ul>
 *   <li>{@code decode}: the {@code kafka-native} source decoded every event of the topic ({@code
 *       karrow.numRecordsDecoded}), in native batches ({@code karrow.numNativeBatches} &gt; 0);
 *   <li>{@code fetch}: the native fetch read every event ({@code karrow.numRecordsFetchedNatively});
 *   <li>{@code batch-encode}: the {@code kafka-native} sink's batch encoder took rows (its writer
 *       {@code KafkaNativeBatchEncode: Writer}, {@code numRecordsIn} &gt; 0);
 *   <li>{@code record-encode}: a native format's per-record serializer wrote rows ({@code
 *       karrow.numRecordsEncoded} &gt; 0; the key and value formats of {@code upsert-kafka});
 *   <li>every {@code --probe NAME=metric:KEY} (that summed counter &gt; 0; keys as {@link
 *       MetricsCollector#take} names them) and {@code --probe NAME=plan:TEXT} (the job's {@code
 *       EXPLAIN} contains TEXT): the probes of paths that land later (the operator core, native
 *       produce).
 * </ul>
 * The stock side is probed the same way and must show none of them.
 */
final class Engagement {

    private Engagement() {}

    static Map<String, Boolean> evaluate(SuiteOptions o, QuerySpec q, String plan, Map<String, Long> m, long events) {
        Map<String, Boolean> engaged = new LinkedHashMap<>();
        engaged.put("decode", get(m, "karrow|numNativeBatches") > 0 && get(m, "karrow|numRecordsDecoded") == events);
        engaged.put("fetch", get(m, "karrow|numRecordsFetchedNatively") == events);
        engaged.put("batch-encode", get(m, "KafkaNativeBatchEncode: Writer|numRecordsIn") > 0);
        engaged.put("record-encode", get(m, "karrow|numRecordsEncoded") > 0);
        for (Map.Entry<String, String> probe : o.probes.entrySet()) {
            String how = probe.getValue();
            boolean on = how.startsWith("metric:")
                    ? get(m, how.substring("metric:".length())) > 0
                    : plan.contains(how.substring("plan:".length()));
            engaged.put(probe.getKey(), on);
        }
        return engaged;
    }

    private static long get(Map<String, Long> metrics, String key) {
        return metrics.getOrDefault(key, 0L);
    }
}

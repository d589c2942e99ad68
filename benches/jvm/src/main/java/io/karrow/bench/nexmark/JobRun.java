package io.karrow.bench.nexmark;

import org.apache.flink.table.types.logical.RowType;

import java.util.List;
import java.util.Map;

/**
 * One job of the suite: a query on one side in one round, and what it did.
 *
 * @param sinkType the physical row type of the query's sink table (null if the job failed before)
 * @param seconds the job's net runtime (Flink's, from scheduling to FINISHED, the final checkpoint
 *     that commits the exactly-once transactions included)
 * @param cpuSeconds process CPU time while the job ran, minus the planning done by the submitting
 *     thread
 * @param engaged the karrow paths that ran, each read from the job's metrics or plan
 * @param error why the job failed, or null
 */
record JobRun(Family family, QuerySpec query, Side side, int round, String outputTopic, RowType sinkType, double seconds,
        double cpuSeconds, OutputTopic.Digest digest, Map<String, Boolean> engaged, Map<String, Long> metrics,
        String error) {

    boolean ok() {
        return error == null;
    }

    /** The names of the engaged paths, in probe order. */
    List<String> engagedPaths() {
        return engaged.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).toList();
    }
}

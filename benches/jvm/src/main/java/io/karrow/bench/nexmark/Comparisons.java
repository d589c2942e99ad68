package io.karrow.bench.nexmark;

import java.util.List;
import java.util.Locale;

/**
 * Compares the outputs of the two sides of one query: insert-only outputs as multisets of records
 * (key and value bytes), updating ones as their changelogs collapsed per key (see {@link
 * OutputTopic}). A difference is printed and fails the run.
 */
final class Comparisons {

    private Comparisons() {}

    static Comparison compare(SuiteOptions o, QuerySpec q, JobRun stock, JobRun karrow) {
        if (!stock.ok() || !karrow.ok()) {
            return Comparison.notCompared((stock.ok() ? "" : "stock failed") + (!stock.ok() && !karrow.ok() ? ", " : "")
                    + (karrow.ok() ? "" : "karrow failed"));
        }
        OutputTopic.Digest s = stock.digest();
        OutputTopic.Digest k = karrow.digest();
        String what = q.updating()
                ? String.format(Locale.ROOT, "%,d keys (changelog %,d / %,d)", s.records(), s.changelog(), k.changelog())
                : String.format(Locale.ROOT, "%,d records", s.records());
        if (q.compare().startsWith("none:")) {
            return Comparison.notComparable(String.format(Locale.ROOT, "%s; %,d vs %,d %s", q.compare().substring(5).trim(),
                    s.records(), k.records(), q.updating() ? "keys" : "records"));
        }
        if (s.sameAs(k)) {
            return Comparison.equal(what);
        }
        TopNComparison topN = TopNComparison.of(q.compare(), stock.sinkType());
        if (topN != null) {
            try {
                Family family = stock.family();
                var decoder = Formats.decoder(family.sinkFormat(Side.STOCK),
                        family.sinkFormatOptions(Side.STOCK, o.registry, q.name(), false), stock.sinkType(),
                        stock.outputTopic());
                List<String> diff = topN.differences(decoder,
                        OutputTopic.live(o.bootstrap, stock.outputTopic()), OutputTopic.live(o.bootstrap, karrow.outputTopic()));
                if (diff.isEmpty()) {
                    return Comparison.equal(what + ", equal up to the order of tied rows");
                }
                return Comparison.different(what + ", differ beyond tied rows", diff);
            } catch (Exception e) {
                return Comparison.different("top-n comparison failed: " + NexmarkSuite.rootMessage(e), List.of());
            }
        }
        List<String> diff = OutputTopic.differences(o.bootstrap, stock.outputTopic(), karrow.outputTopic(), q.updating());
        String counts = q.updating()
                ? String.format(Locale.ROOT, "%,d vs %,d keys", s.records(), k.records())
                : String.format(Locale.ROOT, "%,d vs %,d records", s.records(), k.records());
        return Comparison.different(counts, diff);
    }
}

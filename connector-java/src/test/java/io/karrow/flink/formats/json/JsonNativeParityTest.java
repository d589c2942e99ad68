package io.karrow.flink.formats.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.json.JsonParityHarness.DecodeOptions;
import io.karrow.flink.formats.json.JsonParityHarness.Outcome;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;

/**
 * Decode parity of {@code json-native} with Flink's {@code json} (flink-json 2.2.0, the oracle). For
 * every corpus of {@link JsonCorpora} the seeded messages (10,000 per corpus by default, {@code
 * -Dkarrow.corpus.records}, written for both timestamp standards) go through the oracle and through
 * native under every valid option combination (json-parser on/off x ignore-parse-errors x
 * fail-on-missing-field x timestamp standard, see {@link #EXHAUSTIVE}), and native is checked on all
 * its paths: per record producing binary rows, per record producing
 * generic rows (a table with a metadata column), and the batch decoder over direct memory.
 *
 * <p>For each value the outcomes must be equal: the same rows field by field (the oracle's rows as
 * Flink stores them, {@link JsonParityHarness#asStored}), or both fail, or both skip. The only
 * accepted difference is the documented null-record divergence ({@link
 * JsonParityHarness#nullRecordDivergence}).
 */
class JsonNativeParityTest {

    private static final int RECORDS = Integer.getInteger("karrow.corpus.records", 10_000);
    private static final int MAX_REPORTED = 15;

    static List<JsonCorpus> corpora() {
        return JsonCorpora.all();
    }

    /** Tally of one corpus under one option combination. */
    static final class Tally {
        int rows;
        int valuesWithRows;
        int skipped;
        int failed;
        int nullRecordDivergences;
        int endless;
        int multiRow;
        /** Native outcomes that equal a fresh flink-json decoder's but not the running one's (see check). */
        int historyDependent;
        /** Native outcomes accepted as karrow stopping at a syntax error (see check). */
        int stoppedAtSyntaxError;

        @Override
        public String toString() {
            return String.format("%d values with rows (%d rows, %d multi-row), %d skipped, %d failed, %d null-record "
                    + "divergences, %d where flink-json does not finish, native checks: %d history-dependent in flink-json, "
                    + "%d stopped at a syntax error", valuesWithRows, rows, multiRow, skipped, failed,
                    nullRecordDivergences, endless, historyDependent, stoppedAtSyntaxError);
        }
    }

    /**
     * With {@code -Dkarrow.json.exhaustive=true} every message is decoded under every option
     * combination and each standard gets the full record count; by default (to keep the suite fast)
     * each corpus has {@code karrow.corpus.records} messages, half written for each timestamp
     * standard; every other message is decoded under Flink's defaults, the rest rotate through the
     * other five combinations of their standard. Generic rows (a table with metadata columns) are
     * checked under the defaults.
     */
    static final boolean EXHAUSTIVE = Boolean.getBoolean("karrow.json.exhaustive");

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpora")
    void corpusDecodesIdentically(JsonCorpus corpus) throws Exception {
        RowType rowType = corpus.rowType();
        List<String> mismatches = new ArrayList<>();
        int total = 0;
        long started = System.nanoTime();
        for (JsonCorpus.Standard standard : JsonCorpus.Standard.values()) {
            int count = EXHAUSTIVE ? RECORDS : (RECORDS + 1) / 2;
            List<byte[]> messages = corpus.messages(count, standard);
            List<DecodeOptions> combos = DecodeOptions.all().stream().filter(o -> o.standard() == standard).toList();
            assertThat(combos.get(0)).isEqualTo(DecodeOptions.defaults(standard));
            for (int c = 0; c < combos.size(); c++) {
                DecodeOptions options = combos.get(c);
                List<byte[]> subset = new ArrayList<>();
                for (int i = 0; i < messages.size(); i++) {
                    boolean defaults = i % 2 == 0;
                    if (EXHAUSTIVE || (c == 0 ? defaults : !defaults && (i / 2) % (combos.size() - 1) == c - 1)) {
                        subset.add(messages.get(i));
                    }
                }
                Tally tally = new Tally();
                List<String> found = compareAll(rowType, subset, options, tally);
                total += found.size();
                for (String m : found) {
                    if (mismatches.size() < MAX_REPORTED) {
                        mismatches.add(options + " " + m);
                    }
                }
                System.out.printf("json parity %-12s %-42s %5d values: %s%s%n", corpus.name(), options, subset.size(), tally,
                        found.isEmpty() ? "" : ", " + found.size() + " MISMATCHES");
                // the corpus must exercise rows and failures alike
                assertThat(tally.valuesWithRows).as("values with rows in %s %s", corpus.name(), options)
                        .isGreaterThan(subset.size() / (options.failOnMissingField() ? 3 : 2));
                if (!options.ignoreParseErrors()) {
                    assertThat(tally.failed).as("failing values in %s %s", corpus.name(), options).isPositive();
                }
            }
        }
        System.out.printf("json parity %s: %.1f s%n", corpus.name(), (System.nanoTime() - started) / 1e9);
        assertThat(mismatches).as("json-native vs json: %d mismatches in corpus %s (first %d shown)", total, corpus.name(),
                MAX_REPORTED).isEmpty();
    }

    /**
     * Decodes {@code messages} with the oracle and with every native path under {@code options};
     * returns the mismatches (each naming the value, the path and both outcomes).
     */
    static List<String> compareAll(RowType rowType, List<byte[]> messages, DecodeOptions options, Tally tally)
            throws Exception {
        JsonParityHarness.OracleDecoder oracle = new JsonParityHarness.OracleDecoder(rowType, options.toMap());
        List<Outcome> expected = new ArrayList<>(messages.size());
        for (byte[] message : messages) {
            Outcome o = oracle.decode(message);
            expected.add(o);
            if (o.endless()) {
                tally.endless++;
            } else if (o.hasNullRow()) {
                tally.nullRecordDivergences++;
            } else if (o.failed()) {
                tally.failed++;
            } else if (o.rows.isEmpty()) {
                tally.skipped++;
            } else {
                tally.valuesWithRows++;
                tally.rows += o.rows.size();
                tally.multiRow += o.rows.size() > 1 ? 1 : 0;
            }
        }
        List<String> mismatches = new ArrayList<>();
        if (JsonParityHarness.ORACLE_ONLY) {
            return mismatches;
        }
        DeserializationSchema<RowData> binary = JsonParityHarness.decoder(JsonParityHarness.NATIVE, rowType, options.toMap(), false);
        boolean checkGeneric = EXHAUSTIVE || options.equals(DecodeOptions.defaults(options.standard()));
        DeserializationSchema<RowData> generic = checkGeneric
                ? JsonParityHarness.decoder(JsonParityHarness.NATIVE, rowType, options.toMap(), true) : null;
        try {
            List<byte[]> batchValues = new ArrayList<>();
            List<Integer> batchIndex = new ArrayList<>();
            for (int i = 0; i < messages.size(); i++) {
                if (expected.get(i).endless()) {
                    // flink-json never finishes: native runs in a child JVM (see JsonParityHarness.Isolated)
                    Outcome[] isolated = JsonParityHarness.Isolated.decode(rowType, options.toMap(), false, messages.get(i));
                    check(mismatches, tally, "per-record(binary, isolated)", i, messages.get(i), rowType, options,
                            expected.get(i), isolated[0]);
                    check(mismatches, tally, "batch (isolated)", i, messages.get(i), rowType, options, expected.get(i),
                            isolated[1]);
                    continue;
                }
                batchValues.add(messages.get(i));
                batchIndex.add(i);
                Outcome b = JsonParityHarness.decode(binary, messages.get(i));
                check(mismatches, tally, "per-record(binary)", i, messages.get(i), rowType, options, expected.get(i), b);
                if (generic == null) {
                    continue;
                }
                Outcome g = JsonParityHarness.decode(generic, messages.get(i));
                String problem = g.rows.stream().anyMatch(r -> r != null && !(r instanceof GenericRowData))
                        ? "per-record(generic) emitted a " + g.rows.get(0).getClass().getSimpleName() + ", not GenericRowData"
                        : null;
                if (problem != null) {
                    mismatches.add("value " + i + ": " + problem);
                }
                check(mismatches, tally, "per-record(generic)", i, messages.get(i), rowType, options, expected.get(i), g);
            }
            List<Outcome> batch = JsonParityHarness.decodeBatch(binary, rowType, batchValues);
            for (int k = 0; k < batchValues.size(); k++) {
                int i = batchIndex.get(k);
                check(mismatches, tally, "batch", i, messages.get(i), rowType, options, expected.get(i), batch.get(k));
            }
        } finally {
            JsonParityHarness.closeQuietly(binary);
            JsonParityHarness.closeQuietly(generic);
        }
        return mismatches;
    }

    /**
     * Compares one value's outcomes; on a mismatch two documented effects are ruled out first: (1)
     * flink-json's result depends on what the same decoder instance decoded before: Jackson's
     * symbol table pads short field names with 0xFF bytes, so a name starting with an invalid 0xFF
     * byte can alias a shorter name seen in an earlier message ({@code "\xFFf"} matches {@code "f"})
     * instead of failing; native is then compared with a fresh flink-json decoder. (2) karrow
     * stopping at a syntax error under ignore-parse-errors where Jackson resumes ({@link
     * JsonParityHarness#stoppedAtSyntaxError}).
     */
    private static void check(List<String> mismatches, Tally tally, String path, int index, byte[] message,
                              RowType rowType, DecodeOptions options, Outcome expected, Outcome actual) throws Exception {
        String diff = JsonParityHarness.compare(rowType, options.ignoreParseErrors(), expected, actual, message);
        if (diff == null) {
            return;
        }
        Outcome fresh = new JsonParityHarness.OracleDecoder(rowType, options.toMap()).decode(message);
        if (JsonParityHarness.compare(rowType, options.ignoreParseErrors(), fresh, actual, message) == null) {
            tally.historyDependent++;
            return;
        }
        if (JsonParityHarness.stoppedAtSyntaxError(rowType, options.ignoreParseErrors(), expected, actual, message)) {
            tally.stoppedAtSyntaxError++;
            return;
        }
        mismatches.add("value " + index + " " + path + ": " + diff + "\n    input " + JsonParityHarness.render(message));
    }
}

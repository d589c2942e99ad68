package io.karrow.flink.formats.protobuf;

import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.apache.flink.table.api.DataTypes.INT;
import static org.apache.flink.table.api.DataTypes.ROW;
import static org.apache.flink.table.api.DataTypes.SMALLINT;
import static org.apache.flink.table.api.DataTypes.STRING;
import static org.apache.flink.table.api.DataTypes.TINYINT;
import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.protobuf.ProtobufParityHarness.DecodeOptions;
import io.karrow.flink.formats.protobuf.ProtobufParityHarness.Outcome;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Decode parity of {@code protobuf-native} with Flink's {@code protobuf} (flink-protobuf 2.2.0, the
 * oracle). For every corpus of {@link ProtobufCorpora} the seeded values ({@code
 * -Dkarrow.corpus.records}, 10,000 by default; a fifth of that for the hand-written projections,
 * {@link ProtobufCorpus#count}) are decoded by the oracle and by native, per record
 * ({@code deserialize(byte[], Collector)}) and through the batch decoder, under read-default-values
 * false and true; under ignore-parse-errors (both rdv values) every value the oracle rejects plus
 * every 16th value are decoded again ({@code -Dkarrow.protobuf.exhaustive=true}: all of them).
 * Under Flink's defaults (rdv = false) native also decodes every other value per record for a
 * table with a metadata column, where it must emit {@code GenericRowData} (Flink's Kafka connector
 * casts to it).
 *
 * <p>For each value the outcomes must be equal: the same canonical rows ({@link
 * ProtobufParityHarness#canonical}), or both fail (native's error naming "Failed to deserialize PB
 * object." on the per-record path), or both skip. Where Flink cannot even open the decoder (a proto2
 * root embedding proto3 implicit scalars, an editions IMPLICIT column, with rdv = false;
 * docs/parity/protobuf.md), native must fail to open too. The one decision docs/parity/protobuf.md
 * documents for reading is applied by name: enum numbers in BIGINT columns ({@link
 * ProtobufParityHarness#oracleRow}). Reported mismatches come with a minimized input ({@link
 * ProtobufParityHarness#minimize}); {@code -Dkarrow.protobuf.probe=<corpus>:<hex>...} prints both
 * sides' outcomes for given values, {@code -Dkarrow.protobuf.corpora=a,b} runs some corpora only.
 */
class ProtobufNativeParityTest {

    private static final int RECORDS = Integer.getInteger("karrow.corpus.records", 10_000);
    private static final int MAX_REPORTED = 12;
    /** How many of the reported mismatches per corpus get a minimized input. */
    private static final int MINIMIZED = 6;
    static final boolean EXHAUSTIVE = Boolean.getBoolean("karrow.protobuf.exhaustive");

    static List<ProtobufCorpus> corpora() {
        return ProtobufCorpora.selected();
    }

    private static final long STARTED = System.nanoTime();

    /** Wall and CPU time of this suite (the default run should stay well under a minute for both suites). */
    @org.junit.jupiter.api.AfterAll
    static void printTimes() {
        System.out.printf("protobuf decode parity suite: %.1f s wall, JVM CPU so far %.1f s%n",
                (System.nanoTime() - STARTED) / 1e9, ProtobufParityHarness.processCpuSeconds());
    }

    /** Tally of one corpus under one option combination. */
    static final class Tally {
        int values;
        int rows;
        int errors;
        int skips;

        @Override
        public String toString() {
            return String.format("%5d values: %5d rows, %4d errors, %4d skips", values, rows, errors, skips);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpora")
    void corpusDecodesIdentically(ProtobufCorpus corpus) throws Exception {
        long started = System.nanoTime();
        RowType rowType = corpus.rowType();
        List<byte[]> messages = corpus.messages(corpus.count(RECORDS));
        List<String> mismatches = new ArrayList<>();
        int[] total = {0};
        int opened = 0;
        for (boolean rdv : new boolean[] {false, true}) {
            DecodeOptions strict = new DecodeOptions(rdv, false);
            Opened o = open(corpus, strict, mismatches, total);
            if (o == null) {
                continue;
            }
            opened++;
            List<Outcome> expected = new ArrayList<>(messages.size());
            Tally tally = new Tally();
            List<Integer> rejected = new ArrayList<>();
            try {
                for (int i = 0; i < messages.size(); i++) {
                    Outcome e = ProtobufParityHarness.decode(o.oracle, rowType, messages.get(i));
                    expected.add(e);
                    count(tally, e);
                    if (e.failed()) {
                        rejected.add(i);
                    }
                }
                compareAll(corpus, strict, o, messages, expected, mismatches, total);
            } finally {
                ProtobufParityHarness.closeQuietly(o.nativeSchema);
                ProtobufParityHarness.closeQuietly(o.generic);
            }
            print(corpus, strict, tally, total[0]);
            assertThat(tally.rows).as("rows in %s %s", corpus.name(), strict).isGreaterThan(messages.size() / 2);
            assertThat(tally.errors).as("errors in %s %s", corpus.name(), strict).isPositive();

            // ignore-parse-errors: the rejected values (now skipped) and a sample of the others
            DecodeOptions lenient = new DecodeOptions(rdv, true);
            Opened l = open(corpus, lenient, mismatches, total);
            if (l == null) {
                continue;
            }
            List<byte[]> subset = new ArrayList<>();
            List<Outcome> subsetExpected = new ArrayList<>();
            Tally lenientTally = new Tally();
            try {
                for (int i = 0; i < messages.size(); i++) {
                    if (EXHAUSTIVE || expected.get(i).failed() || i % 16 == 0) {
                        Outcome e = ProtobufParityHarness.decode(l.oracle, rowType, messages.get(i));
                        subset.add(messages.get(i));
                        subsetExpected.add(e);
                        count(lenientTally, e);
                        if (e.failed()) {
                            mismatches.add("flink failed under ignore-parse-errors: " + e.describe());
                        }
                    }
                }
                compareAll(corpus, lenient, l, subset, subsetExpected, mismatches, total);
            } finally {
                ProtobufParityHarness.closeQuietly(l.nativeSchema);
                ProtobufParityHarness.closeQuietly(l.generic);
            }
            print(corpus, lenient, lenientTally, total[0]);
            assertThat(lenientTally.skips).as("skips in %s %s", corpus.name(), lenient).isEqualTo(rejected.size());
        }
        System.out.printf("protobuf parity %-20s %.1f s (opening schemas so far: flink %.1f s, native %.1f s; "
                        + "documented enum-into-BIGINT values so far: %d)%n",
                corpus.name(), (System.nanoTime() - started) / 1e9,
                ProtobufParityHarness.OPEN_NANOS.getOrDefault(ProtobufParityHarness.ORACLE, 0L) / 1e9,
                ProtobufParityHarness.OPEN_NANOS.getOrDefault(ProtobufParityHarness.NATIVE, 0L) / 1e9,
                ProtobufParityHarness.ENUM_BIGINT_DECISIONS.get());
        assertThat(opened).as("option combinations opened for %s", corpus.name())
                .isEqualTo(corpus.flinkOpenFailsWithoutReadDefaults() ? 1 : 2);
        assertThat(mismatches).as("protobuf-native vs protobuf: %d mismatches in corpus %s (first %d shown)", total[0],
                corpus.name(), MAX_REPORTED).isEmpty();
    }

    private static void print(ProtobufCorpus corpus, DecodeOptions options, Tally tally, int mismatches) {
        System.out.printf("protobuf parity %-20s %-30s %s%s%n", corpus.name(), options, tally,
                mismatches == 0 ? "" : " (" + mismatches + " mismatches so far)");
    }

    private static void count(Tally tally, Outcome e) {
        tally.values++;
        if (e.failed()) {
            tally.errors++;
        } else if (e.rows.isEmpty()) {
            tally.skips++;
        } else {
            tally.rows += e.rows.size();
        }
    }

    /** The oracle and native decoders of one option combination. */
    private record Opened(DeserializationSchema<RowData> oracle, DeserializationSchema<RowData> nativeSchema,
                          DeserializationSchema<RowData> generic) {}

    /**
     * Opens both sides; when Flink cannot open (expected only for rdv = false on the corpora flagged
     * so), checks that native cannot either and returns null.
     */
    private static Opened open(ProtobufCorpus corpus, DecodeOptions options, List<String> mismatches, int[] total) {
        Map<String, String> map = options.toMap(corpus.messageClass());
        DeserializationSchema<RowData> oracle = null;
        Throwable oracleError = null;
        try {
            oracle = ProtobufParityHarness.decoder(ProtobufParityHarness.ORACLE, corpus.rowType(), map);
        } catch (Throwable t) {
            oracleError = t;
        }
        DeserializationSchema<RowData> nativeSchema = null;
        Throwable nativeError = null;
        try {
            nativeSchema = ProtobufParityHarness.decoder(ProtobufParityHarness.NATIVE, corpus.rowType(), map);
        } catch (Throwable t) {
            nativeError = t;
        }
        boolean expectFailure = corpus.flinkOpenFailsWithoutReadDefaults() && !options.readDefaultValues();
        assertThat(oracleError == null ? "opened" : "failed: " + ProtobufParityHarness.messages(oracleError))
                .as("flink-protobuf opening %s %s", corpus.name(), options)
                .startsWith(expectFailure ? "failed" : "opened");
        if (oracleError != null) {
            System.out.printf("protobuf parity %-20s %-30s flink fails to open (%s); native %s%n", corpus.name(), options,
                    rootMessage(oracleError), nativeError == null ? "OPENED" : "fails too (" + rootMessage(nativeError) + ")");
            if (nativeError == null) {
                total[0]++;
                mismatches.add(options + ": flink cannot open the decoder (" + rootMessage(oracleError)
                        + ") but native opened it");
                ProtobufParityHarness.closeQuietly(nativeSchema);
            }
            return null;
        }
        if (nativeError != null) {
            throw new AssertionError("native failed to open " + corpus.name() + " " + options + " where flink opens: "
                    + ProtobufParityHarness.messages(nativeError), nativeError);
        }
        DeserializationSchema<RowData> generic = null;
        if (options.equals(new DecodeOptions(false, false)) || EXHAUSTIVE) {
            // a table with a metadata column: native must emit GenericRowData (checked under Flink's defaults)
            try {
                generic = ProtobufParityHarness.decoder(ProtobufParityHarness.NATIVE, corpus.rowType(), map, true);
            } catch (Exception e) {
                throw new AssertionError("native failed to open " + corpus.name() + " " + options + " for generic rows: "
                        + ProtobufParityHarness.messages(e), e);
            }
        }
        return new Opened(oracle, nativeSchema, generic);
    }

    private static String rootMessage(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        String m = c.getClass().getSimpleName() + ": " + c.getMessage();
        return m.length() > 160 ? m.substring(0, 160) + "..." : m;
    }

    /** Native per record and as batches against the oracle's outcomes. */
    private static void compareAll(ProtobufCorpus corpus, DecodeOptions options, Opened o, List<byte[]> messages,
                                   List<Outcome> expected, List<String> mismatches, int[] total) throws Exception {
        RowType rowType = corpus.rowType();
        for (int i = 0; i < messages.size(); i++) {
            Outcome actual = ProtobufParityHarness.decode(o.nativeSchema, rowType, messages.get(i));
            if (!ProtobufParityHarness.agree(expected.get(i), actual, true)) {
                report(mismatches, total, options, "per-record", i, messages.get(i), expected.get(i), actual, true, o,
                        rowType);
            }
        }
        if (o.generic != null) {
            for (int i = 0; i < messages.size(); i += EXHAUSTIVE ? 1 : 2) {
                Outcome actual = ProtobufParityHarness.decode(o.generic, rowType, messages.get(i));
                if (actual.rowClasses.stream().anyMatch(c -> c != GenericRowData.class)) {
                    total[0]++;
                    if (mismatches.size() < MAX_REPORTED) {
                        mismatches.add(options + " value " + i + " per-record(generic): emitted " + actual.rowClasses
                                + ", not GenericRowData, for a table with a metadata column");
                    }
                } else if (!ProtobufParityHarness.agree(expected.get(i), actual, true)) {
                    report(mismatches, total, options, "per-record(generic)", i, messages.get(i), expected.get(i), actual,
                            true, o, rowType);
                }
            }
        }
        if (ProtobufParityHarness.selfCheck()) {
            return;
        }
        List<Outcome> batch = ProtobufParityHarness.decodeBatch(o.nativeSchema, rowType, messages);
        for (int i = 0; i < messages.size(); i++) {
            if (!ProtobufParityHarness.agree(expected.get(i), batch.get(i), false)) {
                report(mismatches, total, options, "batch", i, messages.get(i), expected.get(i), batch.get(i), false, o,
                        rowType);
            }
        }
    }

    /**
     * Records a mismatch; the first {@link #MAX_REPORTED} are described, the first {@link #MINIMIZED}
     * with the value minimized
     * ({@link ProtobufParityHarness#minimize}) against the per-record paths.
     */
    private static void report(List<String> mismatches, int[] total, DecodeOptions options, String path, int index,
                               byte[] value, Outcome expected, Outcome actual, boolean checkMessage, Opened o,
                               RowType rowType) {
        total[0]++;
        if (mismatches.size() < MAX_REPORTED) {
            String text = options + " value " + index + " " + path + ": "
                    + ProtobufParityHarness.compare(expected, actual, checkMessage) + "\n    input "
                    + ProtobufParityHarness.hex(value);
            byte[] small = mismatches.size() >= MINIMIZED ? null
                    : ProtobufParityHarness.minimize(value, v -> !ProtobufParityHarness.agree(
                            ProtobufParityHarness.decode(o.oracle, rowType, v),
                            ProtobufParityHarness.decode(o.nativeSchema, rowType, v), true));
            if (small != null && small.length < value.length) {
                text += "\n    minimized " + ProtobufParityHarness.hex(small) + ": " + ProtobufParityHarness.compare(
                        ProtobufParityHarness.decode(o.oracle, rowType, small),
                        ProtobufParityHarness.decode(o.nativeSchema, rowType, small), true);
            }
            mismatches.add(text);
        }
    }

    /**
     * Decodes given values with both sides under every option combination and prints the outcomes:
     * {@code -Dkarrow.protobuf.probe=<corpus>:<hex>[:<hex>...]} (for looking into a mismatch).
     */
    @Test
    @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "karrow.protobuf.probe", matches = ".+")
    void probe() throws Exception {
        String[] parts = System.getProperty("karrow.protobuf.probe").split(":");
        ProtobufCorpus corpus = ProtobufCorpora.all().stream().filter(c -> c.name().equals(parts[0])).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no corpus " + parts[0]));
        for (DecodeOptions options : DecodeOptions.all()) {
            Map<String, String> map = options.toMap(corpus.messageClass());
            DeserializationSchema<RowData> oracle;
            DeserializationSchema<RowData> nativeSchema;
            try {
                oracle = ProtobufParityHarness.decoder(ProtobufParityHarness.ORACLE, corpus.rowType(), map);
                nativeSchema = ProtobufParityHarness.decoder(ProtobufParityHarness.NATIVE, corpus.rowType(), map);
            } catch (Exception e) {
                System.out.println("probe " + options + ": cannot open: " + rootMessage(e));
                continue;
            }
            for (int i = 1; i < parts.length; i++) {
                byte[] value = parts[i].equals("null") ? null : java.util.HexFormat.of().parseHex(parts[i]);
                Outcome e = ProtobufParityHarness.decode(oracle, corpus.rowType(), value);
                Outcome a = ProtobufParityHarness.decode(nativeSchema, corpus.rowType(), value);
                List<Outcome> b = ProtobufParityHarness.selfCheck() ? List.of(a)
                        : ProtobufParityHarness.decodeBatch(nativeSchema, corpus.rowType(), java.util.Collections.singletonList(value));
                System.out.printf("probe %s %s %s%n    flink  %s%n    native %s%n    batch  %s%n", corpus.name(), options,
                        parts[i], e.describe(), a.describe(), b.get(0).describe());
            }
            ProtobufParityHarness.closeQuietly(nativeSchema);
        }
    }

    /**
     * Row types Flink validates but cannot open (enum as TINYINT / SMALLINT, docs/parity/protobuf.md
     * "Enums") and row types it rejects in validation: native must fail too, for decoding and encoding.
     */
    @Test
    void rowTypesFlinkCannotOpenFailOnBothSides() {
        String enums = ProtobufCorpora.PACKAGE + "Enums3Proto$Enums3";
        String scalars = ProtobufCorpora.PACKAGE + "Scalars3Proto$Scalars3";
        List<Object[]> cases = List.of(
                new Object[] {enums, ROW(FIELD("color", TINYINT()))},
                new Object[] {enums, ROW(FIELD("level", SMALLINT()))},
                new Object[] {scalars, ROW(FIELD("nope", INT()))},
                new Object[] {scalars, ROW(FIELD("f_string", INT()))},
                new Object[] {scalars, ROW(FIELD("F_INT32", INT()))},
                new Object[] {scalars + "X", ROW(FIELD("f_int32", INT()))},
                new Object[] {ProtobufCorpora.PACKAGE + "Scalars3Proto", ROW(FIELD("f_int32", INT()))},
                new Object[] {scalars, ROW(FIELD("f_int32", STRING()))});
        List<String> problems = new ArrayList<>();
        for (Object[] c : cases) {
            String messageClass = (String) c[0];
            RowType rowType = (RowType) ((org.apache.flink.table.types.DataType) c[1]).getLogicalType();
            for (String side : new String[] {"decode", "encode"}) {
                Throwable oracle = openError(ProtobufParityHarness.ORACLE, side, rowType, messageClass);
                Throwable actual = openError(ProtobufParityHarness.NATIVE, side, rowType, messageClass);
                System.out.printf("protobuf open %s %s %s: flink %s / native %s%n", side, messageClass, rowType,
                        oracle == null ? "opened" : rootMessage(oracle), actual == null ? "opened" : rootMessage(actual));
                if ((oracle == null) != (actual == null)) {
                    problems.add(side + " " + messageClass + " " + rowType + ": flink "
                            + (oracle == null ? "opened" : ProtobufParityHarness.messages(oracle)) + " / native "
                            + (actual == null ? "opened" : ProtobufParityHarness.messages(actual)));
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    private static Throwable openError(String identifier, String side, RowType rowType, String messageClass) {
        try {
            Object schema = side.equals("decode")
                    ? ProtobufParityHarness.decoder(identifier, rowType,
                            new DecodeOptions(false, false).toMap(messageClass))
                    : ProtobufParityHarness.encoder(identifier, rowType,
                            ProtobufParityHarness.encodeOptions(messageClass, null));
            ProtobufParityHarness.closeQuietly(schema);
            return null;
        } catch (Throwable t) {
            return t;
        }
    }
}

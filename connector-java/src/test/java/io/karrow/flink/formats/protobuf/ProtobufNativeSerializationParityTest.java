package io.karrow.flink.formats.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.protobuf.ProtobufParityHarness.DecodeOptions;
import io.karrow.flink.formats.protobuf.ProtobufParityHarness.Encoded;
import io.karrow.flink.formats.protobuf.ProtobufParityHarness.Outcome;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Encode parity of {@code protobuf-native} with Flink's {@code protobuf} serializer: for every
 * corpus of {@link ProtobufCorpora} the seeded rows ({@code -Dkarrow.corpus.records}, a fifth of
 * that for the projections) are serialized by both, as {@code GenericRowData} and as the {@code
 * BinaryRowData} Flink hands a sink, per record and (native) through the batch encoder. Every row
 * is encoded with write-null-string-literal unset (Flink's default {@code ''}); every fourth row
 * also with {@code 'NULL'} or a non-ASCII literal, alternately. The bytes must be equal exactly
 * (including the HashMap order of map entries), or both sides fail.
 *
 * <p>Native's result for a {@code BinaryRowData} is compared with Flink's for that {@code
 * BinaryRowData}; for a {@code GenericRowData} (per record, and in batches of their images) with
 * Flink's for the same {@code GenericRowData}, exactly. Flink's bytes for the two row classes of one
 * row differ where {@code RowDataSerializer.toBinaryRow} loses what the generic row holds: (1) a map
 * key with an unpaired surrogate: flink-protobuf's {@code HashMap<String, _>} hashes and compares
 * the Java string (the map's order, and which keys are one), a binary row holds {@code '?'}; native
 * gets such rows as marked images that keep the Java text ({@code JavaDetailImages}) and must write
 * Flink's generic-row bytes. (2) {@code BinaryArrayWriter} normalizes NaN payloads of FLOAT/DOUBLE
 * array elements (and map keys/values) to the canonical NaN, where protobuf-java writes the Java
 * value's raw bits; such rows reach native as marked images that keep the bits, and must give
 * Flink's generic-row bytes too. Both kinds of rows are counted and printed, so the run shows that
 * the comparison could fail.
 *
 * <p>Round trip: for every row both encode (as {@code BinaryRowData}), native decoding native's bytes
 * gives the same row as Flink decoding Flink's bytes (read-default-values alternating false / true).
 */
class ProtobufNativeSerializationParityTest {

    private static final int RECORDS = Integer.getInteger("karrow.corpus.records", 10_000);
    private static final int MAX_REPORTED = 12;
    /** The write-null-string-literal variants: unset, then the ones every other row rotates through. */
    private static final String[] LITERALS = {null, "NULL", "nül 😀"};

    static List<ProtobufCorpus> corpora() {
        return ProtobufCorpora.selected();
    }

    private static final long STARTED = System.nanoTime();

    /** Wall and CPU time of this suite (the default run should stay well under a minute for both suites). */
    @org.junit.jupiter.api.AfterAll
    static void printTimes() {
        System.out.printf("protobuf encode parity suite: %.1f s wall, JVM CPU so far %.1f s%n",
                (System.nanoTime() - STARTED) / 1e9, ProtobufParityHarness.processCpuSeconds());
    }

    /** protobuf-java logs every unpaired surrogate it writes (with a stack trace) through java.util.logging. */
    private static final java.util.logging.Logger PROTOBUF_LOGGER = java.util.logging.Logger.getLogger("com.google.protobuf");

    static {
        PROTOBUF_LOGGER.setLevel(java.util.logging.Level.OFF);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpora")
    void corpusEncodesIdentically(ProtobufCorpus corpus) throws Exception {
        long started = System.nanoTime();
        RowType rowType = corpus.rowType();
        List<GenericRowData> rows = corpus.rows(corpus.count(RECORDS));
        RowDataSerializer toBinary = new RowDataSerializer(nullable(rowType));
        List<String> mismatches = new ArrayList<>();
        int[] total = {0};
        int identical = 0;
        int bothFailed = 0;
        int nullsInContainers = 0;
        int inputClassDependent = 0;
        int nanPayloadRows = 0;
        List<BinaryRowData> binaries = new ArrayList<>(rows.size());
        for (GenericRowData row : rows) {
            binaries.add(toBinary.toBinaryRow(row).copy());
        }
        List<List<byte[]>> oracleBytesByLiteral = new ArrayList<>();
        List<List<byte[]>> nativeBytesByLiteral = new ArrayList<>();
        for (int l = 0; l < LITERALS.length; l++) {
            String literal = LITERALS[l];
            var options = ProtobufParityHarness.encodeOptions(corpus.messageClass(), literal);
            SerializationSchema<RowData> oracle = ProtobufParityHarness.encoder(ProtobufParityHarness.ORACLE, rowType, options);
            SerializationSchema<RowData> nativeSchema =
                    ProtobufParityHarness.encoder(ProtobufParityHarness.NATIVE, rowType, options);
            List<GenericRowData> subset = new ArrayList<>();
            List<Integer> indexes = new ArrayList<>();
            List<byte[]> oracleBytes = new ArrayList<>();
            List<byte[]> nativeBytes = new ArrayList<>();
            List<Encoded> expectedAll = new ArrayList<>();
            try {
                for (int i = 0; i < rows.size(); i++) {
                    if (l > 0 && !(i % 4 == 1 && (i / 4) % (LITERALS.length - 1) == l - 1)) {
                        continue;
                    }
                    GenericRowData generic = rows.get(i);
                    subset.add(generic);
                    indexes.add(i);
                    if (l == 0 && hasNullInContainer(rowType, generic)) {
                        nullsInContainers++;
                    }
                    BinaryRowData binary = binaries.get(i);
                    Encoded expectedFromBinary = Encoded.of(oracle, binary);
                    Encoded actualGeneric = Encoded.of(nativeSchema, generic);
                    Encoded actualBinary = Encoded.of(nativeSchema, binary);
                    // the reference for a GenericRowData is Flink's result for that GenericRowData
                    Encoded reference = Encoded.of(oracle, generic);
                    if (!sameEncoding(reference, expectedFromBinary)) {
                        // (1) or (2) of the class comment: compared exactly all the same
                        if (oddNaNInContainer(rowType, generic)) {
                            nanPayloadRows++;
                        } else {
                            inputClassDependent++;
                        }
                    }
                    String d = diff(reference, actualGeneric);
                    // the batch encoder takes the generic rows' images (marked where they carry Java detail)
                    expectedAll.add(reference);
                    if (d != null) {
                        report(mismatches, total, literal, i, "per-record(generic) " + d, rowType, generic);
                    }
                    String db = diff(expectedFromBinary, actualBinary);
                    if (db != null) {
                        report(mismatches, total, literal, i, "per-record(binary) " + db, rowType, generic);
                    }
                    if (expectedFromBinary.error() == null && d == null && db == null) {
                        identical++;
                    } else if (expectedFromBinary.error() != null && d == null && db == null) {
                        bothFailed++;
                    }
                    oracleBytes.add(expectedFromBinary.bytes());
                    nativeBytes.add(actualBinary.bytes());
                }
                if (!ProtobufParityHarness.selfCheck()) {
                    List<Encoded> batch = ProtobufParityHarness.encodeBatch(nativeSchema, subset);
                    for (int k = 0; k < subset.size(); k++) {
                        String d = diff(expectedAll.get(k), batch.get(k));
                        if (d != null) {
                            report(mismatches, total, literal, indexes.get(k), "batch " + d, rowType, subset.get(k));
                        }
                    }
                }
            } finally {
                ProtobufParityHarness.closeQuietly(nativeSchema);
            }
            oracleBytesByLiteral.add(oracleBytes);
            nativeBytesByLiteral.add(nativeBytes);
        }
        System.out.printf("protobuf encode parity %-20s %d rows (%d with NULL inside arrays/maps), x2 row classes, "
                        + "+ a quarter again under other literals: %d identical, %d failed on both sides, %d generic rows "
                        + "whose flink bytes depend on the row class (surrogate map keys; compared exactly), %d with a "
                        + "NaN payload inside an array/map (compared exactly), %d mismatches, %.1f s%n",
                corpus.name(), rows.size(), nullsInContainers, identical, bothFailed, inputClassDependent,
                nanPayloadRows, total[0],
                (System.nanoTime() - started) / 1e9);
        roundTrip(corpus, oracleBytesByLiteral.get(0), nativeBytesByLiteral.get(0), mismatches, total);
        assertThat(mismatches).as("protobuf-native vs protobuf encode: %d mismatches in corpus %s (first %d shown)",
                total[0], corpus.name(), MAX_REPORTED).isEmpty();
        assertThat(identical).as("rows encoded identically in %s", corpus.name()).isGreaterThan(rows.size() / 2);
    }

    /**
     * Map keys with unpaired surrogates, as a stock JSON or Protobuf source hands them on in a {@code
     * GenericRowData}: flink-protobuf's {@code HashMap<String, _>} orders them by the Java string's
     * hash and keeps keys that differ only there apart, then protobuf-java writes each surrogate as
     * {@code '?'}. Native must write those bytes (not the ones of the row's binary image), per record
     * and in a batch; the rows are checked to be ones whose binary image Flink writes otherwise.
     */
    @org.junit.jupiter.api.Test
    void unpairedSurrogatesInMapKeysEncodeAsFlinkProtobufWritesTheJavaStrings() throws Exception {
        ProtobufCorpus maps = ProtobufCorpora.all().stream().filter(c -> c.name().equals("maps")).findFirst()
                .orElseThrow();
        RowType rowType = maps.rowType();
        assertThat(rowType.getTypeAt(0).toString()).startsWith("MAP<STRING, STRING>");
        List<GenericRowData> rows = new ArrayList<>();
        String[][] keySets = {
            {"a\uD800", "a?", "a\uDC00", "b"},
            {"\uD83D", "?", "x\uDE00y", "x?y", "\uDBFF\uDBFF", "??", "ok"},
            {"k\uD800", "k\uD801", "k\uD802", "k\uD803", "k\uD804", "k\uD805", "k\uD806", "k\uD807", "k\uD808",
                "k\uD809", "k\uD80A", "k\uD80B", "k\uD80C", "k\uD80D", "k\uD80E", "k\uD80F", "k\uD810", "k?"},
        };
        for (String[] keys : keySets) {
            java.util.Map<Object, Object> map = new java.util.LinkedHashMap<>();
            for (int k = 0; k < keys.length; k++) {
                map.put(org.apache.flink.table.data.StringData.fromString(keys[k]),
                        org.apache.flink.table.data.StringData.fromString("v" + k));
            }
            GenericRowData row = new GenericRowData(rowType.getFieldCount());
            row.setField(0, new org.apache.flink.table.data.GenericMapData(map));
            rows.add(row);
        }
        var options = ProtobufParityHarness.encodeOptions(maps.messageClass(), null);
        SerializationSchema<RowData> oracle = ProtobufParityHarness.encoder(ProtobufParityHarness.ORACLE, rowType, options);
        SerializationSchema<RowData> nativeSchema =
                ProtobufParityHarness.encoder(ProtobufParityHarness.NATIVE, rowType, options);
        RowDataSerializer toBinary = new RowDataSerializer(nullable(rowType));
        try {
            List<Encoded> batch = ProtobufParityHarness.selfCheck() ? null
                    : ProtobufParityHarness.encodeBatch(nativeSchema, rows);
            for (int i = 0; i < rows.size(); i++) {
                GenericRowData row = rows.get(i);
                Encoded expected = Encoded.of(oracle, row);
                assertThat(expected.error()).as("flink-protobuf encodes row %d", i).isNull();
                assertThat(sameEncoding(expected, Encoded.of(oracle, toBinary.toBinaryRow(row).copy())))
                        .as("flink-protobuf writes row %d's binary image otherwise", i).isFalse();
                assertThat(diff(expected, Encoded.of(nativeSchema, row))).as("per record, row %d", i).isNull();
                if (batch != null) {
                    assertThat(diff(expected, batch.get(i))).as("batch, row %d", i).isNull();
                }
            }
        } finally {
            ProtobufParityHarness.closeQuietly(nativeSchema);
        }
    }

    /**
     * Native decode of native bytes against Flink decode of Flink bytes, for the rows (under the
     * default literal) both encoded; rdv alternates per row (only true where Flink cannot open rdv =
     * false).
     */
    private static void roundTrip(ProtobufCorpus corpus, List<byte[]> oracleBytes, List<byte[]> nativeBytes,
                                  List<String> mismatches, int[] total) throws Exception {
        RowType rowType = corpus.rowType();
        int checked = 0;
        for (boolean rdv : new boolean[] {false, true}) {
            if (!rdv && corpus.flinkOpenFailsWithoutReadDefaults()) {
                continue;
            }
            var options = new DecodeOptions(rdv, false).toMap(corpus.messageClass());
            DeserializationSchema<RowData> oracle = ProtobufParityHarness.decoder(ProtobufParityHarness.ORACLE, rowType, options);
            DeserializationSchema<RowData> nativeSchema =
                    ProtobufParityHarness.decoder(ProtobufParityHarness.NATIVE, rowType, options);
            try {
                for (int i = 0; i < oracleBytes.size(); i++) {
                    if (rdv != (i % 2 == 1) && !corpus.flinkOpenFailsWithoutReadDefaults()) {
                        continue;
                    }
                    if (oracleBytes.get(i) == null || nativeBytes.get(i) == null) {
                        continue;
                    }
                    checked++;
                    Outcome expected = ProtobufParityHarness.decode(oracle, rowType, oracleBytes.get(i));
                    Outcome actual = ProtobufParityHarness.decode(nativeSchema, rowType, nativeBytes.get(i));
                    String d = expected.failed() ? "flink cannot decode its own bytes: " + expected.describe()
                            : ProtobufParityHarness.compare(expected, actual, true);
                    if (d != null) {
                        total[0]++;
                        if (mismatches.size() < MAX_REPORTED) {
                            mismatches.add("round trip rdv=" + rdv + " row " + i + ": " + d + "\n    flink bytes "
                                    + ProtobufParityHarness.hex(oracleBytes.get(i)) + "\n    native bytes "
                                    + ProtobufParityHarness.hex(nativeBytes.get(i)));
                        }
                    }
                }
            } finally {
                ProtobufParityHarness.closeQuietly(nativeSchema);
            }
        }
        System.out.printf("protobuf round trip %-20s %d rows checked%n", corpus.name(), checked);
        assertThat(checked).isGreaterThan(oracleBytes.size() / 3);
    }

    private static boolean sameEncoding(Encoded a, Encoded b) {
        return (a.error() == null) == (b.error() == null) && (a.error() != null || Arrays.equals(a.bytes(), b.bytes()));
    }

    /** Null when native's result equals Flink's (same bytes, or both failed). */
    private static String diff(Encoded expected, Encoded actual) {
        if (expected.error() != null || actual.error() != null) {
            if (expected.error() != null && actual.error() != null) {
                return null;
            }
            return "flink " + expected.describe() + " / native " + actual.describe();
        }
        if (Arrays.equals(expected.bytes(), actual.bytes())) {
            return null;
        }
        return "flink " + expected.describe() + " / native " + actual.describe();
    }

    private static void report(List<String> mismatches, int[] total, String literal, int row, String problem,
                               RowType rowType, RowData generic) {
        total[0]++;
        if (mismatches.size() < MAX_REPORTED) {
            mismatches.add("row " + row + " literal=" + (literal == null ? "<unset>" : "'" + literal + "'") + ": " + problem
                    + "\n    row " + ProtobufParityHarness.show(rowType, generic));
        }
    }

    /**
     * Whether a value holds a FLOAT/DOUBLE NaN other than the canonical one as an array element, map
     * key or map value somewhere (what {@code BinaryArrayWriter} normalizes).
     */
    static boolean oddNaNInContainer(LogicalType t, Object v) {
        return oddNaN(t, v, false);
    }

    private static boolean oddNaN(LogicalType t, Object v, boolean inContainer) {
        if (v == null) {
            return false;
        }
        switch (t.getTypeRoot()) {
            case FLOAT:
                return inContainer && Float.isNaN((Float) v)
                        && Float.floatToRawIntBits((Float) v) != Float.floatToRawIntBits(Float.NaN);
            case DOUBLE:
                return inContainer && Double.isNaN((Double) v)
                        && Double.doubleToRawLongBits((Double) v) != Double.doubleToRawLongBits(Double.NaN);
            case ROW: {
                RowType rt = (RowType) t;
                RowData row = (RowData) v;
                for (int i = 0; i < rt.getFieldCount(); i++) {
                    Object field = RowData.createFieldGetter(rt.getTypeAt(i), i).getFieldOrNull(row);
                    if (oddNaN(rt.getTypeAt(i), field, inContainer)) {
                        return true;
                    }
                }
                return false;
            }
            case ARRAY:
                return oddNaNIn(((ArrayType) t).getElementType(), (org.apache.flink.table.data.ArrayData) v);
            case MAP: {
                org.apache.flink.table.data.MapData m = (org.apache.flink.table.data.MapData) v;
                MapType mt = (MapType) t;
                return oddNaNIn(mt.getKeyType(), m.keyArray()) || oddNaNIn(mt.getValueType(), m.valueArray());
            }
            default:
                return false;
        }
    }

    private static boolean oddNaNIn(LogicalType element, org.apache.flink.table.data.ArrayData array) {
        org.apache.flink.table.data.ArrayData.ElementGetter getter =
                org.apache.flink.table.data.ArrayData.createElementGetter(element);
        for (int i = 0; i < array.size(); i++) {
            if (oddNaN(element, getter.getElementOrNull(array, i), true)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a row has a NULL array element, map key or map value somewhere. */
    private static boolean hasNullInContainer(LogicalType t, Object v) {
        if (v == null) {
            return false;
        }
        switch (t.getTypeRoot()) {
            case ROW: {
                RowType rt = (RowType) t;
                GenericRowData row = (GenericRowData) v;
                for (int i = 0; i < rt.getFieldCount(); i++) {
                    if (hasNullInContainer(rt.getTypeAt(i), row.getField(i))) {
                        return true;
                    }
                }
                return false;
            }
            case ARRAY: {
                Object[] items = ((org.apache.flink.table.data.GenericArrayData) v).toObjectArray();
                LogicalType e = ((ArrayType) t).getElementType();
                return Arrays.stream(items).anyMatch(x -> x == null || hasNullInContainer(e, x));
            }
            case MAP: {
                org.apache.flink.table.data.GenericMapData m = (org.apache.flink.table.data.GenericMapData) v;
                MapType mt = (MapType) t;
                Object[] keys = ((org.apache.flink.table.data.GenericArrayData) m.keyArray()).toObjectArray();
                for (Object k : keys) {
                    Object value = m.get(k);
                    if (k == null || value == null || hasNullInContainer(mt.getValueType(), value)) {
                        return true;
                    }
                }
                return false;
            }
            default:
                return false;
        }
    }

    /** {@code rowType} with every nested type nullable (the generator puts NULLs anywhere). */
    static RowType nullable(RowType rowType) {
        return (RowType) nullableType(rowType);
    }

    private static LogicalType nullableType(LogicalType t) {
        switch (t.getTypeRoot()) {
            case ROW:
                return new RowType(true, ((RowType) t).getFields().stream()
                        .map(f -> new RowType.RowField(f.getName(), nullableType(f.getType()), f.getDescription().orElse(null)))
                        .collect(Collectors.toList()));
            case ARRAY:
                return new ArrayType(true, nullableType(((ArrayType) t).getElementType()));
            case MAP:
                return new MapType(true, nullableType(((MapType) t).getKeyType()), nullableType(((MapType) t).getValueType()));
            default:
                return t.copy(true);
        }
    }
}

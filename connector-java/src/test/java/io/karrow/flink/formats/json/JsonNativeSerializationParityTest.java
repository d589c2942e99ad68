package io.karrow.flink.formats.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.json.JsonParityHarness.EncodeOptions;
import io.karrow.flink.formats.json.JsonParityHarness.Outcome;
import io.karrow.flink.testutils.RowDataDiff;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Encode parity of {@code json-native} with Flink's {@code json} serializer ({@code
 * JsonRowDataSerializationSchema}, created through the {@code json} factory): for every corpus the
 * seeded rows (values fitting their declared types, as SQL produces them) are serialized by both, as
 * {@code GenericRowData} and as the {@code BinaryRowData} Flink would hand a sink, every other row
 * under Flink's default options, the others rotating through the remaining 31 of the 32 encode
 * option combinations (map-null-key FAIL / DROP / LITERAL with the default and with an odd literal x
 * decimal-as-plain-number x ignore-null-fields x both timestamp standards; all of them for every
 * row with {@code -Dkarrow.json.exhaustive=true}). The bytes must be equal, or both sides fail (FLOAT and DOUBLE
 * included: json-native writes the digits of the JVM running the test, JDK 17's or JDK 19+'s).
 *
 * <p>Round trip: the oracle's bytes of every row, decoded by json-native (and by flink-json, as a
 * check of the expectation), give the original row as Flink stores it, except that TIME loses its
 * milliseconds (flink-json writes TIME as {@code HH:mm:ss}, spec §1.6).
 */
class JsonNativeSerializationParityTest {

    private static final int RECORDS = Integer.getInteger("karrow.corpus.records", 10_000);
    private static final int MAX_REPORTED = 15;

    static List<JsonCorpus> corpora() {
        return JsonCorpora.all();
    }

    private static final Map<String, List<GenericRowData>> ROWS = new java.util.HashMap<>();

    /** The corpus rows, generated once for both tests. */
    private static synchronized List<GenericRowData> rows(JsonCorpus corpus) {
        return ROWS.computeIfAbsent(corpus.name(), n -> corpus.rows(RECORDS));
    }

    /** The oracle and native encoders of one option combination. */
    private static final class Encoders {
        final EncodeOptions options;
        final SerializationSchema<RowData> oracle;
        final SerializationSchema<RowData> nativeSchema;

        Encoders(RowType rowType, EncodeOptions options) throws Exception {
            this.options = options;
            this.oracle = JsonParityHarness.encoder(JsonParityHarness.ORACLE, rowType, options.toMap());
            this.nativeSchema = JsonParityHarness.ORACLE_ONLY ? null
                    : JsonParityHarness.encoder(JsonParityHarness.NATIVE, rowType, options.toMap());
        }
    }

    /** What one serializer did with one row. */
    private static final class Encoded {
        final byte[] bytes;
        final Throwable error;

        private Encoded(byte[] bytes, Throwable error) {
            this.bytes = bytes;
            this.error = error;
        }

        static Encoded of(SerializationSchema<RowData> schema, RowData row) {
            try {
                return new Encoded(schema.serialize(row), null);
            } catch (Throwable t) {
                return new Encoded(null, t);
            }
        }

        String describe() {
            return error != null ? "error " + JsonParityHarness.messages(error)
                    : "'" + new String(bytes, StandardCharsets.UTF_8) + "'";
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpora")
    void corpusEncodesIdentically(JsonCorpus corpus) throws Exception {
        RowType rowType = corpus.rowType();
        List<GenericRowData> rows = rows(corpus);
        RowDataSerializer toBinary = new RowDataSerializer(JsonParityHarness.nullable(rowType));
        List<EncodeOptions> combos = EncodeOptions.all();
        assertThat(combos.get(0)).isEqualTo(EncodeOptions.defaults());
        List<Encoders> encoders = new ArrayList<>();
        for (EncodeOptions options : combos) {
            encoders.add(new Encoders(rowType, options));
        }
        List<String> mismatches = new ArrayList<>();
        int total = 0;
        int identical = 0;
        int bothFailed = 0;
        int[] perCombo = new int[combos.size()];
        long started = System.nanoTime();
        for (int i = 0; i < rows.size(); i++) {
            GenericRowData generic = rows.get(i);
            BinaryRowData binary = toBinary.toBinaryRow(generic).copy();
            for (int c = 0; c < combos.size(); c++) {
                // by default every other row is encoded under Flink's defaults, the rest rotate through the others
                if (!JsonNativeParityTest.EXHAUSTIVE && c != (i % 2 == 0 ? 0 : 1 + (i / 2) % (combos.size() - 1))) {
                    continue;
                }
                perCombo[c]++;
                Encoders e = encoders.get(c);
                for (RowData row : new RowData[] {generic, binary}) {
                    Encoded expected = Encoded.of(e.oracle, row);
                    if (JsonParityHarness.ORACLE_ONLY) {
                        identical += expected.error == null ? 1 : 0;
                        bothFailed += expected.error == null ? 0 : 1;
                        continue;
                    }
                    Encoded actual = Encoded.of(e.nativeSchema, row);
                    String problem = null;
                    if (expected.error != null || actual.error != null) {
                        if (expected.error != null && actual.error != null) {
                            bothFailed++;
                        } else {
                            problem = "oracle " + expected.describe() + " / native " + actual.describe();
                        }
                    } else if (Arrays.equals(expected.bytes, actual.bytes)) {
                        identical++;
                    } else {
                        problem = "oracle " + expected.describe() + " / native " + actual.describe();
                    }
                    if (problem != null) {
                        total++;
                        if (mismatches.size() < MAX_REPORTED) {
                            mismatches.add("row " + i + " (" + row.getClass().getSimpleName() + ") " + e.options + ": "
                                    + problem + "\n    row " + JsonParityHarness.show(rowType, generic));
                        }
                    }
                }
            }
        }
        for (Encoders e : encoders) {
            JsonParityHarness.closeQuietly(e.nativeSchema);
        }
        System.out.printf("json encode parity %-12s %d rows, %d option combinations (%d..%d rows each, x2 row classes): "
                        + "%d outputs identical, %d failed on both sides, %d mismatches (Java %d), %.1f s%n",
                corpus.name(), rows.size(), combos.size(), Arrays.stream(perCombo).min().orElse(0),
                Arrays.stream(perCombo).max().orElse(0), identical, bothFailed, total, Runtime.version().feature(),
                (System.nanoTime() - started) / 1e9);
        assertThat(mismatches).as("json-native vs json encode: %d mismatches in corpus %s (first %d shown)", total,
                corpus.name(), MAX_REPORTED).isEmpty();
        assertThat(identical).as("rows encoded identically in %s", corpus.name()).isGreaterThan(rows.size());
    }

    /**
     * Oracle-encoded bytes decoded by json-native (default decoder, the encoding's timestamp
     * standard) give the original row as Flink stores it, TIME without its milliseconds. flink-json
     * decoding the same bytes must give the same (this checks the expectation itself).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("corpora")
    void oracleBytesRoundTripThroughNative(JsonCorpus corpus) throws Exception {
        RowType rowType = corpus.rowType();
        List<GenericRowData> rows = rows(corpus);
        RowDataSerializer toBinary = new RowDataSerializer(JsonParityHarness.nullable(rowType));
        RowType nullableType = JsonParityHarness.nullable(rowType);
        List<String> mismatches = new ArrayList<>();
        int total = 0;
        int checked = 0;
        int skipped = 0;
        for (JsonCorpus.Standard standard : JsonCorpus.Standard.values()) {
            EncodeOptions encodeOptions = new EncodeOptions("FAIL", null, false, false, standard);
            SerializationSchema<RowData> oracleEncoder =
                    JsonParityHarness.encoder(JsonParityHarness.ORACLE, rowType, encodeOptions.toMap());
            Map<String, String> decodeOptions = JsonParityHarness.DecodeOptions.defaults(standard).toMap();
            DeserializationSchema<RowData> oracleDecoder =
                    JsonParityHarness.decoder(JsonParityHarness.ORACLE, rowType, decodeOptions, false);
            DeserializationSchema<RowData> nativeDecoder = JsonParityHarness.ORACLE_ONLY ? null
                    : JsonParityHarness.decoder(JsonParityHarness.NATIVE, rowType, decodeOptions, false);
            try {
                // half of the rows, alternating standards (every row is checked byte for byte above)
                for (int i = standard.ordinal(); i < rows.size(); i += 4) {
                    GenericRowData original = rows.get(i);
                    byte[] bytes;
                    try {
                        bytes = oracleEncoder.serialize(original);
                    } catch (RuntimeException e) {
                        skipped++; // a NULL map key under map-null-key FAIL
                        continue;
                    }
                    checked++;
                    RowData expected = toBinary.toBinaryRow((RowData) withoutTimeMillis(nullableType, original)).copy();
                    Outcome oracle = JsonParityHarness.asStored(rowType, JsonParityHarness.decode(oracleDecoder, bytes));
                    List<String> problems = new ArrayList<>();
                    problems.add(roundTripDiff(rowType, expected, oracle, "flink-json"));
                    if (nativeDecoder != null) {
                        problems.add(roundTripDiff(rowType, expected, JsonParityHarness.decode(nativeDecoder, bytes), "json-native"));
                    }
                    for (String p : problems) {
                        if (p != null) {
                            total++;
                            if (mismatches.size() < MAX_REPORTED) {
                                mismatches.add("row " + i + " " + standard.option + ": " + p + "\n    bytes '"
                                        + new String(bytes, StandardCharsets.UTF_8) + "'");
                            }
                        }
                    }
                }
            } finally {
                JsonParityHarness.closeQuietly(nativeDecoder);
            }
        }
        System.out.printf("json round trip %-12s %d rows checked (%d rows with a NULL map key not encodable under FAIL)%n",
                corpus.name(), checked, skipped);
        assertThat(mismatches).as("round trip: %d mismatches in corpus %s (first %d shown)", total, corpus.name(),
                MAX_REPORTED).isEmpty();
        assertThat(checked).isGreaterThan(RECORDS / 4);
    }

    private static String roundTripDiff(RowType rowType, RowData expected, Outcome decoded, String who) {
        if (decoded.failed() || decoded.rows.size() != 1 || decoded.rows.get(0) == null) {
            return who + " decoded " + decoded.describe(rowType) + ", expected " + JsonParityHarness.show(rowType, expected);
        }
        String d = RowDataDiff.diff(JsonParityHarness.nullable(rowType), expected, decoded.rows.get(0));
        return d == null ? null : who + ": " + d + " (expected " + JsonParityHarness.show(rowType, expected) + ", got "
                + JsonParityHarness.show(rowType, decoded.rows.get(0)) + ")";
    }

    /** A copy of {@code value} whose TIME values are cut to whole seconds (what flink-json writes). */
    static Object withoutTimeMillis(LogicalType type, Object value) {
        if (value == null) {
            return null;
        }
        switch (type.getTypeRoot()) {
            case TIME_WITHOUT_TIME_ZONE:
                return (Integer) value / 1000 * 1000;
            case ROW: {
                RowType rt = (RowType) type;
                RowData row = (RowData) value;
                GenericRowData out = new GenericRowData(rt.getFieldCount());
                for (int i = 0; i < rt.getFieldCount(); i++) {
                    out.setField(i, withoutTimeMillis(rt.getTypeAt(i), RowData.createFieldGetter(rt.getTypeAt(i), i).getFieldOrNull(row)));
                }
                return out;
            }
            case ARRAY: {
                LogicalType e = ((ArrayType) type).getElementType();
                ArrayData a = (ArrayData) value;
                ArrayData.ElementGetter g = ArrayData.createElementGetter(e);
                Object[] items = new Object[a.size()];
                for (int i = 0; i < items.length; i++) {
                    items[i] = withoutTimeMillis(e, g.getElementOrNull(a, i));
                }
                return new GenericArrayData(items);
            }
            case MAP: {
                MapType mt = (MapType) type;
                MapData m = (MapData) value;
                ArrayData.ElementGetter kg = ArrayData.createElementGetter(mt.getKeyType());
                ArrayData.ElementGetter vg = ArrayData.createElementGetter(mt.getValueType());
                Map<Object, Object> out = new LinkedHashMap<>();
                for (int i = 0; i < m.size(); i++) {
                    out.put(kg.getElementOrNull(m.keyArray(), i), withoutTimeMillis(mt.getValueType(), vg.getElementOrNull(m.valueArray(), i)));
                }
                return new GenericMapData(out);
            }
            case MULTISET:
            default:
                return value;
        }
    }
}

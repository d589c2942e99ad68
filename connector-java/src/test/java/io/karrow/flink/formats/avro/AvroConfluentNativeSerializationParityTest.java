package io.karrow.flink.formats.avro;

import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.avro.corpus.AvroCorpora;
import io.karrow.flink.formats.avro.corpus.AvroCorpus;
import io.karrow.flink.formats.avro.corpus.ConfluentAvroEncoder;
import io.karrow.flink.formats.avro.reference.ReferenceDeserializers;
import io.karrow.flink.formats.avro.reference.ReferenceSerializers;
import io.karrow.flink.formats.registry.RegistryDecoderConfig;
import io.karrow.flink.formats.registry.RegistryEncoderConfig;
import io.karrow.flink.testutils.DevRegistry;
import io.karrow.flink.testutils.RowDataDiff;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Byte parity of {@code avro-confluent-native}'s serializer with Flink's {@code avro-confluent}
 * serializer (the oracle, {@link ReferenceSerializers}). Rows come from the parity corpora: their
 * Confluent bytes are decoded by the oracle deserializer, and each row is serialized by the oracle
 * and by native, both from the decoded {@code GenericRowData} and from its {@code BinaryRowData}
 * form; the outputs must be equal byte for byte. Needs the native library and the dev registry.
 */
class AvroConfluentNativeSerializationParityTest {

    private static final int RECORDS = Integer.getInteger("karrow.corpus.records", 10_000);

    @RegisterExtension
    static final DevRegistry registry = DevRegistry.perClass();

    static List<AvroCorpus> corpora() {
        return AvroCorpora.all();
    }

    /** The oracle and native serializers of one row type, registering under their own subjects. */
    private static final class Pair implements AutoCloseable {
        final RowType rowType;
        final SerializationSchema<RowData> oracle;
        final AvroConfluentNativeSerializationSchema nativeSchema;

        Pair(RowType rowType, String subjectPrefix) throws Exception {
            this.rowType = rowType;
            oracle = ReferenceSerializers.create(rowType, registry.url(), subjectPrefix + "-oracle-value", null);
            oracle.open(null);
            nativeSchema = nativeSerializer(rowType, registry.url(), subjectPrefix + "-native-value");
            nativeSchema.open(null);
        }

        @Override
        public void close() {
            nativeSchema.close();
        }
    }

    private static AvroConfluentNativeSerializationSchema nativeSerializer(RowType rowType, String url, String subject) {
        RegistryDecoderConfig registryConfig = new RegistryDecoderConfig(url, null, null, null, null, null, null, null, Map.of());
        return new AvroConfluentNativeSerializationSchema(rowType, new RegistryEncoderConfig(registryConfig, subject));
    }

    /** What one serializer did with one row. */
    private static final class Outcome {
        final byte[] bytes;
        final Throwable error;

        private Outcome(byte[] bytes, Throwable error) {
            this.bytes = bytes;
            this.error = error;
        }

        static Outcome of(SerializationSchema<RowData> schema, RowData row) {
            try {
                return new Outcome(schema.serialize(row), null);
            } catch (Throwable t) {
                return new Outcome(null, t);
            }
        }

        String describe() {
            return error == null ? HexFormat.of().formatHex(bytes) : "error " + ParityHarness.messages(error);
        }
    }

    /** Decodes the corpus with the oracle deserializer: the rows a Flink source would produce. */
    private static List<RowData> corpusRows(AvroCorpus corpus) throws Exception {
        int[] ids = new int[corpus.writers().size()];
        for (int k = 0; k < ids.length; k++) {
            ids[k] = registry.register(corpus.name() + "-w" + k, corpus.writers().get(k).toString());
        }
        RowType rowType = corpus.rowType();
        DeserializationSchema<RowData> decoder =
                ReferenceDeserializers.create(rowType, InternalTypeInfo.of(rowType), registry.url(), null);
        decoder.open(null);
        List<RowData> rows = new ArrayList<>(RECORDS);
        for (byte[] message : ConfluentAvroEncoder.encodeCorpus(corpus, ids, RECORDS)) {
            rows.add(decoder.deserialize(message));
        }
        return rows;
    }

    /** Tally of one corpus run (every row is serialized twice: generic and binary). */
    private static final class Outcomes {
        int identical;
        int bothFailed;
        /** Outputs that differ only because a map with several entries was written in another order. */
        int mapOrderOnly;
        String firstMapOrder;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpora")
    void corpusEncodesIdentically(AvroCorpus corpus) throws Exception {
        Outcomes outcomes = new Outcomes();
        List<String> mismatches = compareCorpus(corpus, outcomes);
        System.out.printf("corpus %s: %d outputs identical, %d rows failed on both sides, %d outputs differ only in "
                        + "the order of map entries (checked by decoding; see multiEntryMapsAreWrittenInFlinksOrder)%n",
                corpus.name(), outcomes.identical, outcomes.bothFailed, outcomes.mapOrderOnly);
        assertThat(mismatches).as("mismatches in corpus %s", corpus.name()).isEmpty();
        assertThat(outcomes.mapOrderOnly)
                .as("outputs whose map entries are ordered differently from Flink's; first: %s", outcomes.firstMapOrder)
                .isZero();
        assertThat(outcomes.identical + outcomes.bothFailed).isEqualTo(2 * RECORDS);
    }

    /**
     * Flink writes map entries in {@code java.util.HashMap} iteration order ({@code
     * RowDataToAvroConverters} copies each MapData into {@code HashMap<String, Object>} sized by
     * {@code CollectionUtil.newHashMapWithExpectedSize}); byte parity needs the same order, which the
     * native encoder reproduces.
     */
    @Test
    void multiEntryMapsAreWrittenInFlinksOrder() throws Exception {
        AvroCorpus maps = AvroCorpora.all().stream().filter(c -> c.name().equals("maps")).findFirst().orElseThrow();
        Outcomes outcomes = new Outcomes();
        List<String> mismatches = compareCorpus(maps, outcomes);
        assertThat(mismatches).isEmpty();
        assertThat(outcomes.mapOrderOnly).as("outputs whose map entries are ordered differently from Flink's; first: %s",
                outcomes.firstMapOrder).isZero();
    }

    private List<String> compareCorpus(AvroCorpus corpus, Outcomes outcomes) throws Exception {
        RowType rowType = corpus.rowType();
        List<RowData> rows = corpusRows(corpus);
        RowDataSerializer toBinary = new RowDataSerializer(rowType);
        DeserializationSchema<RowData> checker =
                ReferenceDeserializers.create(rowType, InternalTypeInfo.of(rowType), registry.url(), null);
        checker.open(null);
        List<String> mismatches = new ArrayList<>();
        try (Pair pair = new Pair(rowType, "enc-" + corpus.name())) {
            assertThat(rows).hasSize(RECORDS);
            for (int i = 0; i < rows.size(); i++) {
                RowData generic = rows.get(i);
                assertThat(generic).isInstanceOf(GenericRowData.class);
                BinaryRowData binary = toBinary.toBinaryRow(generic).copy();
                for (RowData row : new RowData[] {generic, binary}) {
                    String label = "record " + i + " (" + row.getClass().getSimpleName() + ")";
                    Outcome expected = Outcome.of(pair.oracle, row);
                    Outcome actual = Outcome.of(pair.nativeSchema, row);
                    if (expected.error != null) {
                        // e.g. a decoded NULL (decimal overflow) in a NOT NULL column: Flink's sink fails
                        if (actual.error == null) {
                            mismatches.add(label + ": oracle " + expected.describe() + " / native " + actual.describe());
                        } else {
                            outcomes.bothFailed++;
                        }
                    } else if (actual.error != null) {
                        mismatches.add(label + ": native failed: " + actual.describe());
                    } else if (Arrays.equals(expected.bytes, actual.bytes)) {
                        outcomes.identical++;
                    } else {
                        if (hasMultiEntryMap(rowType, row) && sameHeader(expected.bytes, actual.bytes)
                                && RowDataDiff.diff(rowType, checker.deserialize(expected.bytes),
                                        checker.deserialize(actual.bytes)) == null) {
                            outcomes.mapOrderOnly++;
                            if (outcomes.firstMapOrder == null) {
                                outcomes.firstMapOrder = label + " oracle " + expected.describe() + " / native " + actual.describe();
                            }
                        } else {
                            mismatches.add(label + ": oracle " + expected.describe() + " / native " + actual.describe());
                        }
                    }
                    if (mismatches.size() >= 20) {
                        return mismatches;
                    }
                }
            }
        }
        return mismatches;
    }

    private static boolean sameHeader(byte[] a, byte[] b) {
        return a.length == b.length && a.length >= 5 && Arrays.equals(a, 0, 5, b, 0, 5);
    }

    /** Whether any MAP or MULTISET value in {@code row} (at any depth) has more than one entry. */
    static boolean hasMultiEntryMap(RowType rowType, RowData row) {
        for (int f = 0; f < rowType.getFieldCount(); f++) {
            if (!row.isNullAt(f)
                    && hasMultiEntryMap(rowType.getTypeAt(f), RowData.createFieldGetter(rowType.getTypeAt(f), f).getFieldOrNull(row))) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasMultiEntryMap(LogicalType type, Object value) {
        if (value == null) {
            return false;
        }
        switch (type.getTypeRoot()) {
            case ROW:
                return hasMultiEntryMap((RowType) type, (RowData) value);
            case ARRAY:
                return anyElement(((ArrayType) type).getElementType(), (ArrayData) value);
            case MAP:
            case MULTISET:
                MapData map = (MapData) value;
                LogicalType valueType = type instanceof MapType ? ((MapType) type).getValueType() : null;
                return map.size() > 1 || (valueType != null && anyElement(valueType, map.valueArray()));
            default:
                return false;
        }
    }

    private static boolean anyElement(LogicalType elementType, ArrayData array) {
        ArrayData.ElementGetter getter = ArrayData.createElementGetter(elementType);
        for (int i = 0; i < array.size(); i++) {
            if (hasMultiEntryMap(elementType, getter.getElementOrNull(array, i))) {
                return true;
            }
        }
        return false;
    }

    @Test
    void bothRegisterTheSameSchemaId() throws Exception {
        AvroCorpus bids = AvroCorpora.bids();
        RowData row = corpusRows(bids).get(0);
        try (Pair pair = new Pair(bids.rowType(), "ids-" + bids.name())) {
            byte[] expected = pair.oracle.serialize(row);
            int oracleId = ByteBuffer.wrap(expected, 1, 4).getInt();
            assertThat(pair.nativeSchema.schemaId()).isEqualTo(oracleId);
            assertThat(pair.nativeSchema.serialize(row)).isEqualTo(expected);
        }
    }

    @Test
    void registryDownFailsOpenNamingUrlAndSubject() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String url = "http://127.0.0.1:" + port;
        RowType rowType = AvroCorpora.bids().rowType();
        AvroConfluentNativeSerializationSchema schema = nativeSerializer(rowType, url, "down-value");
        Throwable error = catchThrowable(() -> schema.open(null));
        assertThat(error).isInstanceOf(IOException.class);
        assertThat(error.getMessage()).contains(url).contains("down-value");
        // Flink registers at the first record rather than at open: its serializer fails there.
        SerializationSchema<RowData> oracle = ReferenceSerializers.create(rowType, url, "down-value", null);
        oracle.open(null);
        RowData row = GenericRowData.of(1L, 2L, 3L, StringData.fromString("c"), StringData.fromString("u"),
                org.apache.flink.table.data.TimestampData.fromEpochMillis(0), null);
        assertThat(catchThrowable(() -> oracle.serialize(row))).isNotNull();
    }

    private static Throwable catchThrowable(ThrowingRunnable r) {
        try {
            r.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Same outcome (both fail, or the same bytes) for a row given as generic and as binary row. */
    private static List<String> sameOutcome(String name, RowType rowType, GenericRowData row, boolean expectFailure)
            throws Exception {
        return sameOutcome(name, rowType, row, expectFailure, expectFailure);
    }

    /**
     * Same outcome (both fail, or the same bytes) for a row given as generic and as binary row; the
     * flags say whether Flink fails for each input class (a check of the oracle itself).
     */
    private static List<String> sameOutcome(
            String name, RowType rowType, GenericRowData row, boolean genericFails, boolean binaryFails)
            throws Exception {
        List<String> problems = new ArrayList<>();
        List<RowData> inputs = new ArrayList<>();
        inputs.add(row);
        try {
            inputs.add(new RowDataSerializer(rowType).toBinaryRow(row).copy());
        } catch (RuntimeException | AssertionError e) {
            problems.add(name + ": Flink's RowDataSerializer cannot write the row as BinaryRowData: " + e);
        }
        try (Pair pair = new Pair(rowType, "bad-" + name)) {
            for (RowData input : inputs) {
                Outcome expected = Outcome.of(pair.oracle, input);
                Outcome actual = Outcome.of(pair.nativeSchema, input);
                String label = name + " (" + input.getClass().getSimpleName() + ")";
                boolean expectFailure = input instanceof BinaryRowData ? binaryFails : genericFails;
                if ((expected.error != null) != expectFailure) {
                    problems.add(label + ": oracle outcome unexpected: " + expected.describe());
                }
                if ((expected.error == null) != (actual.error == null)
                        || (expected.error == null && !Arrays.equals(expected.bytes, actual.bytes))) {
                    problems.add(label + ": oracle " + expected.describe() + " / native " + actual.describe());
                }
            }
        }
        return problems;
    }

    private static RowType rowType(DataType... fields) {
        DataTypes.Field[] named = new DataTypes.Field[fields.length];
        for (int i = 0; i < fields.length; i++) {
            named[i] = DataTypes.FIELD("f" + i, fields[i]);
        }
        return (RowType) DataTypes.ROW(named).notNull().getLogicalType();
    }

    /**
     * A NULL map key. From a {@code GenericRowData} (a {@code GenericMapData} holding a null key)
     * Flink fails ({@code StringData.toString()} on null). From a {@code BinaryRowData} Flink does not
     * fail: {@code BinaryArrayData.getString} reads the zeroed slot of the null key as the empty
     * string, so it writes the key {@code ""}. Parity needs native to do the same.
     */
    @Test
    void nullMapKeyHasFlinksOutcome() throws Exception {
        Map<StringData, Integer> entries = new HashMap<>();
        entries.put(null, 1);
        entries.put(StringData.fromString("a"), 2);
        RowType type = rowType(DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()));
        assertThat(sameOutcome("null-map-key", type, GenericRowData.of(new GenericMapData(entries)), true, false))
                .isEmpty();
    }

    @Test
    void nullInNotNullColumnFailsOnBothSides() throws Exception {
        RowType type = rowType(DataTypes.BIGINT().notNull(), DataTypes.STRING());
        assertThat(sameOutcome("null-not-null", type, GenericRowData.of(null, StringData.fromString("x")), true))
                .isEmpty();
        RowType nested = rowType(DataTypes.ROW(DataTypes.FIELD("x", DataTypes.INT().notNull())));
        assertThat(sameOutcome("null-not-null-nested", nested, GenericRowData.of(GenericRowData.of((Object) null)), true))
                .isEmpty();
    }

    /**
     * A DECIMAL value with more digits than its column's precision (SQL casts never produce one: they
     * give NULL; a user function or a Java DataStream can). Flink writes the unscaled value as it is.
     */
    @Test
    void decimalBeyondItsPrecisionHasFlinksOutcome() throws Exception {
        List<String> problems = new ArrayList<>();
        // compact column (precision <= 18): 8 digits in DECIMAL(5, 2)
        problems.addAll(sameOutcome("decimal-compact-overflow", rowType(DataTypes.DECIMAL(5, 2)),
                GenericRowData.of(DecimalData.fromUnscaledLong(12345678L, 5, 2)), false));
        // non-compact column: 25 digits in DECIMAL(20, 2)
        problems.addAll(sameOutcome("decimal-wide-overflow", rowType(DataTypes.DECIMAL(20, 2)),
                GenericRowData.of(DecimalData.fromUnscaledBytes(
                        new BigDecimal("1234567890123456789012345").toBigInteger().toByteArray(), 20, 2)), false));
        // negative, and at the edge of the 16 bytes a non-compact binary slot holds
        problems.addAll(sameOutcome("decimal-wide-overflow-negative", rowType(DataTypes.DECIMAL(38, 0)),
                GenericRowData.of(DecimalData.fromUnscaledBytes(
                        new BigDecimal("-99999999999999999999999999999999999999").toBigInteger().toByteArray(), 38, 0)), false));
        assertThat(problems).isEmpty();
    }
}

package io.karrow.flink.formats.avro;

import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.ValueBatchEncoder;
import io.karrow.flink.formats.avro.reference.ReferenceSerializers;
import io.karrow.flink.formats.registry.RegistryDecoderConfig;
import io.karrow.flink.formats.registry.RegistryEncoderConfig;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.rows.BinaryRowImages;
import io.karrow.flink.testutils.DevRegistry;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * What a Java row holds beyond its binary image reaches {@code avro-confluent-native}'s output as
 * Flink's {@code avro-confluent} writes it, for generated {@code GenericRowData} (what a stock JSON
 * or Protobuf source, a user function or a DataStream hands a sink):
 *
 * <ul>
 *   <li>a lone UTF-16 surrogate in a map key: flink-avro puts {@code StringData.toString()} into a
 *       {@code HashMap<String, Object>}, so the surrogate takes part in the key's hash (the entry
 *       order) and equality ({@code "a\uD800"} and {@code "a?"} are two keys), then Avro writes it
 *       as {@code '?'}; a binary image holds {@code '?'} already (other order, merged keys);
 *   <li>lone surrogates in strings inside arrays, maps (values) and nested rows, and compact
 *       timestamps with sub-millisecond nanos, which the marked images carry alongside;
 *   <li>NaNs with a payload (or the sign bit) as FLOAT / DOUBLE array elements and map values: Avro
 *       writes {@code floatToRawIntBits}, {@code BinaryArrayWriter} stores the canonical NaN.
 * </ul>
 *
 * <p>Every row is encoded by Flink and by native per record and through the batch encoder the
 * {@code kafka-native} sink uses; the bytes must be equal exactly, and Flink's bytes for the row's
 * {@code BinaryRowData} copy equal native's for it. The corpus is checked to be one a binary image
 * changes: Flink writes other bytes for many of its rows once they are binary.
 */
class AvroConfluentNativeJavaDetailParityTest {

    private static final String TYPE = "ROW<m MAP<STRING, STRING>, a ARRAY<STRING>,"
            + " r ROW<s STRING, t TIMESTAMP(3), m MAP<STRING, INT>>, am ARRAY<MAP<STRING, DOUBLE>>,"
            + " f ARRAY<FLOAT>, d ARRAY<DOUBLE>, md MAP<STRING, FLOAT>, rf ARRAY<ROW<x FLOAT, y DOUBLE>>,"
            + " t TIMESTAMP(3), s STRING, ms MULTISET<STRING>, x FLOAT, i INT>";
    private static final int ROWS = 3_000;

    private static final String[] PIECES = {"a", "é", "\u20ac", "\uD83D\uDE00", "\uD83D", "\uDE00", "\uDBFF",
        "\uDC00\uD800", "?", "??", "k"};

    private static DevRegistry registry;

    @BeforeAll
    static void startRegistry() throws Exception {
        registry = DevRegistry.start();
    }

    @AfterAll
    static void stopRegistry() {
        if (registry != null) {
            registry.close();
        }
    }

    @Test
    void generatedGenericRowsEncodeAsFlinkAvroWritesThem() throws Exception {
        RowType rowType = (RowType) LogicalTypeParser.parse(TYPE, getClass().getClassLoader()).copy(false);
        SplittableRandom random = new SplittableRandom(23);
        List<GenericRowData> rows = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            rows.add(row(random));
        }
        SerializationSchema<RowData> flink =
                ReferenceSerializers.create(rowType, registry.url(), "detail-oracle-value", null);
        flink.open(null);
        RegistryDecoderConfig registryConfig =
                new RegistryDecoderConfig(registry.url(), null, null, null, null, null, null, null, Map.of());
        AvroConfluentNativeSerializationSchema karrow = new AvroConfluentNativeSerializationSchema(
                rowType, new RegistryEncoderConfig(registryConfig, "detail-native-value"));
        karrow.open(null);
        RowDataSerializer toBinary = new RowDataSerializer(rowType);
        List<String> problems = new ArrayList<>();
        int lostInBinary = 0;
        int mapKeysLost = 0;
        int nanLost = 0;
        try (ValueBatchEncoder batch = karrow.createBatchEncoder();
             DirectValueBuffer images = new DirectValueBuffer()) {
            assertThat(batch.keepsJavaDetail()).isTrue();
            BinaryRowImages imager = new BinaryRowImages(rowType, !batch.acceptsNullMapKeys(), batch.keepsJavaDetail());
            List<byte[]> expected = new ArrayList<>();
            for (int i = 0; i < rows.size(); i++) {
                GenericRowData row = rows.get(i);
                byte[] stock = flink.serialize(row);
                expected.add(stock);
                byte[] own = karrow.serialize(row);
                if (!Arrays.equals(stock, own)) {
                    problems.add("row " + i + ": flink " + hex(stock) + " / native " + hex(own));
                }
                RowData binary = toBinary.toBinaryRow(row).copy();
                byte[] stockBinary = flink.serialize(binary);
                if (!Arrays.equals(stockBinary, karrow.serialize(binary))) {
                    problems.add("row " + i + " (binary): flink " + hex(stockBinary) + " / native "
                            + hex(karrow.serialize(binary)));
                }
                if (!Arrays.equals(stock, stockBinary)) {
                    lostInBinary++;
                    // which detail: the same row without NaN payloads / without surrogate keys
                    if (!Arrays.equals(flink.serialize(withoutNaNPayloads(row)),
                            flink.serialize(toBinary.toBinaryRow(withoutNaNPayloads(row))))) {
                        mapKeysLost++;
                    } else {
                        nanLost++;
                    }
                }
                images.add(imager.image(row).clone());
            }
            int[] offsets = new int[rows.size() + 1];
            byte[] all = batch.encode(images, rows.size(), offsets);
            for (int i = 0; i < rows.size(); i++) {
                byte[] batched = Arrays.copyOfRange(all, offsets[i], offsets[i + 1]);
                if (!Arrays.equals(expected.get(i), batched)) {
                    problems.add("row " + i + " batched: flink " + hex(expected.get(i)) + " / native " + hex(batched));
                }
            }
        } finally {
            karrow.close();
        }
        System.out.printf("avro java detail parity: %d rows, %d that a binary image changes (%d by surrogate map "
                + "keys, %d by NaN payloads only), %d problems%n", rows.size(), lostInBinary, mapKeysLost, nanLost,
                problems.size());
        assertThat(mapKeysLost).as("rows whose surrogate map keys a binary image changes").isGreaterThan(ROWS / 10);
        assertThat(nanLost).as("rows whose NaN payloads alone a binary image changes").isGreaterThan(ROWS / 20);
        assertThat(problems.subList(0, Math.min(10, problems.size()))).as("%d problems", problems.size()).isEmpty();
    }

    private static GenericRowData row(SplittableRandom random) {
        Map<StringData, StringData> m = new LinkedHashMap<>();
        for (int e = random.nextInt(6); e > 0; e--) {
            m.put(key(random), string(random));
        }
        Object[] a = new Object[random.nextInt(4)];
        for (int e = 0; e < a.length; e++) {
            a[e] = string(random);
        }
        Map<StringData, Integer> rm = new LinkedHashMap<>();
        for (int e = random.nextInt(4); e > 0; e--) {
            rm.put(key(random), random.nextInt(5) == 0 ? null : random.nextInt(100));
        }
        Object[] am = new Object[random.nextInt(3)];
        for (int e = 0; e < am.length; e++) {
            Map<StringData, Double> inner = new LinkedHashMap<>();
            for (int k = random.nextInt(4); k > 0; k--) {
                inner.put(key(random), random.nextInt(6) == 0 ? null : aDouble(random));
            }
            am[e] = new GenericMapData(inner);
        }
        Object[] f = new Object[random.nextInt(4)];
        for (int e = 0; e < f.length; e++) {
            f[e] = random.nextInt(6) == 0 ? null : aFloat(random);
        }
        Object[] d = new Object[random.nextInt(4)];
        for (int e = 0; e < d.length; e++) {
            d[e] = random.nextInt(6) == 0 ? null : aDouble(random);
        }
        Map<StringData, Float> md = new LinkedHashMap<>();
        for (int e = random.nextInt(3); e > 0; e--) {
            md.put(key(random), aFloat(random));
        }
        Object[] rf = new Object[random.nextInt(3)];
        for (int e = 0; e < rf.length; e++) {
            // a row inside an array keeps its fields' bits in Flink's layout too (BinaryRowWriter)
            rf[e] = GenericRowData.of(aFloat(random), aDouble(random));
        }
        Map<StringData, Integer> ms = new LinkedHashMap<>();
        for (int e = random.nextInt(4); e > 0; e--) {
            ms.put(key(random), 1 + random.nextInt(3));
        }
        return GenericRowData.of(
                random.nextInt(10) == 0 ? null : new GenericMapData(m),
                new GenericArrayData(a),
                GenericRowData.of(string(random), timestamp(random), new GenericMapData(rm)),
                new GenericArrayData(am),
                random.nextBoolean() ? new GenericArrayData(f) : new GenericArrayData(primitiveFloats(f)),
                new GenericArrayData(d),
                new GenericMapData(md),
                new GenericArrayData(rf),
                timestamp(random),
                string(random),
                new GenericMapData(ms),
                aFloat(random),
                random.nextInt());
    }

    /** The elements as a primitive array (nulls as 0), which Flink's array serializer copies as they are. */
    private static float[] primitiveFloats(Object[] items) {
        float[] out = new float[items.length];
        for (int i = 0; i < items.length; i++) {
            out[i] = items[i] == null ? 0f : (Float) items[i];
        }
        return out;
    }

    /** Half plain values, the rest NaNs: canonical, with a payload, with the sign bit, signalling. */
    private static Float aFloat(SplittableRandom random) {
        switch (random.nextInt(8)) {
            case 0:
                return Float.NaN;
            case 1:
                return Float.intBitsToFloat(0x7fc00000 | (1 + random.nextInt(0x3fffff)));
            case 2:
                return Float.intBitsToFloat(0xffc00000);
            case 3:
                return Float.intBitsToFloat(0x7f800000 | (1 + random.nextInt(0x3fffff)));
            default:
                return (float) random.nextDouble(-1e6, 1e6);
        }
    }

    private static Double aDouble(SplittableRandom random) {
        switch (random.nextInt(8)) {
            case 0:
                return Double.NaN;
            case 1:
                return Double.longBitsToDouble(0x7ff8000000000000L | (1 + random.nextLong(0x7ffffffffffffL)));
            case 2:
                return Double.longBitsToDouble(0xfff8000000000000L);
            case 3:
                return Double.longBitsToDouble(0x7ff0000000000000L | (1 + random.nextLong(0x7ffffffffffffL)));
            default:
                return random.nextDouble(-1e12, 1e12);
        }
    }

    /** {@code row} with every NaN (at any depth) the canonical one; everything else as it is. */
    private static GenericRowData withoutNaNPayloads(GenericRowData row) {
        GenericRowData copy = new GenericRowData(row.getRowKind(), row.getArity());
        for (int i = 0; i < row.getArity(); i++) {
            copy.setField(i, canonical(row.getField(i)));
        }
        return copy;
    }

    private static Object canonical(Object value) {
        if (value instanceof Float) {
            return Float.isNaN((Float) value) ? Float.NaN : value;
        }
        if (value instanceof Double) {
            return Double.isNaN((Double) value) ? Double.NaN : value;
        }
        if (value instanceof GenericRowData) {
            return withoutNaNPayloads((GenericRowData) value);
        }
        if (value instanceof GenericArrayData) {
            GenericArrayData array = (GenericArrayData) value;
            if (array.isPrimitiveArray()) {
                float[] items = array.toFloatArray().clone(); // toFloatArray() is the array itself
                for (int i = 0; i < items.length; i++) {
                    items[i] = Float.isNaN(items[i]) ? Float.NaN : items[i];
                }
                return new GenericArrayData(items);
            }
            Object[] items = array.toObjectArray();
            Object[] out = new Object[items.length];
            for (int i = 0; i < items.length; i++) {
                out[i] = canonical(items[i]);
            }
            return new GenericArrayData(out);
        }
        if (value instanceof GenericMapData) {
            GenericMapData map = (GenericMapData) value;
            Object[] keys = ((GenericArrayData) map.keyArray()).toObjectArray();
            Map<Object, Object> out = new LinkedHashMap<>();
            for (Object k : keys) {
                out.put(k, canonical(map.get(k)));
            }
            return new GenericMapData(out);
        }
        return value;
    }

    /** A string made of {@link #PIECES}, never null (map keys): many differ only in a lone surrogate. */
    private static StringData key(SplittableRandom random) {
        StringBuilder out = new StringBuilder();
        for (int n = 1 + random.nextInt(3); n > 0; n--) {
            out.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return StringData.fromString(out.toString());
    }

    private static StringData string(SplittableRandom random) {
        return random.nextInt(10) == 0 ? null : key(random);
    }

    /** Epoch millis from year 1 to 9999, half with sub-millisecond nanos. */
    private static TimestampData timestamp(SplittableRandom random) {
        if (random.nextInt(10) == 0) {
            return null;
        }
        long millis = random.nextLong(-62_135_596_800_000L, 253_402_300_799_999L);
        return TimestampData.fromEpochMillis(millis, random.nextBoolean() ? 0 : random.nextInt(1_000_000));
    }

    private static String hex(byte[] bytes) {
        return bytes == null ? "null" : HexFormat.of().formatHex(bytes);
    }
}

package io.karrow.flink.formats.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.BatchSerializationSchema;
import io.karrow.flink.formats.ValueBatchEncoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.rows.BinaryRowImages;

import org.apache.flink.api.common.serialization.DeserializationSchema;
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
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * What a Java row holds beyond its binary image reaches json-native's output as flink-json writes
 * it: a {@code TimestampData} of a TIMESTAMP / TIMESTAMP_LTZ of precision at most 3 with
 * sub-millisecond nanoseconds (flink-json prints every digit, a binary image keeps milliseconds) and
 * a string with a lone UTF-16 surrogate (flink-json writes Jackson's escape, a binary image holds
 * {@code '?'}), at the top level and inside rows, arrays, maps (keys and values) and multisets, next
 * to binary structures inside a generic row.
 *
 * <p>The rows come from flink-json's own decoder (a pass-through job: stock source, native sink)
 * and from generated {@code GenericRowData}. Each is encoded by flink-json and by json-native per
 * record and through the batch encoder the {@code kafka-native} sink uses, under both timestamp
 * standards; the bytes must be equal exactly. The corpus is checked to hold such details: flink-json
 * writes other bytes for many of its rows once they are stored as {@code BinaryRowData}.
 */
class JsonJavaDetailParityTest {

    private static final String TYPE = "ROW<t TIMESTAMP(3), l TIMESTAMP_LTZ(3), t0 TIMESTAMP(0), t6 TIMESTAMP(6),"
            + " s STRING, c CHAR(3), a ARRAY<TIMESTAMP(3)>, m MAP<STRING, ROW<n TIMESTAMP_LTZ(2), s STRING>>,"
            + " ms MULTISET<STRING>, r ROW<t TIMESTAMP(3), x INT, b ROW<t TIMESTAMP(1), s STRING>>, i INT>";
    private static final int ROWS = 3_000;

    private static final String[] PIECES = {"a", "é", "\u20ac", "\uD83D\uDE00", "\uD83D", "\uDE00", "\uDBFF",
        "\uDC00\uD800", "\"", "\\u", "?", "\u0001"};

    @Test
    void rowsFromFlinkJsonsDecoderPassThroughUnchanged() throws Exception {
        RowType rowType = type(TYPE);
        SplittableRandom random = new SplittableRandom(41);
        for (String standard : new String[] {"SQL", "ISO-8601"}) {
            Map<String, String> options = Map.of("timestamp-format.standard", standard);
            DeserializationSchema<RowData> source = JsonParityHarness.decoder(JsonParityHarness.ORACLE, rowType,
                    options, false);
            List<RowData> rows = new ArrayList<>();
            for (int i = 0; i < ROWS; i++) {
                byte[] json = jsonText(random, standard.equals("SQL")).getBytes(StandardCharsets.UTF_8);
                RowData row = source.deserialize(json);
                assertThat(row).as(new String(json, StandardCharsets.UTF_8)).isInstanceOf(GenericRowData.class);
                rows.add(row);
            }
            assertEncodedAlike(rowType, options, rows);
        }
    }

    @Test
    void generatedGenericRowsWithBinaryStructuresInside() throws Exception {
        RowType rowType = type(TYPE);
        RowType inner = (RowType) ((RowType) rowType.getTypeAt(9)).getTypeAt(2);
        RowDataSerializer innerBinary = new RowDataSerializer(inner);
        SplittableRandom random = new SplittableRandom(43);
        List<RowData> rows = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            GenericRowData b = GenericRowData.of(timestamp(random), string(random));
            Map<StringData, RowData> map = new HashMap<>();
            Map<StringData, Integer> multiset = new LinkedHashMap<>();
            for (int e = random.nextInt(4); e > 0; e--) {
                map.put(key(random), GenericRowData.of(timestamp(random), string(random)));
                multiset.put(key(random), random.nextInt(3));
            }
            Object[] array = new Object[random.nextInt(4)];
            for (int e = 0; e < array.length; e++) {
                array[e] = random.nextInt(5) == 0 ? null : timestamp(random);
            }
            rows.add(GenericRowData.of(timestamp(random), timestamp(random), timestamp(random), timestamp(random),
                    string(random), StringData.fromString(random.nextBoolean() ? "\uD83Dx" : "abc"),
                    new GenericArrayData(array), new GenericMapData(map), new GenericMapData(multiset),
                    GenericRowData.of(timestamp(random), random.nextInt(),
                            // A binary structure inside a generic row holds no detail but sits in the image.
                            random.nextBoolean() ? innerBinary.toBinaryRow(b).copy() : b),
                    random.nextInt()));
        }
        assertEncodedAlike(rowType, Map.of(), rows);
        assertEncodedAlike(rowType, Map.of("timestamp-format.standard", "ISO-8601", "encode.ignore-null-fields",
                "true"), rows);
    }

    /** flink-json and json-native (per record and batched) write the same bytes for every row. */
    private static void assertEncodedAlike(RowType rowType, Map<String, String> options, List<RowData> rows)
            throws Exception {
        SerializationSchema<RowData> flink = JsonParityHarness.encoder(JsonParityHarness.ORACLE, rowType, options);
        SerializationSchema<RowData> karrow = JsonParityHarness.encoder(JsonParityHarness.NATIVE, rowType, options);
        RowDataSerializer toBinary = new RowDataSerializer(rowType);
        List<String> problems = new ArrayList<>();
        int lostInBinary = 0;
        try (ValueBatchEncoder batch = ((BatchSerializationSchema) karrow).createBatchEncoder();
             DirectValueBuffer images = new DirectValueBuffer()) {
            assertThat(batch.keepsJavaDetail()).isTrue();
            BinaryRowImages imager = new BinaryRowImages(rowType, !batch.acceptsNullMapKeys(), batch.keepsJavaDetail());
            List<byte[]> expected = new ArrayList<>();
            for (RowData row : rows) {
                byte[] stock = flink.serialize(row);
                expected.add(stock);
                byte[] own = karrow.serialize(row);
                if (!Arrays.equals(stock, own)) {
                    problems.add(text(stock) + " (flink-json) vs " + text(own) + " (json-native) for " + row);
                }
                if (!Arrays.equals(stock, flink.serialize(toBinary.toBinaryRow(row)))) {
                    lostInBinary++;
                }
                images.add(imager.image(row).clone());
            }
            int[] offsets = new int[rows.size() + 1];
            byte[] all = batch.encode(images, rows.size(), offsets);
            for (int i = 0; i < rows.size(); i++) {
                byte[] batched = Arrays.copyOfRange(all, offsets[i], offsets[i + 1]);
                if (!Arrays.equals(expected.get(i), batched)) {
                    problems.add(text(expected.get(i)) + " (flink-json) vs " + text(batched) + " (batched) for "
                            + rows.get(i));
                }
            }
        } finally {
            JsonParityHarness.closeQuietly(karrow);
        }
        System.out.printf("java detail parity %s: %d rows, %d that a binary image changes, %d problems%n", options,
                rows.size(), lostInBinary, problems.size());
        assertThat(lostInBinary).as("rows whose details a binary image loses").isGreaterThan(rows.size() / 4);
        assertThat(problems.subList(0, Math.min(10, problems.size()))).as("%d rows differ", problems.size()).isEmpty();
    }

    private static RowType type(String sql) {
        return (RowType) LogicalTypeParser.parse(sql, JsonJavaDetailParityTest.class.getClassLoader()).copy(false);
    }

    private static String jsonText(SplittableRandom random, boolean sql) {
        StringBuilder out = new StringBuilder("{");
        out.append("\"t\":").append(timestampText(random, sql, false));
        out.append(",\"l\":").append(timestampText(random, sql, true));
        out.append(",\"t0\":").append(timestampText(random, sql, false));
        out.append(",\"t6\":").append(timestampText(random, sql, false));
        out.append(",\"s\":").append(stringText(random));
        out.append(",\"c\":").append(stringText(random));
        out.append(",\"a\":[");
        for (int e = random.nextInt(4); e > 0; e--) {
            out.append(timestampText(random, sql, false)).append(e > 1 ? "," : "");
        }
        out.append("],\"m\":{");
        for (int e = random.nextInt(4); e > 0; e--) {
            out.append(stringText(random)).append(":{\"n\":").append(timestampText(random, sql, true))
                    .append(",\"s\":").append(stringText(random)).append('}').append(e > 1 ? "," : "");
        }
        out.append("},\"ms\":{");
        for (int e = random.nextInt(3); e > 0; e--) {
            out.append(stringText(random)).append(':').append(random.nextInt(3)).append(e > 1 ? "," : "");
        }
        out.append("},\"r\":{\"t\":").append(timestampText(random, sql, false)).append(",\"x\":7,\"b\":{\"t\":")
                .append(timestampText(random, sql, false)).append(",\"s\":").append(stringText(random))
                .append("}},\"i\":").append(random.nextInt()).append('}');
        return out.toString();
    }

    private static String timestampText(SplittableRandom random, boolean sql, boolean ltz) {
        if (random.nextInt(8) == 0) {
            return "null";
        }
        TimestampData ts = timestamp(random);
        while (ts == null) {
            ts = timestamp(random);
        }
        String text = ts.toLocalDateTime().toString();
        if (text.length() == 16) {
            text += ":00";
        }
        return "\"" + (sql ? text.replace('T', ' ') : text) + (ltz ? "Z" : "") + "\"";
    }

    /** A JSON string literal made of {@link #PIECES}, lone surrogates escaped (as raw UTF-8 they cannot be sent). */
    private static String stringText(SplittableRandom random) {
        StringBuilder out = new StringBuilder("\"");
        for (int n = random.nextInt(5); n > 0; n--) {
            String piece = PIECES[random.nextInt(PIECES.length)];
            for (char c : piece.toCharArray()) {
                if (Character.isSurrogate(c) || c < 0x20 || c == '"' || c == '\\') {
                    out.append(String.format("\\u%04x", (int) c));
                } else {
                    out.append(c);
                }
            }
        }
        return out.append('"').toString();
    }

    private static StringData string(SplittableRandom random) {
        return random.nextInt(10) == 0 ? null : key(random);
    }

    /** A string made of {@link #PIECES}, never null (map keys). */
    private static StringData key(SplittableRandom random) {
        StringBuilder out = new StringBuilder();
        for (int n = random.nextInt(5); n > 0; n--) {
            out.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return StringData.fromString(out.toString());
    }

    /** Epoch millis from year 1 to 9999, half with sub-millisecond nanos. */
    private static TimestampData timestamp(SplittableRandom random) {
        if (random.nextInt(10) == 0) {
            return null;
        }
        long millis = random.nextLong(-62_135_596_800_000L, 253_402_300_799_999L);
        int nanos = random.nextBoolean() ? 0 : random.nextInt(1_000_000);
        return TimestampData.fromEpochMillis(millis, nanos);
    }

    private static String text(byte[] bytes) {
        return "'" + new String(bytes, StandardCharsets.UTF_8) + "'";
    }
}

package io.karrow.flink.formats.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.karrow.flink.formats.ValueBatchEncoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.rows.BinaryRowImages;
import io.karrow.flink.testutils.RowDataDiff;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code json-native} serializer against Flink's {@code json} (flink-json 2.2.0): the same bytes
 * for generic and binary rows under several option sets, the same failure for a NULL map key in
 * {@code FAIL} mode, the batch encoder equal to the per-record path, and a round trip through the
 * native deserializer.
 */
class JsonNativeSerializationSchemaTest {

    private static final DataType PHYSICAL = DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.BIGINT()),
                    DataTypes.FIELD("name", DataTypes.STRING()),
                    DataTypes.FIELD("price", DataTypes.DECIMAL(10, 2)),
                    DataTypes.FIELD("score", DataTypes.DOUBLE()),
                    DataTypes.FIELD("tags", DataTypes.ARRAY(DataTypes.STRING())),
                    DataTypes.FIELD("attrs", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())),
                    DataTypes.FIELD("ts", DataTypes.TIMESTAMP(6)),
                    DataTypes.FIELD("nested", DataTypes.ROW(
                            DataTypes.FIELD("x", DataTypes.INT()), DataTypes.FIELD("s", DataTypes.STRING()))))
            .notNull();
    private static final RowType ROW_TYPE = (RowType) PHYSICAL.getLogicalType();

    private static GenericRowData row(long id, String name, String price, Double score, String[] tags,
            Map<StringData, Integer> attrs, TimestampData ts, RowData nested) {
        return GenericRowData.of(
                id,
                name == null ? null : StringData.fromString(name),
                price == null ? null : DecimalData.fromBigDecimal(new BigDecimal(price), 10, 2),
                score,
                tags == null ? null : new GenericArrayData(Arrays.stream(tags).map(StringData::fromString).toArray()),
                attrs == null ? null : new GenericMapData(attrs),
                ts,
                nested);
    }

    private static List<RowData> rows() {
        Map<StringData, Integer> nullKey = new HashMap<>();
        nullKey.put(null, 2);
        return List.of(
                row(1, "plain", "1.50", 0.1, new String[] {"a", "b"}, Map.of(StringData.fromString("k"), 1),
                        TimestampData.fromEpochMillis(1500), GenericRowData.of(7, StringData.fromString("n"))),
                row(2, "esc \" \\ \n \u0001 é \uD83D\uDE00", "100.00", 1.0E7, new String[0], Map.of(),
                        TimestampData.fromEpochMillis(1000, 1000), null),
                row(3, null, null, Double.NaN, null, null, null, GenericRowData.of(null, null)),
                row(4, "map", "-0.10", -0.0, new String[] {null}, nullKey, TimestampData.fromEpochMillis(-1), null));
    }

    private static byte[] nativeBytes(SerializationSchema<RowData> schema, RowData row) {
        return schema.serialize(row);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Test
    void writesTheBytesFlinksJsonWrites() throws Exception {
        RowDataSerializer toBinary = new RowDataSerializer(ROW_TYPE);
        for (Map<String, String> options : List.of(
                Map.of("map-null-key.mode", "LITERAL"),
                Map.of("map-null-key.mode", "drop", "encode.ignore-null-fields", "true"),
                Map.of("map-null-key.mode", "literal", "map-null-key.literal", "<null>",
                        "encode.decimal-as-plain-number", "true", "timestamp-format.standard", "ISO-8601"))) {
            SerializationSchema<RowData> flink = JsonNativeTestSupport.encoder("json", PHYSICAL, options);
            try (JsonNativeSerializationSchema karrow = (JsonNativeSerializationSchema)
                    JsonNativeTestSupport.encoder(JsonNativeFormatFactory.IDENTIFIER, PHYSICAL, options)) {
                for (RowData row : rows()) {
                    String expected = text(flink.serialize(row));
                    assertThat(text(nativeBytes(karrow, row))).as("%s %s", options, row).isEqualTo(expected);
                    assertThat(text(nativeBytes(karrow, toBinary.toBinaryRow(row).copy())))
                            .as("binary %s %s", options, row)
                            .isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void nullMapKeyFailsAsInFlinkByDefault() throws Exception {
        RowData row = rows().get(3);
        SerializationSchema<RowData> flink = JsonNativeTestSupport.encoder("json", PHYSICAL, Map.of());
        Throwable expected = catchThrowable(() -> flink.serialize(row));
        try (JsonNativeSerializationSchema karrow = (JsonNativeSerializationSchema)
                JsonNativeTestSupport.encoder(JsonNativeFormatFactory.IDENTIFIER, PHYSICAL, Map.of())) {
            Throwable actual = catchThrowable(() -> karrow.serialize(row));
            assertThat(actual).isInstanceOf(expected.getClass()).hasMessage(expected.getMessage());
            assertThat(actual).hasCauseInstanceOf(KarrowNativeException.class);
            assertThat(actual.getCause()).hasMessageContaining("null keys");
            // The next row encodes normally.
            assertThat(text(karrow.serialize(rows().get(0)))).isEqualTo(text(flink.serialize(rows().get(0))));
        }
    }

    @Test
    void batchEncoderMatchesThePerRecordPathAndNamesAFailingRow() throws Exception {
        Map<String, String> options = Map.of("map-null-key.mode", "DROP");
        try (JsonNativeSerializationSchema karrow = (JsonNativeSerializationSchema)
                        JsonNativeTestSupport.encoder(JsonNativeFormatFactory.IDENTIFIER, PHYSICAL, options);
             ValueBatchEncoder batch = karrow.createBatchEncoder();
             DirectValueBuffer images = new DirectValueBuffer()) {
            assertThat(batch.rowType()).isEqualTo(ROW_TYPE);
            assertThat(batch.acceptsNullMapKeys()).isTrue();
            BinaryRowImages imager = new BinaryRowImages(ROW_TYPE, !batch.acceptsNullMapKeys());
            List<RowData> rows = rows();
            for (RowData row : rows) {
                images.add(imager.image(row).clone());
            }
            int[] offsets = new int[rows.size() + 1];
            byte[] all = batch.encode(images, rows.size(), offsets);
            assertThat(offsets[0]).isZero();
            assertThat(offsets[rows.size()]).isEqualTo(all.length);
            for (int i = 0; i < rows.size(); i++) {
                assertThat(text(Arrays.copyOfRange(all, offsets[i], offsets[i + 1])))
                        .isEqualTo(text(karrow.serialize(rows.get(i))));
            }
        }
        try (JsonNativeSerializationSchema failing = (JsonNativeSerializationSchema)
                        JsonNativeTestSupport.encoder(JsonNativeFormatFactory.IDENTIFIER, PHYSICAL, Map.of());
             ValueBatchEncoder batch = failing.createBatchEncoder();
             DirectValueBuffer images = new DirectValueBuffer()) {
            BinaryRowImages imager = new BinaryRowImages(ROW_TYPE, false);
            for (RowData row : rows()) {
                images.add(imager.image(row).clone());
            }
            Throwable t = catchThrowable(() -> batch.encode(images, 4, new int[5]));
            assertThat(t).isInstanceOf(KarrowNativeException.class);
            assertThat(((KarrowNativeException) t).getRecordIndex()).isEqualTo(3);
            assertThat(batch.encode(images, 3, new int[4])).isNotEmpty();
        }
    }

    @Test
    void roundTripsThroughTheNativeDeserializer() throws Exception {
        Map<String, String> options = Map.of("timestamp-format.standard", "ISO-8601");
        DeserializationSchema<RowData> decoder =
                JsonNativeTestSupport.decoder(JsonNativeFormatFactory.IDENTIFIER, PHYSICAL, options, false);
        try (JsonNativeSerializationSchema encoder = (JsonNativeSerializationSchema)
                JsonNativeTestSupport.encoder(JsonNativeFormatFactory.IDENTIFIER, PHYSICAL, options)) {
            List<RowData> rows = new ArrayList<>(rows().subList(0, 3));
            for (RowData row : rows) {
                RowData back = decoder.deserialize(encoder.serialize(row));
                assertThat(RowDataDiff.diff(ROW_TYPE, row, back)).as("%s", row).isNull();
            }
        }
        ((AutoCloseable) decoder).close();
    }

    /**
     * Rows and values larger than the per-record call's first direct buffers (4 KiB): the native call
     * reports the size, the buffer grows and the call runs again, with Flink's bytes and rows as the
     * result each time, in both directions and with small rows in between.
     */
    @Test
    void valuesLargerThanTheFirstDirectBuffersRoundTrip() throws Exception {
        Map<String, String> options = Map.of("timestamp-format.standard", "ISO-8601");
        SerializationSchema<RowData> flinkEncoder = JsonNativeTestSupport.encoder("json", PHYSICAL, options);
        DeserializationSchema<RowData> flinkDecoder = JsonNativeTestSupport.decoder("json", PHYSICAL, options, false);
        DeserializationSchema<RowData> decoder =
                JsonNativeTestSupport.decoder(JsonNativeFormatFactory.IDENTIFIER, PHYSICAL, options, false);
        try (JsonNativeSerializationSchema encoder = (JsonNativeSerializationSchema)
                JsonNativeTestSupport.encoder(JsonNativeFormatFactory.IDENTIFIER, PHYSICAL, options)) {
            String[] tags = new String[3000];
            Arrays.fill(tags, "tag-é");
            for (int size : new int[] {10, 5_000, 70_000, 10, 300_000}) {
                RowData row = row(size, "é".repeat(size), "1.50", 2.5, size > 10 ? tags : new String[] {"t"},
                        Map.of(StringData.fromString("k"), size), TimestampData.fromEpochMillis(size), null);
                byte[] expected = flinkEncoder.serialize(row);
                byte[] actual = encoder.serialize(row);
                assertThat(text(actual)).as("bytes of the %d-character row", size).isEqualTo(text(expected));
                RowData back = decoder.deserialize(actual);
                assertThat(RowDataDiff.diff(ROW_TYPE, flinkDecoder.deserialize(expected), back))
                        .as("row decoded from %d bytes", actual.length).isNull();
            }
        }
        ((AutoCloseable) decoder).close();
    }
}

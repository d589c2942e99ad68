package io.karrow.flink.formats.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.karrow.flink.formats.BatchDeserializationSchema;
import io.karrow.flink.formats.DecodedValues;
import io.karrow.flink.formats.NativeBatchEncoder;
import io.karrow.flink.formats.ValueBatchDecoder;
import io.karrow.flink.formats.ValueBatchEncoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.rows.BinaryRowImages;
import io.karrow.flink.testutils.DevRegistry;
import io.karrow.flink.testutils.RowDataDiff;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code json-confluent-native} schemas with the native library and the dev registry: framed values
 * decode to the rows {@code json-native} gives for their payloads (per record and per batch), the
 * header is checked, schema ids are validated on request, and writing registers a JSON schema whose id
 * frames exactly the bytes {@code json-native} writes.
 */
class JsonConfluentNativeSchemaTest {

    private static final String ID = JsonConfluentNativeFormatFactory.IDENTIFIER;
    private static final DataType PHYSICAL = DataTypes.ROW(
            DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
            DataTypes.FIELD("name", DataTypes.STRING()),
            DataTypes.FIELD("price", DataTypes.DECIMAL(10, 2)),
            DataTypes.FIELD("tags", DataTypes.ARRAY(DataTypes.STRING()))).notNull();
    private static final RowType ROW_TYPE = (RowType) PHYSICAL.getLogicalType();

    @RegisterExtension
    static final DevRegistry registry = DevRegistry.perClass();

    private static Map<String, String> options(String... keyValues) {
        Map<String, String> map = new HashMap<>();
        map.put("url", registry.url());
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return map;
    }

    /** Confluent's wire format: 0x00, the id (big-endian), the JSON text. */
    private static byte[] framed(int schemaId, String json) {
        byte[] payload = json.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(5 + payload.length).put((byte) 0).putInt(schemaId).put(payload).array();
    }

    private static List<RowData> rows(DeserializationSchema<RowData> schema, byte[] value) throws IOException {
        List<RowData> out = new ArrayList<>();
        schema.deserialize(value, new Collector<>() {
            @Override
            public void collect(RowData record) {
                out.add(record);
            }

            @Override
            public void close() {}
        });
        return out;
    }

    private static void assertSameRows(List<RowData> expected, List<RowData> actual) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(RowDataDiff.diff(ROW_TYPE, expected.get(i), actual.get(i))).as("row %d", i).isNull();
        }
    }

    private static String messages(Throwable t) {
        StringBuilder s = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            s.append(c.getMessage()).append(" | ");
        }
        return s.toString();
    }

    private static final List<String> PAYLOADS = List.of(
            "{\"id\":1,\"name\":\"a\",\"price\":1.005,\"tags\":[\"x\",null]}",
            "[{\"id\":2},{\"id\":\"3\",\"price\":\"12.5\",\"extra\":{}}]",
            "[]",
            "",
            "{\"name\":\"no id\"} trailing");

    @Test
    void framedValuesGiveJsonNativesRowsForTheirPayloads() throws Exception {
        for (boolean generic : new boolean[] {false, true}) {
            DeserializationSchema<RowData> plain = JsonNativeTestSupport.decoder("json-native", PHYSICAL, Map.of(), generic);
            DeserializationSchema<RowData> confluent = JsonNativeTestSupport.decoder(ID, PHYSICAL, options(), generic);
            int schemaId = 1000;
            for (String payload : PAYLOADS) {
                byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
                assertSameRows(rows(plain, bytes), rows(confluent, framed(schemaId++, payload)));
            }
            assertThat(rows(confluent, null)).isEmpty();
            assertThat(confluent.deserialize(framed(7, "[]"))).isNull();
            ((AutoCloseable) plain).close();
            ((AutoCloseable) confluent).close();
        }
    }

    @Test
    void valuesWithoutTheHeaderFailOrAreSkippedWhenIgnoringParseErrors() throws Exception {
        DeserializationSchema<RowData> strict = JsonNativeTestSupport.decoder(ID, PHYSICAL, options(), false);
        List<byte[]> bad = List.of(
                "{\"id\":1}".getBytes(StandardCharsets.UTF_8), new byte[0], new byte[] {0, 0, 0}, new byte[] {1, 0, 0, 0, 1});
        for (byte[] value : bad) {
            Throwable t = catchThrowable(() -> rows(strict, value));
            assertThat(t).as(Arrays.toString(value)).isInstanceOf(IOException.class);
            assertThat(t.getMessage()).startsWith("Failed to deserialize JSON");
            assertThat(t.getCause()).isInstanceOf(KarrowNativeException.class);
            assertThat(t.getCause().getMessage()).startsWith("Unknown data format. Magic number does not match");
        }
        // JSON errors after the header name the schema id and show the JSON, not the header.
        Throwable t = catchThrowable(() -> rows(strict, framed(77, "{\"id\":\"x\"}")));
        assertThat(t).hasMessage("Failed to deserialize JSON '{\"id\":\"x\"}' (Confluent schema id 77).");
        assertThat(((KarrowNativeException) t.getCause()).getSchemaId()).isEqualTo(77);

        DeserializationSchema<RowData> lenient =
                JsonNativeTestSupport.decoder(ID, PHYSICAL, options("ignore-parse-errors", "true"), false);
        for (byte[] value : bad) {
            assertThat(rows(lenient, value)).as(Arrays.toString(value)).isEmpty();
        }
        assertThat(rows(lenient, framed(1, "{\"id\":5}"))).hasSize(1);
        ((AutoCloseable) strict).close();
        ((AutoCloseable) lenient).close();
    }

    @Test
    void batchDecoderGivesThePerRecordRowsAndNamesTheFailingValue() throws Exception {
        DeserializationSchema<RowData> perRecord = JsonNativeTestSupport.decoder(ID, PHYSICAL, options(), false);
        List<byte[]> values = new ArrayList<>();
        for (String payload : PAYLOADS) {
            values.add(framed(3, payload));
        }
        values.add(null);
        try (ValueBatchDecoder batch = ((BatchDeserializationSchema) perRecord).createBatchDecoder();
             DirectValueBuffer buffer = new DirectValueBuffer()) {
            values.forEach(buffer::add);
            DecodedValues decoded = batch.decode(buffer, values.size());
            assertThat(decoded.valueCount()).isEqualTo(values.size());
            for (int i = 0; i < values.size(); i++) {
                List<RowData> expected = values.get(i) == null ? List.of() : rows(perRecord, values.get(i));
                assertSameRows(expected, decoded.rowsOf(i));
            }
            buffer.clear();
            buffer.add(framed(3, "{\"id\":1}"));
            buffer.add(null);
            buffer.add("{\"id\":2}".getBytes(StandardCharsets.UTF_8));
            Throwable t = catchThrowable(() -> batch.decode(buffer, 3));
            assertThat(t).isInstanceOf(KarrowNativeException.class)
                    .hasMessageStartingWith("Unknown data format. Magic number does not match");
            assertThat(((KarrowNativeException) t).getRecordIndex()).isEqualTo(2);
        }
        ((AutoCloseable) perRecord).close();
    }

    @Test
    void validateSchemaIdAcceptsJsonSchemasAndFailsOnOthersEvenWhenIgnoringParseErrors() throws Exception {
        int json = registry.register("validate-json", "JSON", "{\"type\":\"object\"}");
        int avro = registry.register("validate-avro", "\"string\"");
        int unknown = Math.max(json, avro) + 1000;
        for (String ignore : new String[] {"false", "true"}) {
            DeserializationSchema<RowData> schema = JsonNativeTestSupport.decoder(
                    ID, PHYSICAL, options("validate-schema-id", "true", "ignore-parse-errors", ignore), false);
            assertThat(rows(schema, framed(json, "{\"id\":1}"))).hasSize(1);
            assertThat(rows(schema, framed(json, "{\"id\":2}"))).hasSize(1);
            Throwable t = catchThrowable(() -> rows(schema, framed(unknown, "{\"id\":1}")));
            assertThat(t).as("ignore-parse-errors " + ignore).isNotNull();
            assertThat(messages(t)).contains("Could not find schema with id " + unknown + " in registry");
            assertThat(((KarrowNativeException) t.getCause()).getSchemaId()).isEqualTo(unknown);
            t = catchThrowable(() -> rows(schema, framed(avro, "{\"id\":1}")));
            assertThat(messages(t)).contains("is a AVRO schema, not a JSON schema");
            ((AutoCloseable) schema).close();
        }
        // Without validation the same ids decode.
        DeserializationSchema<RowData> lax = JsonNativeTestSupport.decoder(ID, PHYSICAL, options(), false);
        assertThat(rows(lax, framed(unknown, "{\"id\":1}"))).hasSize(1);
        ((AutoCloseable) lax).close();
    }

    private static List<RowData> sampleRows() throws IOException {
        DeserializationSchema<RowData> plain;
        try {
            plain = JsonNativeTestSupport.decoder("json-native", PHYSICAL, Map.of(), false);
        } catch (Exception e) {
            throw new IOException(e);
        }
        List<RowData> rows = new ArrayList<>();
        for (String payload : PAYLOADS) {
            rows.addAll(rows(plain, payload.getBytes(StandardCharsets.UTF_8)));
        }
        return rows;
    }

    @Test
    void writingRegistersAJsonSchemaAndFramesJsonNativesBytes() throws Exception {
        String subject = "bids-" + System.nanoTime() + "-value";
        List<RowData> rows = sampleRows();
        Map<String, String> jsonOptions = Map.of("encode.decimal-as-plain-number", "true");
        Map<String, String> confluentOptions = options("subject", subject, "encode.decimal-as-plain-number", "true");
        try (JsonNativeSerializationSchema plain = (JsonNativeSerializationSchema)
                        JsonNativeTestSupport.encoder("json-native", PHYSICAL, jsonOptions);
             JsonNativeSerializationSchema confluent = (JsonNativeSerializationSchema)
                        JsonNativeTestSupport.encoder(ID, PHYSICAL, confluentOptions)) {
            JsonNode latest = registry.latestVersion(subject);
            int schemaId = confluent.schemaId();
            assertThat(latest.get("id").asInt()).isEqualTo(schemaId);
            assertThat(latest.get("schemaType").asText()).isEqualTo("JSON");
            JsonNode schema = new com.fasterxml.jackson.databind.ObjectMapper().readTree(latest.get("schema").asText());
            assertThat(schema.get("$schema").asText()).isEqualTo("http://json-schema.org/draft-07/schema#");
            assertThat(schema.get("required").toString()).isEqualTo("[\"id\"]");
            assertThat(plain.schemaId()).isEqualTo(-1);

            for (RowData row : rows) {
                byte[] expected = plain.serialize(row);
                byte[] actual = confluent.serialize(row);
                assertThat(Arrays.copyOfRange(actual, 0, 5)).isEqualTo(framed(schemaId, ""));
                assertThat(Arrays.copyOfRange(actual, 5, actual.length)).isEqualTo(expected);
            }

            // The batch encoder registers (finding the same id) and writes the same values.
            try (ValueBatchEncoder batch = confluent.createBatchEncoder();
                 DirectValueBuffer images = new DirectValueBuffer()) {
                assertThat(((NativeBatchEncoder) batch).schemaId()).isEqualTo(schemaId);
                BinaryRowImages imager = new BinaryRowImages(ROW_TYPE, !batch.acceptsNullMapKeys());
                for (RowData row : rows) {
                    images.add(imager.image(row).clone());
                }
                int[] offsets = new int[rows.size() + 1];
                byte[] all = batch.encode(images, rows.size(), offsets);
                for (int i = 0; i < rows.size(); i++) {
                    assertThat(Arrays.copyOfRange(all, offsets[i], offsets[i + 1]))
                            .isEqualTo(confluent.serialize(rows.get(i)));
                }
            }
            // Decoding what was written gives the rows back.
            DeserializationSchema<RowData> decoder = JsonNativeTestSupport.decoder(
                    ID, PHYSICAL, options("validate-schema-id", "true"), false);
            for (RowData row : rows) {
                assertSameRows(List.of(row), rows(decoder, confluent.serialize(row)));
            }
            ((AutoCloseable) decoder).close();
        }
    }

    /**
     * A {@code GenericRowData} with sub-millisecond nanos in a TIMESTAMP(3) / TIMESTAMP_LTZ(3) and lone
     * surrogates in strings (as flink-json's decoder hands them on) is framed around exactly what
     * flink-json writes for it, per record and batched (see {@code JsonJavaDetailParityTest}).
     */
    @Test
    void javaDetailsOfGenericRowsAreWrittenAsFlinkJsonWritesThem() throws Exception {
        DataType physical = DataTypes.ROW(DataTypes.FIELD("t", DataTypes.TIMESTAMP(3)),
                DataTypes.FIELD("l", DataTypes.TIMESTAMP_LTZ(3)),
                DataTypes.FIELD("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.STRING()))).notNull();
        RowType rowType = (RowType) physical.getLogicalType();
        Map<StringData, StringData> map = new HashMap<>();
        map.put(StringData.fromString("k\uD83D"),
                StringData.fromString("\uDE00v\uD83D\uDE00"));
        List<RowData> rows = List.of(
                GenericRowData.of(TimestampData.fromEpochMillis(1_500, 1),
                        TimestampData.fromEpochMillis(-1, 999_999),
                        new GenericMapData(map)),
                GenericRowData.of(TimestampData.fromEpochMillis(1_500), null, null));
        String subject = "details-" + System.nanoTime() + "-value";
        SerializationSchema<RowData> flink = JsonParityHarness.encoder(JsonParityHarness.ORACLE, rowType, Map.of());
        try (JsonNativeSerializationSchema confluent = (JsonNativeSerializationSchema)
                        JsonNativeTestSupport.encoder(ID, physical, options("subject", subject));
             ValueBatchEncoder batch = confluent.createBatchEncoder();
             DirectValueBuffer images = new DirectValueBuffer()) {
            BinaryRowImages imager = new BinaryRowImages(rowType, !batch.acceptsNullMapKeys(), batch.keepsJavaDetail());
            List<byte[]> expected = new ArrayList<>();
            for (RowData row : rows) {
                byte[] json = flink.serialize(row);
                byte[] framed = ByteBuffer.allocate(5 + json.length).put((byte) 0).putInt(confluent.schemaId())
                        .put(json).array();
                expected.add(framed);
                assertThat(confluent.serialize(row)).as(new String(json, StandardCharsets.UTF_8)).isEqualTo(framed);
                images.add(imager.image(row).clone());
            }
            assertThat(new String(expected.get(0), 5, expected.get(0).length - 5, StandardCharsets.UTF_8))
                    .isEqualTo("{\"t\":\"1970-01-01 00:00:01.500000001\",\"l\":\"1969-12-31 23:59:59.999999999Z\","
                            + "\"m\":{\"k\\uD83D\":\"\\uDE00v\\uD83D\\uDE00\"}}");
            int[] offsets = new int[rows.size() + 1];
            byte[] all = batch.encode(images, rows.size(), offsets);
            for (int i = 0; i < rows.size(); i++) {
                assertThat(Arrays.copyOfRange(all, offsets[i], offsets[i + 1])).isEqualTo(expected.get(i));
            }
        }
    }

    @Test
    void explicitSchemaIsRegisteredAsGivenAndAnUnreachableRegistryFailsOpen() throws Exception {
        String subject = "explicit-" + System.nanoTime();
        String text = "{\"type\":\"object\",\"title\":\"Bid\"}";
        try (JsonNativeSerializationSchema encoder = (JsonNativeSerializationSchema)
                JsonNativeTestSupport.encoder(ID, PHYSICAL, options("subject", subject, "schema", text))) {
            JsonNode latest = registry.latestVersion(subject);
            assertThat(latest.get("schema").asText()).isEqualTo(text);
            assertThat(latest.get("id").asInt()).isEqualTo(encoder.schemaId());
        }
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Map<String, String> down = Map.of("url", "http://127.0.0.1:" + port, "subject", "down-value");
        Throwable t = catchThrowable(() -> JsonNativeTestSupport.encoder(ID, PHYSICAL, down));
        assertThat(t).isInstanceOf(IOException.class)
                .hasMessageStartingWith("Could not open the json-confluent-native encoder: registering the writer "
                        + "schema under subject 'down-value' at schema registry http://127.0.0.1:" + port + " failed");
        Throwable notSchema = catchThrowable(() -> JsonNativeTestSupport.encoder(
                ID, PHYSICAL, options("subject", "s", "schema", "[1]")));
        assertThat(messages(notSchema)).contains("is not a JSON Schema");
    }

    @Test
    void serializationSchemaIsUsableAsPlainSerializationSchema() throws Exception {
        SerializationSchema<RowData> schema =
                JsonNativeTestSupport.encoder(ID, PHYSICAL, options("subject", "plain-" + System.nanoTime()));
        assertThat(schema.serialize(null)).isNull();
        ((AutoCloseable) schema).close();
    }
}

package io.karrow.flink.formats.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.karrow.flink.formats.BatchDeserializationSchema;
import io.karrow.flink.formats.DecodedValues;
import io.karrow.flink.formats.ValueBatchDecoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.testutils.RowDataDiff;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The {@code json-native} deserializer on its per-record and batch paths, against Flink's {@code json}
 * (flink-json 2.2.0) on a few values: 0..n rows per value, the single-row API, error wrapping, {@code
 * ignore-parse-errors}, generic rows, and the batch decoder's per-value row ranges and record index.
 * (Broad decode parity over corpora is {@link JsonNativeParityTest}'s job.)
 */
class JsonNativeDeserializationSchemaTest {

    private static final DataType PHYSICAL = DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.BIGINT()),
                    DataTypes.FIELD("name", DataTypes.STRING()),
                    DataTypes.FIELD("price", DataTypes.DECIMAL(10, 2)),
                    DataTypes.FIELD("tags", DataTypes.ARRAY(DataTypes.STRING())),
                    DataTypes.FIELD("attrs", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())),
                    DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3)),
                    DataTypes.FIELD("nested", DataTypes.ROW(
                            DataTypes.FIELD("x", DataTypes.INT()), DataTypes.FIELD("y", DataTypes.DOUBLE()))))
            .notNull();
    private static final RowType ROW_TYPE = (RowType) PHYSICAL.getLogicalType();

    private static final String FULL = "{\"id\":1,\"name\":\"a\",\"price\":12.345,\"tags\":[\"x\",null,\"y\"],"
            + "\"attrs\":{\"k\":1,\"n\":null},\"ts\":\"2020-01-01 12:34:56.789\",\"nested\":{\"x\":7,\"y\":2.5},\"extra\":[1]}";
    private static final String TWO = "[{\"id\":2},{\"id\":3,\"name\":null,\"nested\":{\"y\":1e3}}]";

    private static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<RowData> collect(DeserializationSchema<RowData> schema, byte[] message) throws IOException {
        List<RowData> rows = new ArrayList<>();
        schema.deserialize(message, new Collector<>() {
            @Override
            public void collect(RowData row) {
                rows.add(row);
            }

            @Override
            public void close() {}
        });
        return rows;
    }

    private static void assertSameRows(String what, List<RowData> expected, List<RowData> actual) {
        assertThat(actual).as(what).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(RowDataDiff.diff(ROW_TYPE, expected.get(i), actual.get(i))).as("%s row %d", what, i).isNull();
        }
    }

    private static JsonNativeDeserializationSchema nativeDecoder(Map<String, String> options, boolean generic)
            throws Exception {
        return (JsonNativeDeserializationSchema)
                JsonNativeTestSupport.decoder(JsonNativeFormatFactory.IDENTIFIER, PHYSICAL, options, generic);
    }

    @Test
    void valuesYieldTheRowsFlinksJsonYields() throws Exception {
        DeserializationSchema<RowData> flink = JsonNativeTestSupport.decoder("json", PHYSICAL, Map.of(), false);
        try (JsonNativeDeserializationSchema karrow = nativeDecoder(Map.of(), false)) {
            for (String message : Arrays.asList(FULL, TWO, "[]", "", null, "{}", "{\"id\":4} trailing")) {
                List<RowData> expected = collect(flink, utf8(message));
                List<RowData> actual = collect(karrow, utf8(message));
                assertSameRows(String.valueOf(message), expected, actual);
                assertThat(actual).allMatch(r -> r instanceof BinaryRowData);
            }
            assertThat(collect(karrow, utf8(TWO))).hasSize(2);
            assertThat(collect(karrow, utf8("[]"))).isEmpty();
        }
    }

    @Test
    void singleRowApiBehavesLikeFlinks() throws Exception {
        DeserializationSchema<RowData> flink = JsonNativeTestSupport.decoder("json", PHYSICAL, Map.of(), false);
        try (JsonNativeDeserializationSchema karrow = nativeDecoder(Map.of(), false)) {
            assertThat(RowDataDiff.diff(ROW_TYPE, flink.deserialize(utf8(FULL)), karrow.deserialize(utf8(FULL)))).isNull();
            assertThat(karrow.deserialize(null)).isNull();
            assertThat(karrow.deserialize(new byte[0])).isNull();
            assertThat(karrow.deserialize(utf8("[]"))).isNull();
            Throwable expected = catchThrowable(() -> flink.deserialize(utf8(TWO)));
            assertThat(catchThrowable(() -> karrow.deserialize(utf8(TWO))))
                    .isInstanceOf(expected.getClass())
                    .hasMessage(expected.getMessage());
            // The schema stays usable after that.
            assertThat(karrow.deserialize(utf8("[{\"id\":9}]")).getLong(0)).isEqualTo(9);
        }
    }

    @Test
    void failuresAreWrappedAsInFlink() throws Exception {
        DeserializationSchema<RowData> flink = JsonNativeTestSupport.decoder("json", PHYSICAL, Map.of(), false);
        try (JsonNativeDeserializationSchema karrow = nativeDecoder(Map.of(), false)) {
            for (String bad : List.of("{\"id\":\"x\"}", "{\"id\":1", "42", "{\"tags\":{}}")) {
                Throwable expected = catchThrowable(() -> collect(flink, utf8(bad)));
                Throwable actual = catchThrowable(() -> collect(karrow, utf8(bad)));
                assertThat(expected).as("flink on %s", bad).isInstanceOf(IOException.class);
                assertThat(actual).as("native on %s", bad)
                        .isInstanceOf(IOException.class)
                        .hasMessage(expected.getMessage())
                        .hasCauseInstanceOf(KarrowNativeException.class);
            }
        }
    }

    @Test
    void ignoreParseErrorsSkipsBadMessagesAndNullsBadFields() throws Exception {
        Map<String, String> options = Map.of("ignore-parse-errors", "true");
        DeserializationSchema<RowData> flink = JsonNativeTestSupport.decoder("json", PHYSICAL, options, false);
        try (JsonNativeDeserializationSchema karrow = nativeDecoder(options, false)) {
            for (String message : List.of("{\"id\":\"x\",\"name\":\"n\"}", "42", FULL)) {
                assertSameRows(message, collect(flink, utf8(message)), collect(karrow, utf8(message)));
            }
            assertThat(collect(karrow, utf8("42"))).isEmpty();
            // A truncated object, or an array element that is no object: Flink's default decoder hands
            // a null record to the collector, which no source can emit; json-native yields no row for
            // it (the documented null-record divergence) and keeps the others.
            for (String message : List.of("{\"id\":1", "[1,{\"id\":2}]")) {
                List<RowData> flinkRows = collect(flink, utf8(message));
                assertThat(flinkRows).as(message).startsWith((RowData) null);
                flinkRows.removeIf(java.util.Objects::isNull);
                assertSameRows(message, flinkRows, collect(karrow, utf8(message)));
            }
            RowData row = collect(karrow, utf8("{\"id\":\"x\",\"name\":\"n\"}")).get(0);
            assertThat(row.isNullAt(0)).isTrue();
            assertThat(row.getString(1).toString()).isEqualTo("n");
        }
    }

    @Test
    void tablesWithMetadataGetGenericRows() throws Exception {
        DeserializationSchema<RowData> flink = JsonNativeTestSupport.decoder("json", PHYSICAL, Map.of(), true);
        try (JsonNativeDeserializationSchema karrow = nativeDecoder(Map.of(), true)) {
            assertThat(karrow.emitsGenericRows()).isTrue();
            List<RowData> rows = collect(karrow, utf8(TWO));
            assertThat(rows).hasSize(2).allMatch(r -> r instanceof GenericRowData);
            assertSameRows(TWO, collect(flink, utf8(TWO)), rows);
            assertThat(karrow.deserialize(utf8(FULL))).isInstanceOf(GenericRowData.class);
        }
    }

    @Test
    void closedSchemaReopensOnUse() throws Exception {
        JsonNativeDeserializationSchema karrow = nativeDecoder(Map.of(), false);
        karrow.close();
        karrow.close();
        assertThat(collect(karrow, utf8(TWO))).hasSize(2);
        karrow.close();
    }

    @Test
    void batchDecoderGivesEachValueItsRows() throws Exception {
        List<String> messages = Arrays.asList(FULL, null, TWO, "[]", "", "{\"id\":5}");
        try (JsonNativeDeserializationSchema karrow = nativeDecoder(Map.of(), false);
             ValueBatchDecoder batch = ((BatchDeserializationSchema) karrow).createBatchDecoder();
             DirectValueBuffer values = new DirectValueBuffer()) {
            for (String m : messages) {
                values.add(utf8(m));
            }
            DecodedValues decoded = batch.decode(values, messages.size());
            assertThat(decoded.valueCount()).isEqualTo(messages.size());
            int[] ends = new int[messages.size()];
            for (int i = 0; i < ends.length; i++) {
                ends[i] = decoded.rowEnd(i);
                assertSameRows("value " + i, collect(karrow, utf8(messages.get(i))), decoded.rowsOf(i));
            }
            assertThat(ends).containsExactly(1, 1, 3, 3, 3, 4);
            assertThat(decoded.rowCount()).isEqualTo(4);
            assertThat(decoded.row(3).getLong(0)).isEqualTo(5);

            // A prefix decodes on its own; an empty batch gives nothing.
            assertThat(batch.decode(values, 3).rowCount()).isEqualTo(3);
            assertThat(batch.decode(values, 0).valueCount()).isZero();
        }
    }

    @Test
    void batchFailureNamesTheFailingValue() throws Exception {
        try (JsonNativeDeserializationSchema karrow = nativeDecoder(Map.of(), false);
             ValueBatchDecoder batch = karrow.createBatchDecoder();
             DirectValueBuffer values = new DirectValueBuffer()) {
            for (String m : Arrays.asList(TWO, null, "{\"id\":true}", FULL)) {
                values.add(utf8(m));
            }
            Throwable t = catchThrowable(() -> batch.decode(values, 4));
            assertThat(t).isInstanceOf(KarrowNativeException.class);
            assertThat(((KarrowNativeException) t).getRecordIndex()).isEqualTo(2);
            // The decoder stays usable: the values before the failing one decode again.
            assertThat(batch.decode(values, 2).rowCount()).isEqualTo(2);
        }
    }
}

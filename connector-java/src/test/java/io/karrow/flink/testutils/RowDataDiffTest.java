package io.karrow.flink.testutils;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;

/** The comparator behind the parity tests must catch differences, not only agree. */
class RowDataDiffTest {

    private static final RowType TYPE = (RowType) DataTypes.ROW(
            DataTypes.FIELD("d", DataTypes.DOUBLE()), DataTypes.FIELD("s", DataTypes.STRING()),
            DataTypes.FIELD("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())),
            DataTypes.FIELD("x", DataTypes.DECIMAL(5, 2))).notNull().getLogicalType();

    private static GenericRowData row(double d, String s, Map<Object, Object> m, String x) {
        return GenericRowData.of(d, StringData.fromString(s), new GenericMapData(m),
                x == null ? null : DecimalData.fromBigDecimal(new BigDecimal(x), 5, 2));
    }

    @Test
    void equalRowsOfDifferentClassesAgree() {
        Map<Object, Object> m1 = new LinkedHashMap<>();
        m1.put(StringData.fromString("a"), 1);
        m1.put(StringData.fromString("b"), 2);
        Map<Object, Object> m2 = new LinkedHashMap<>();
        m2.put(StringData.fromString("b"), 2);
        m2.put(StringData.fromString("a"), 1);
        assertThat(RowDataDiff.diff(TYPE, row(Double.NaN, "x", m1, "1.50"), row(Double.NaN, "x", m2, "1.50"))).isNull();

        BinaryRowData binary = new BinaryRowData(1);
        BinaryRowWriter writer = new BinaryRowWriter(binary);
        writer.writeString(0, StringData.fromString("héllo"));
        writer.complete();
        RowType one = (RowType) DataTypes.ROW(DataTypes.FIELD("s", DataTypes.STRING())).notNull().getLogicalType();
        assertThat(RowDataDiff.diff(one, GenericRowData.of(StringData.fromString("héllo")), binary)).isNull();
        assertThat(RowDataDiff.diff(one, GenericRowData.of(StringData.fromString("hello")), binary)).contains(".s");
    }

    @Test
    void differencesAreReported() {
        Map<Object, Object> m = Map.of(StringData.fromString("a"), 1);
        Map<Object, Object> other = Map.of(StringData.fromString("a"), 2);
        assertThat(RowDataDiff.diff(TYPE, row(0.0, "x", m, "1.50"), row(-0.0, "x", m, "1.50"))).contains(".d");
        assertThat(RowDataDiff.diff(TYPE, row(1.0, "x", m, "1.50"), row(1.0, "y", m, "1.50"))).contains(".s");
        assertThat(RowDataDiff.diff(TYPE, row(1.0, "x", m, "1.50"), row(1.0, "x", other, "1.50"))).contains(".m{a}");
        assertThat(RowDataDiff.diff(TYPE, row(1.0, "x", m, "1.50"), row(1.0, "x", m, null))).contains(".x");
        assertThat(RowDataDiff.diff(TYPE, row(1.0, "x", m, "1.50"), row(1.0, "x", m, "1.51"))).contains(".x");
    }
}

package io.karrow.flink.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.table.types.logical.ZonedTimestampType;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;

/** How the operator plan writes literals ({@code docs/operator-plan.md}, "Literal encoding by type"). */
class PlanLiteralTest {

    @Test
    void floatingPointAsJavaWritesIt() throws Exception {
        assertThat(PlanLiteral.ofDouble(Double.NaN, new DoubleType(false)).toJson())
                .isEqualTo("{\"literal\":\"NaN\",\"type\":{\"type\":\"DOUBLE\",\"nullable\":false}}");
        assertThat(PlanLiteral.ofDouble(Double.NEGATIVE_INFINITY, new DoubleType()).toJson()).contains("\"-Infinity\"");
        assertThat(PlanLiteral.ofDouble(-0.0, new DoubleType()).toJson()).contains("\"-0.0\"");
        assertThat(PlanLiteral.ofDouble(1e-300, new DoubleType()).toJson()).contains("\"1.0E-300\"");
        assertThat(PlanLiteral.ofFloat(0.1f, new FloatType()).toJson()).contains("\"0.10000000149011612\"");
    }

    @Test
    void decimalsAtTheirScaleOrNotAtAll() throws Exception {
        assertThat(PlanLiteral.ofDecimal(new BigDecimal("1.5"), new DecimalType(5, 3)).toJson())
                .startsWith("{\"literal\":\"1.500\",");
        assertThat(PlanLiteral.ofDecimal(new BigDecimal("-1E+3"), new DecimalType(6, 2)).toJson())
                .startsWith("{\"literal\":\"-1000.00\",");
        assertThatThrownBy(() -> PlanLiteral.ofDecimal(new BigDecimal("1.2345"), new DecimalType(5, 3)))
                .isInstanceOf(PlanSerializationException.class).hasMessage("DECIMAL literal 1.2345 does not fit DECIMAL(5, 3)");
        assertThatThrownBy(() -> PlanLiteral.ofDecimal(new BigDecimal("123.4"), new DecimalType(4, 2)))
                .isInstanceOf(PlanSerializationException.class).hasMessage("DECIMAL literal 123.4 does not fit DECIMAL(4, 2)");
    }

    @Test
    void stringsAreUtf8OrDeclined() throws Exception {
        assertThat(PlanLiteral.ofString("a\"\\\n\u0001\uD83D\uDE00", new VarCharType(10)).toJson())
                .startsWith("{\"literal\":\"a\\\"\\\\\\n\\u0001\uD83D\uDE00\",");
        assertThatThrownBy(() -> PlanLiteral.ofString("x\uD83D", new VarCharType(10)))
                .isInstanceOf(PlanSerializationException.class).hasMessage("string literal with a lone surrogate at index 1");
        assertThatThrownBy(() -> PlanLiteral.ofString("\uDE00x", new VarCharType(10)))
                .isInstanceOf(PlanSerializationException.class);
    }

    @Test
    void bytesTimestampsAndIntegers() throws Exception {
        assertThat(PlanLiteral.ofBytes(new byte[] {(byte) 0xff, 0, 1}, new VarBinaryType(3)).toJson())
                .startsWith("{\"literal\":\"/wAB\",");
        assertThat(PlanLiteral.ofTimestamp(TimestampData.fromEpochMillis(-1, 999_999), new LocalZonedTimestampType(9))
                .toJson()).startsWith("{\"literal\":{\"millis\":-1,\"nanos\":999999},");
        assertThat(PlanLiteral.ofIntegral(Long.MIN_VALUE, new BigIntType(false)).toJson())
                .isEqualTo("{\"literal\":-9223372036854775808,\"type\":{\"type\":\"BIGINT\",\"nullable\":false}}");
    }

    @Test
    void aTypeWithoutARepresentationIsADecline() {
        assertThatThrownBy(() -> PlanLiteral.ofNull(new ZonedTimestampType()).toJson())
                .isInstanceOf(PlanSerializationException.class);
    }
}

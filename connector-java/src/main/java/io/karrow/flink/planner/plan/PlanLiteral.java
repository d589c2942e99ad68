package io.karrow.flink.planner.plan;

import io.karrow.flink.nativebridge.JsonText;

import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Base64;

/**
 * Typed literals of the operator plan, each value written as the contract says
 * ({@code docs/operator-plan.md}, "Literal encoding by type"). The caller passes the value Flink's
 * generated code would use for the literal (e.g. the {@code float} a FLOAT literal becomes), so the
 * native side parses exactly that value.
 */
public final class PlanLiteral {

    private PlanLiteral() {}

    /** The NULL literal of {@code type}. */
    public static PlanExpr ofNull(LogicalType type) {
        return new PlanExpr.Literal("null", type);
    }

    /** BOOLEAN. */
    public static PlanExpr ofBoolean(boolean value, LogicalType type) {
        return new PlanExpr.Literal(Boolean.toString(value), type);
    }

    /** TINYINT, SMALLINT, INT, BIGINT, INTERVAL_YEAR_MONTH (months), INTERVAL_DAY_TIME (milliseconds). */
    public static PlanExpr ofIntegral(long value, LogicalType type) {
        return new PlanExpr.Literal(Long.toString(value), type);
    }

    /** FLOAT: the {@code float} value, written as {@code Double.toString} of it (exact in a double). */
    public static PlanExpr ofFloat(float value, LogicalType type) {
        return ofDoubleText(Double.toString(value), type);
    }

    /** DOUBLE, written as {@code Double.toString} ({@code "NaN"}, {@code "Infinity"}, ... included). */
    public static PlanExpr ofDouble(double value, LogicalType type) {
        return ofDoubleText(Double.toString(value), type);
    }

    private static PlanExpr ofDoubleText(String text, LogicalType type) {
        StringBuilder json = new StringBuilder(text.length() + 2);
        JsonText.appendString(json, text);
        return new PlanExpr.Literal(json.toString(), type);
    }

    /**
     * DECIMAL(p, s): the plain string at scale s.
     *
     * @throws PlanSerializationException if the value does not have that scale exactly or has more
     *     than p digits
     */
    public static PlanExpr ofDecimal(BigDecimal value, DecimalType type) throws PlanSerializationException {
        BigDecimal scaled;
        try {
            scaled = value.setScale(type.getScale(), RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            throw new PlanSerializationException("DECIMAL literal " + value + " does not fit " + type.asSummaryString());
        }
        if (scaled.precision() > type.getPrecision()) {
            throw new PlanSerializationException("DECIMAL literal " + value + " does not fit " + type.asSummaryString());
        }
        StringBuilder json = new StringBuilder();
        JsonText.appendString(json, scaled.toPlainString());
        return new PlanExpr.Literal(json.toString(), type);
    }

    /**
     * CHAR, VARCHAR.
     *
     * @throws PlanSerializationException if the string holds a lone surrogate (it has no UTF-8 form)
     */
    public static PlanExpr ofString(String value, LogicalType type) throws PlanSerializationException {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new PlanSerializationException("string literal with a lone surrogate at index " + i);
            }
        }
        StringBuilder json = new StringBuilder(value.length() + 2);
        JsonText.appendString(json, value);
        return new PlanExpr.Literal(json.toString(), type);
    }

    /** BINARY, VARBINARY: standard base64 with padding. */
    public static PlanExpr ofBytes(byte[] value, LogicalType type) {
        return new PlanExpr.Literal('"' + Base64.getEncoder().encodeToString(value) + '"', type);
    }

    /** DATE: days since 1970-01-01. */
    public static PlanExpr ofDate(int days, LogicalType type) {
        return new PlanExpr.Literal(Integer.toString(days), type);
    }

    /** TIME(p): milliseconds of the day. */
    public static PlanExpr ofTime(int millisOfDay, LogicalType type) {
        return new PlanExpr.Literal(Integer.toString(millisOfDay), type);
    }

    /** TIMESTAMP(p), TIMESTAMP_LTZ(p): {@code {"millis": epoch millis, "nanos": 0..999999}}. */
    public static PlanExpr ofTimestamp(TimestampData value, LogicalType type) {
        return new PlanExpr.Literal("{\"millis\":" + value.getMillisecond() + ",\"nanos\":"
                + value.getNanoOfMillisecond() + "}", type);
    }
}

package io.karrow.flink.nativebridge;

import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * Serialises a Flink {@link LogicalType} to the "LogicalType JSON" of {@code docs/jni-contract.md}:
 * {@code {"type": NAME, "nullable": bool, ...}}.
 */
public final class LogicalTypeJson {

    private LogicalTypeJson() {}

    /**
     * Returns the contract JSON of {@code type}.
     *
     * @throws ValidationException if the type has no representation in the contract
     */
    public static String toJson(LogicalType type) {
        StringBuilder out = new StringBuilder(256);
        append(out, type);
        return out.toString();
    }

    /** Appends the contract JSON of {@code type} to {@code out}. */
    public static void append(StringBuilder out, LogicalType type) {
        String name = type.getTypeRoot().name();
        switch (type.getTypeRoot()) {
            case NULL:
            case BOOLEAN:
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
            case FLOAT:
            case DOUBLE:
            case DATE:
            case INTERVAL_YEAR_MONTH:
            case INTERVAL_DAY_TIME:
                open(out, type.getTypeRoot() == LogicalTypeRoot.INTEGER ? "INT" : name, type);
                break;
            case CHAR:
                open(out, "CHAR", type).append(",\"length\":").append(((CharType) type).getLength());
                break;
            case VARCHAR:
                open(out, "VARCHAR", type).append(",\"length\":").append(((VarCharType) type).getLength());
                break;
            case BINARY:
                open(out, "BINARY", type).append(",\"length\":").append(((BinaryType) type).getLength());
                break;
            case VARBINARY:
                open(out, "VARBINARY", type).append(",\"length\":").append(((VarBinaryType) type).getLength());
                break;
            case DECIMAL:
                DecimalType decimal = (DecimalType) type;
                open(out, "DECIMAL", type)
                        .append(",\"precision\":").append(decimal.getPrecision())
                        .append(",\"scale\":").append(decimal.getScale());
                break;
            case TIME_WITHOUT_TIME_ZONE:
                open(out, "TIME", type).append(",\"precision\":").append(((TimeType) type).getPrecision());
                break;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                open(out, "TIMESTAMP", type)
                        .append(",\"precision\":").append(((TimestampType) type).getPrecision());
                break;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                open(out, "TIMESTAMP_LTZ", type)
                        .append(",\"precision\":").append(((LocalZonedTimestampType) type).getPrecision());
                break;
            case ARRAY:
                open(out, "ARRAY", type).append(",\"element\":");
                append(out, ((ArrayType) type).getElementType());
                break;
            case MULTISET:
                open(out, "MULTISET", type).append(",\"element\":");
                append(out, ((MultisetType) type).getElementType());
                break;
            case MAP:
                MapType map = (MapType) type;
                open(out, "MAP", type).append(",\"key\":");
                append(out, map.getKeyType());
                out.append(",\"value\":");
                append(out, map.getValueType());
                break;
            case ROW:
                RowType row = (RowType) type;
                open(out, "ROW", type).append(",\"fields\":[");
                for (int i = 0; i < row.getFieldCount(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    out.append("{\"name\":");
                    JsonText.appendString(out, row.getFieldNames().get(i));
                    out.append(",\"type\":");
                    append(out, row.getTypeAt(i));
                    out.append('}');
                }
                out.append(']');
                break;
            default:
                throw new ValidationException(
                        "karrow native formats do not support the type " + type.asSummaryString());
        }
        out.append('}');
    }

    private static StringBuilder open(StringBuilder out, String name, LogicalType type) {
        return out.append("{\"type\":\"").append(name).append("\",\"nullable\":").append(type.isNullable());
    }
}

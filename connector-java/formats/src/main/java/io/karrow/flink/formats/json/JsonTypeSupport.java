package io.karrow.flink.formats.json;

import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The check Flink's {@code json} format makes when it builds its runtime converters: every type must
 * be one the format reads and writes, and MAP / MULTISET keys must be character strings. Types are
 * visited in the same order (fields in declaration order, a map's key before its value), so the
 * first unsupported type reported is the one Flink reports, with Flink's exception type and message.
 */
final class JsonTypeSupport {

    private JsonTypeSupport() {}

    /**
     * Throws if {@code rowType} cannot be decoded.
     *
     * @throws UnsupportedOperationException as Flink's JSON deserializers do
     */
    static void validateForDecoding(RowType rowType) {
        check(rowType, "Unsupported type: ");
    }

    /**
     * Throws if {@code rowType} cannot be encoded.
     *
     * @throws UnsupportedOperationException as Flink's JSON serializer does
     */
    static void validateForEncoding(RowType rowType) {
        check(rowType, "Not support to parse type: ");
    }

    private static void check(LogicalType type, String unsupportedPrefix) {
        switch (type.getTypeRoot()) {
            case NULL:
            case BOOLEAN:
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case INTERVAL_YEAR_MONTH:
            case BIGINT:
            case INTERVAL_DAY_TIME:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
            case FLOAT:
            case DOUBLE:
            case CHAR:
            case VARCHAR:
            case BINARY:
            case VARBINARY:
            case DECIMAL:
                return;
            case ARRAY:
                check(((ArrayType) type).getElementType(), unsupportedPrefix);
                return;
            case MAP:
                MapType map = (MapType) type;
                checkMapKey(map, map.getKeyType());
                check(map.getValueType(), unsupportedPrefix);
                return;
            case MULTISET:
                MultisetType multiset = (MultisetType) type;
                checkMapKey(multiset, multiset.getElementType());
                return;
            case ROW:
                for (LogicalType field : ((RowType) type).getChildren()) {
                    check(field, unsupportedPrefix);
                }
                return;
            default:
                throw new UnsupportedOperationException(unsupportedPrefix + type);
        }
    }

    private static void checkMapKey(LogicalType mapType, LogicalType keyType) {
        if (!keyType.is(LogicalTypeFamily.CHARACTER_STRING)) {
            throw new UnsupportedOperationException(
                    "JSON format doesn't support non-string as key type of map. The type is: "
                            + mapType.asSummaryString());
        }
    }
}

package io.karrow.flink.formats.avro;

import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * Planning-time check that a row type can be derived into an Avro schema the way Flink's {@code
 * avro-confluent} derives it (legacy timestamp mapping, which that format always uses). The messages
 * repeat Flink's. Deeper checks (an explicit {@code schema} matching the table) are done by the
 * native decoder when it opens.
 */
final class AvroTypeSupport {

    private AvroTypeSupport() {}

    /** Throws a {@link ValidationException} if {@code rowType} cannot be read as Avro. */
    static void validate(RowType rowType) {
        check(rowType);
    }

    private static void check(LogicalType type) {
        switch (type.getTypeRoot()) {
            case NULL:
            case BOOLEAN:
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
            case FLOAT:
            case DOUBLE:
            case CHAR:
            case VARCHAR:
            case BINARY:
            case VARBINARY:
            case DECIMAL:
            case DATE:
                return;
            case TIME_WITHOUT_TIME_ZONE:
                int timePrecision = ((TimeType) type).getPrecision();
                if (timePrecision > 3) {
                    throw new ValidationException(
                            "Avro does not support TIME type with precision: " + timePrecision
                                    + ", it only supports precision less than 3.");
                }
                return;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                int precision = ((TimestampType) type).getPrecision();
                if (precision > 3) {
                    throw new ValidationException(
                            "Avro does not support TIMESTAMP type with precision: " + precision
                                    + ", it only supports precision less than 3.");
                }
                return;
            case ARRAY:
                check(((ArrayType) type).getElementType());
                return;
            case MAP:
                checkMapKey(((MapType) type).getKeyType());
                check(((MapType) type).getValueType());
                return;
            case MULTISET:
                checkMapKey(((MultisetType) type).getElementType());
                return;
            case ROW:
                for (RowType.RowField field : ((RowType) type).getFields()) {
                    checkName(field.getName());
                    check(field.getType());
                }
                return;
            default:
                throw new ValidationException("Unsupported to derive Schema for type: " + type);
        }
    }

    private static void checkMapKey(LogicalType keyType) {
        if (!keyType.is(LogicalTypeFamily.CHARACTER_STRING)) {
            throw new ValidationException(
                    "Avro format doesn't support non-string as key type of map. The key type is: "
                            + keyType.asSummaryString());
        }
    }

    /** Avro 1.11 name rule: a letter or '_', then letters, digits or '_'. */
    private static void checkName(String name) {
        boolean valid = !name.isEmpty() && (Character.isLetter(name.charAt(0)) || name.charAt(0) == '_');
        for (int i = 1; valid && i < name.length(); i++) {
            char c = name.charAt(i);
            valid = Character.isLetterOrDigit(c) || c == '_';
        }
        if (!valid) {
            throw new ValidationException("Column name '" + name + "' is not a valid Avro name");
        }
    }
}

package io.karrow.flink.formats.protobuf;

import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;

import java.util.EnumSet;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The row-type checks {@code protobuf-confluent-native} makes while the job is planned. The writer
 * schema of a source is known only per record (from the registry), so a source checks only that every
 * column type is one some Protobuf field can be read into; the field-by-field check of {@code
 * protobuf-native} happens when a schema id is first met. A sink without a {@code schema} option
 * derives its schema from the table, so it checks the derivation rules of {@code
 * docs/formats/protobuf-confluent-native.md} here (the native encoder applies the same rules).
 */
public final class ProtobufConfluentRowTypes {

    /** Types a Protobuf field can be read into (enums into TINYINT/SMALLINT fail as in flink-protobuf). */
    private static final Set<LogicalTypeRoot> READABLE = EnumSet.of(
            LogicalTypeRoot.BOOLEAN, LogicalTypeRoot.TINYINT, LogicalTypeRoot.SMALLINT, LogicalTypeRoot.INTEGER,
            LogicalTypeRoot.BIGINT, LogicalTypeRoot.FLOAT, LogicalTypeRoot.DOUBLE, LogicalTypeRoot.CHAR,
            LogicalTypeRoot.VARCHAR, LogicalTypeRoot.BINARY, LogicalTypeRoot.VARBINARY, LogicalTypeRoot.ROW,
            LogicalTypeRoot.ARRAY, LogicalTypeRoot.MAP);

    /** Types with a Protobuf scalar in a derived schema. */
    private static final Set<LogicalTypeRoot> SCALARS = EnumSet.of(
            LogicalTypeRoot.BOOLEAN, LogicalTypeRoot.INTEGER, LogicalTypeRoot.BIGINT, LogicalTypeRoot.FLOAT,
            LogicalTypeRoot.DOUBLE, LogicalTypeRoot.CHAR, LogicalTypeRoot.VARCHAR, LogicalTypeRoot.BINARY,
            LogicalTypeRoot.VARBINARY);

    /** Types a derived map key may have. */
    private static final Set<LogicalTypeRoot> MAP_KEYS = EnumSet.of(
            LogicalTypeRoot.CHAR, LogicalTypeRoot.VARCHAR, LogicalTypeRoot.INTEGER, LogicalTypeRoot.BIGINT,
            LogicalTypeRoot.BOOLEAN);

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private ProtobufConfluentRowTypes() {}

    /**
     * Checks that every column (nested ones included) has a type some Protobuf field maps to.
     *
     * @throws ValidationException naming the first column that has none
     */
    public static void validateReadable(RowType rowType) {
        for (RowType.RowField field : rowType.getFields()) {
            validateReadable(field.getName(), field.getType());
        }
    }

    private static void validateReadable(String column, LogicalType type) {
        if (!READABLE.contains(type.getTypeRoot())) {
            throw new ValidationException("protobuf-confluent-native cannot read column '" + column + "' of type "
                    + type.asSummaryString() + ": no Protobuf field maps to it");
        }
        if (type instanceof RowType) {
            for (RowType.RowField field : ((RowType) type).getFields()) {
                validateReadable(column + "." + field.getName(), field.getType());
            }
        } else {
            for (LogicalType child : type.getChildren()) {
                validateReadable(column, child);
            }
        }
    }

    /**
     * Checks that a Protobuf schema can be derived from {@code rowType}: column names are Protobuf
     * identifiers, types are scalars with a Protobuf type, ROWs, ARRAYs of those (not of ARRAY or MAP),
     * and MAPs with STRING/INT/BIGINT/BOOLEAN keys and scalar or ROW values.
     *
     * @throws ValidationException naming the first column that breaks a rule
     */
    public static void validateDerivable(RowType rowType) {
        validateDerivable("", rowType);
    }

    private static void validateDerivable(String path, RowType rowType) {
        for (RowType.RowField field : rowType.getFields()) {
            String column = path.isEmpty() ? field.getName() : path + "." + field.getName();
            if (!IDENTIFIER.matcher(field.getName()).matches()) {
                throw underivable(column, "the name is not a Protobuf field name ([A-Za-z_][A-Za-z0-9_]*)");
            }
            LogicalType type = field.getType();
            if (type instanceof RowType) {
                validateDerivable(column, (RowType) type);
            } else if (type instanceof ArrayType) {
                elementOrValue(column, ((ArrayType) type).getElementType(), "ARRAY elements");
            } else if (type instanceof MapType) {
                LogicalType key = ((MapType) type).getKeyType();
                if (!MAP_KEYS.contains(key.getTypeRoot())) {
                    throw underivable(column, "MAP keys must be STRING, INT, BIGINT or BOOLEAN, not "
                            + key.asSummaryString());
                }
                elementOrValue(column, ((MapType) type).getValueType(), "MAP values");
            } else if (!SCALARS.contains(type.getTypeRoot())) {
                throw underivable(column, type.asSummaryString() + " has no Protobuf scalar type");
            }
        }
    }

    private static void elementOrValue(String column, LogicalType type, String what) {
        if (type instanceof RowType) {
            validateDerivable(column, (RowType) type);
        } else if (!SCALARS.contains(type.getTypeRoot())) {
            throw underivable(column, what + " must be scalars or ROWs, not " + type.asSummaryString());
        }
    }

    private static ValidationException underivable(String column, String reason) {
        return new ValidationException(
                "protobuf-confluent-native cannot derive a Protobuf schema for column '" + column + "': " + reason
                        + ". Give the schema to write with the 'schema' option.");
    }
}

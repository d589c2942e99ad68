package io.karrow.flink.formats.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor.JavaType;

import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Checks a table's row type against a Protobuf message as Flink's {@code protobuf} format does when
 * the job is planned, with its messages: every column must be a field of the same (exact) name, and
 * its type must match the field's Java type.
 */
public final class ProtobufSchemaValidation {

    private static final Map<JavaType, Set<LogicalTypeRoot>> ACCEPTED = new EnumMap<>(JavaType.class);

    static {
        ACCEPTED.put(JavaType.STRING, EnumSet.of(LogicalTypeRoot.CHAR, LogicalTypeRoot.VARCHAR));
        ACCEPTED.put(JavaType.BOOLEAN, EnumSet.of(LogicalTypeRoot.BOOLEAN));
        ACCEPTED.put(JavaType.BYTE_STRING, EnumSet.of(LogicalTypeRoot.BINARY, LogicalTypeRoot.VARBINARY));
        ACCEPTED.put(JavaType.DOUBLE, EnumSet.of(LogicalTypeRoot.DOUBLE));
        ACCEPTED.put(JavaType.FLOAT, EnumSet.of(LogicalTypeRoot.FLOAT));
        ACCEPTED.put(JavaType.INT, EnumSet.of(LogicalTypeRoot.INTEGER));
        ACCEPTED.put(JavaType.LONG, EnumSet.of(LogicalTypeRoot.BIGINT));
        ACCEPTED.put(JavaType.ENUM, EnumSet.of(
                LogicalTypeRoot.VARCHAR, LogicalTypeRoot.CHAR, LogicalTypeRoot.TINYINT,
                LogicalTypeRoot.SMALLINT, LogicalTypeRoot.INTEGER, LogicalTypeRoot.BIGINT));
    }

    private ProtobufSchemaValidation() {}

    /**
     * Checks {@code rowType} against {@code message}.
     *
     * @throws ValidationException with Flink's message when a column is missing or mistyped
     */
    public static void validate(Descriptor message, RowType rowType) {
        for (RowType.RowField column : rowType.getFields()) {
            FieldDescriptor field = message.findFieldByName(column.getName());
            if (field == null) {
                throw new ValidationException(
                        "Column " + column.getName() + " does not exists in definition of proto class.");
            }
            validateField(field, column.getType());
        }
    }

    private static void validateField(FieldDescriptor field, LogicalType type) {
        if (!field.isRepeated()) {
            if (field.getJavaType() != JavaType.MESSAGE) {
                validateSimple(field, type.getTypeRoot());
            } else {
                validate(field.getMessageType(), expect(type, RowType.class, "RowType"));
            }
        } else if (field.isMapField()) {
            MapType map = expect(type, MapType.class, "MapType");
            Descriptor entry = field.getMessageType();
            validateSimple(entry.findFieldByName("key"), map.getKeyType().getTypeRoot());
            validateField(entry.findFieldByName("value"), map.getValueType());
        } else {
            LogicalType element = expect(type, ArrayType.class, "ArrayType").getElementType();
            if (field.getJavaType() == JavaType.MESSAGE) {
                validate(field.getMessageType(), expect(element, RowType.class, "RowType"));
            } else {
                validateSimple(field, element.getTypeRoot());
            }
        }
    }

    private static <T extends LogicalType> T expect(LogicalType type, Class<T> shape, String shapeName) {
        if (!shape.isInstance(type)) {
            throw new ValidationException("Unexpected LogicalType: " + type + ". It should be " + shapeName);
        }
        return shape.cast(type);
    }

    private static void validateSimple(FieldDescriptor field, LogicalTypeRoot root) {
        Set<LogicalTypeRoot> accepted = ACCEPTED.get(field.getJavaType());
        if (accepted == null) {
            throw new ValidationException("Unsupported protobuf java type: " + field.getJavaType());
        }
        if (!accepted.contains(root)) {
            throw new ValidationException("Protobuf field type does not match column type, "
                    + field.getJavaType() + "(protobuf) is not compatible of " + root);
        }
    }
}

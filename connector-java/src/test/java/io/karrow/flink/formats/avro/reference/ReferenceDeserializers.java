package io.karrow.flink.formats.avro.reference;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.formats.avro.AvroRowDataDeserializationSchema;
import org.apache.flink.formats.avro.AvroToRowDataConverters;
import org.apache.flink.formats.avro.RegistryAvroDeserializationSchema;
import org.apache.flink.formats.avro.typeutils.AvroSchemaConverter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Builds exactly the deserializer that Flink 2.2's {@code avro-confluent} builds, with the HTTP
 * schema coder in place of Confluent's client: {@code AvroRowDataDeserializationSchema} over {@code
 * RegistryAvroDeserializationSchema<GenericRecord>}, reader schema derived by {@code
 * AvroSchemaConverter} (or parsed from the {@code schema} option after the same match check).
 */
public final class ReferenceDeserializers {

    private ReferenceDeserializers() {}

    /** The oracle deserializer for {@code rowType}; {@code schemaString} may be null. */
    public static DeserializationSchema<RowData> create(
            RowType rowType, TypeInformation<RowData> producedType, String url, String schemaString) {
        // Flink evaluates the derived schema even when an explicit one is given.
        Schema derived = AvroSchemaConverter.convertToSchema(rowType);
        Schema readerSchema = schemaString == null ? derived : explicitSchema(schemaString, rowType);
        return new AvroRowDataDeserializationSchema(
                new RegistryAvroDeserializationSchema<>(
                        GenericRecord.class, readerSchema, new ConfluentHttpSchemaCoderProvider(url)),
                AvroToRowDataConverters.createRowConverter(rowType),
                producedType);
    }

    /** Parses an explicit schema after Flink's check that it matches {@code rowType}. */
    static Schema explicitSchema(String schemaString, RowType rowType) {
        LogicalType converted = AvroSchemaConverter.convertToDataType(schemaString).getLogicalType();
        if (converted.isNullable()) {
            converted = converted.copy(false);
        }
        if (!converted.equals(rowType)) {
            throw new IllegalArgumentException(
                    String.format(
                            "Schema provided for '%s' format does not match the table schema: %s",
                            "avro-confluent", schemaString));
        }
        return new Schema.Parser().parse(schemaString);
    }
}

package io.karrow.flink.formats.avro.reference;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.formats.avro.AvroRowDataSerializationSchema;
import org.apache.flink.formats.avro.RegistryAvroSerializationSchema;
import org.apache.flink.formats.avro.RowDataToAvroConverters;
import org.apache.flink.formats.avro.typeutils.AvroSchemaConverter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Builds exactly the serializer that Flink 2.2's {@code avro-confluent} builds, with the HTTP schema
 * coder in place of Confluent's client: {@code AvroRowDataSerializationSchema} over {@code
 * RegistryAvroSerializationSchema<GenericRecord>} with {@code RowDataToAvroConverters.createConverter},
 * writer schema derived by {@code AvroSchemaConverter} (or parsed from the {@code schema} option after
 * the same match check). Like Flink, it registers the writer schema at the first {@code serialize}.
 */
public final class ReferenceSerializers {

    private ReferenceSerializers() {}

    /** The oracle serializer for {@code rowType} registering under {@code subject}; {@code schemaString} may be null. */
    public static SerializationSchema<RowData> create(RowType rowType, String url, String subject, String schemaString) {
        // Flink evaluates the derived schema even when an explicit one is given.
        Schema derived = AvroSchemaConverter.convertToSchema(rowType);
        Schema writerSchema = schemaString == null ? derived : ReferenceDeserializers.explicitSchema(schemaString, rowType);
        return new AvroRowDataSerializationSchema(
                rowType,
                new RegistryAvroSerializationSchema<>(
                        GenericRecord.class, writerSchema, new ConfluentHttpSchemaCoderProvider(url, subject)),
                RowDataToAvroConverters.createConverter(rowType));
    }
}

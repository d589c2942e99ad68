package io.karrow.flink.formats.avro;

import io.karrow.flink.formats.avro.reference.ReferenceDeserializers;
import io.karrow.flink.formats.registry.RegistryDecoderConfig;
import io.karrow.flink.testutils.RowDataDiff;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import java.util.Map;

/** Runs the oracle and the native deserializer side by side on the same bytes. */
final class ParityHarness implements AutoCloseable {

    /** What one deserializer did with one message. */
    static final class Outcome {
        final RowData row;
        final Throwable error;

        private Outcome(RowData row, Throwable error) {
            this.row = row;
            this.error = error;
        }

        boolean failed() {
            return error != null;
        }

        String describe() {
            return error == null ? "row " + row : "error " + error.getClass().getSimpleName() + ": " + messages(error);
        }
    }

    final RowType rowType;
    final DeserializationSchema<RowData> oracle;
    final AvroConfluentNativeDeserializationSchema nativeBinary;
    final AvroConfluentNativeDeserializationSchema nativeGeneric;

    ParityHarness(RowType rowType, String url) throws Exception {
        this.rowType = rowType;
        InternalTypeInfo<RowData> typeInfo = InternalTypeInfo.of(rowType);
        oracle = ReferenceDeserializers.create(rowType, typeInfo, url, null);
        oracle.open(null);
        RegistryDecoderConfig config = new RegistryDecoderConfig(url, null, null, null, null, null, null, null, Map.of());
        nativeBinary = new AvroConfluentNativeDeserializationSchema(rowType, typeInfo, config, false);
        nativeBinary.open(null);
        nativeGeneric = new AvroConfluentNativeDeserializationSchema(rowType, typeInfo, config, true);
        nativeGeneric.open(null);
    }

    static Outcome run(DeserializationSchema<RowData> schema, byte[] message) {
        try {
            return new Outcome(schema.deserialize(message), null);
        } catch (Throwable t) {
            return new Outcome(null, t);
        }
    }

    /**
     * Compares the outcomes of oracle and native (both row classes) on one message; null if they
     * agree. {@code expectedSchemaId} (or -1) must appear in native error messages.
     */
    String compare(byte[] message, int expectedSchemaId) {
        Outcome expected = run(oracle, message);
        for (AvroConfluentNativeDeserializationSchema n : new AvroConfluentNativeDeserializationSchema[] {nativeBinary, nativeGeneric}) {
            Outcome actual = run(n, message);
            String label = n.emitsGenericRows() ? "native(generic)" : "native(binary)";
            if (expected.failed() != actual.failed()) {
                return label + ": oracle " + expected.describe() + " / native " + actual.describe();
            }
            if (expected.failed()) {
                if (actual.error instanceof UnsatisfiedLinkError || actual.error instanceof IllegalStateException) {
                    return label + ": native broke: " + actual.describe();
                }
                if (expectedSchemaId >= 0 && !messages(actual.error).contains(Integer.toString(expectedSchemaId))) {
                    return label + ": native error does not name schema id " + expectedSchemaId + ": " + actual.describe();
                }
                continue;
            }
            if (n.emitsGenericRows() && actual.row != null
                    && !(actual.row instanceof org.apache.flink.table.data.GenericRowData)) {
                return label + ": expected GenericRowData, got " + actual.row.getClass();
            }
            String diff = RowDataDiff.diff(rowType, expected.row, actual.row);
            if (diff != null) {
                return label + ": " + diff;
            }
        }
        return null;
    }

    static String messages(Throwable t) {
        StringBuilder s = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            s.append(c.getMessage()).append(" | ");
        }
        return s.toString();
    }

    @Override
    public void close() {
        nativeBinary.close();
        nativeGeneric.close();
    }
}

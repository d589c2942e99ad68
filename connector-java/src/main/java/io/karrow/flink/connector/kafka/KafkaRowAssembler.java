package io.karrow.flink.connector.kafka;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.DeserializationException;
import org.apache.flink.types.RowKind;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.io.Serializable;
import java.util.List;

/**
 * Builds the produced row of a record from its key row, value row and metadata, exactly as
 * flink-connector-kafka's {@code DynamicKafkaDeserializationSchema.OutputProjectionCollector}: key
 * fields at their table positions, then value fields (value wins on overlap), then the metadata
 * columns after the physical ones; the row kind is the value row's.
 *
 * <p>Key and value rows may be any {@link RowData} class (the stock connector requires {@code
 * GenericRowData}); fields are read with Flink's field getters, which return the same internal
 * objects as {@code GenericRowData.getField}.
 */
final class KafkaRowAssembler implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int physicalArity;
    private final int[] keyProjection;
    private final int[] valueProjection;
    private final KafkaReadableMetadata[] metadata;
    private final RowData.FieldGetter[] keyGetters;
    private final RowData.FieldGetter[] valueGetters;

    /**
     * Creates an assembler.
     *
     * @param physicalArity number of physical columns (including value-format metadata columns)
     * @param keyProjection table position of each key-format field
     * @param valueProjection table position of each value-format field (value-format metadata last)
     * @param metadata the connector metadata columns in declared order
     * @param producedType the produced row type (physical columns, then metadata columns)
     */
    KafkaRowAssembler(
            int physicalArity,
            int[] keyProjection,
            int[] valueProjection,
            KafkaReadableMetadata[] metadata,
            RowType producedType) {
        this.physicalArity = physicalArity;
        this.keyProjection = keyProjection.clone();
        this.valueProjection = valueProjection.clone();
        this.metadata = metadata.clone();
        this.keyGetters = getters(producedType, keyProjection);
        this.valueGetters = getters(producedType, valueProjection);
    }

    private static RowData.FieldGetter[] getters(RowType producedType, int[] projection) {
        RowData.FieldGetter[] getters = new RowData.FieldGetter[projection.length];
        for (int i = 0; i < projection.length; i++) {
            LogicalType fieldType = producedType.getTypeAt(projection[i]);
            getters[i] = RowData.createFieldGetter(fieldType, i);
        }
        return getters;
    }

    private static Object field(RowData row, RowData.FieldGetter getter, int pos) {
        // GenericRowData: exactly what the stock collector reads.
        return row instanceof GenericRowData ? ((GenericRowData) row).getField(pos) : getter.getFieldOrNull(row);
    }

    /** Whether rows need assembling at all; if not, value rows are emitted as they are. */
    boolean isPassThrough() {
        return keyProjection.length == 0 && metadata.length == 0;
    }

    /** Whether a key format is declared. */
    boolean hasKey() {
        return keyProjection.length > 0;
    }

    /**
     * Emits into {@code out} one row per key row for {@code valueRow} (one row without a key
     * format), like the stock collector's {@code collect(valueRow)}.
     */
    void assemble(ConsumerRecord<?, ?> record, List<RowData> keyRows, RowData valueRow, List<RowData> out) {
        if (keyProjection.length == 0) {
            out.add(row(record, null, valueRow));
            return;
        }
        for (RowData keyRow : keyRows) {
            out.add(row(record, keyRow, valueRow));
        }
    }

    private GenericRowData row(ConsumerRecord<?, ?> record, RowData keyRow, RowData valueRow) {
        if (valueRow == null) {
            throw new DeserializationException(
                    "Invalid null value received in non-upsert mode. Could not to set row kind for output record.");
        }
        RowKind kind = valueRow.getRowKind();
        GenericRowData produced = new GenericRowData(kind, physicalArity + metadata.length);
        for (int i = 0; i < keyProjection.length; i++) {
            produced.setField(keyProjection[i], field(keyRow, keyGetters[i], i));
        }
        for (int i = 0; i < valueProjection.length; i++) {
            produced.setField(valueProjection[i], field(valueRow, valueGetters[i], i));
        }
        for (int i = 0; i < metadata.length; i++) {
            produced.setField(physicalArity + i, metadata[i].read(record));
        }
        return produced;
    }
}

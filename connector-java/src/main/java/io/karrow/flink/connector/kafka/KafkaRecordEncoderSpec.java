package io.karrow.flink.connector.kafka;

import io.karrow.flink.formats.BatchSerializationSchema;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * Everything needed to turn consumed sink rows into {@link PreEncodedRecord}s, computed by {@link
 * KafkaNativeDynamicSink} as Flink's {@code KafkaDynamicSink} computes its record serializer: the key
 * and value formats' serialization schemas, the key and value projections over the physical row, the
 * positions of the writable metadata columns, upsert mode, and whether the partitioner needs the row.
 */
final class KafkaRecordEncoderSpec implements Serializable {

    private static final long serialVersionUID = 1L;

    final @Nullable SerializationSchema<RowData> keySerialization;
    final BatchSerializationSchema valueSerialization;
    final int[] keyProjection;
    final int[] valueProjection;
    final LogicalType[] physicalTypes;
    final RowType consumedRowType;
    final int[] metadataPositions;
    final boolean upsertMode;
    final boolean keepRowImage;

    /**
     * Creates the spec.
     *
     * @param keySerialization the key format's schema, or {@code null} without a key format
     * @param valueSerialization the value format's batch-capable schema
     * @param keyProjection physical positions of the key fields, in key order
     * @param valueProjection physical positions of the value fields, in value order
     * @param physicalTypes the physical column types
     * @param consumedRowType the consumed row: physical columns then the declared metadata columns
     * @param metadataKeys the declared writable metadata keys, in order
     * @param upsertMode whether DELETE / UPDATE_BEFORE rows become tombstones
     * @param keepRowImage whether each record keeps the consumed row for a {@code sink.partitioner}
     */
    KafkaRecordEncoderSpec(
            @Nullable SerializationSchema<RowData> keySerialization,
            BatchSerializationSchema valueSerialization,
            int[] keyProjection,
            int[] valueProjection,
            List<LogicalType> physicalTypes,
            RowType consumedRowType,
            List<String> metadataKeys,
            boolean upsertMode,
            boolean keepRowImage) {
        this.keySerialization = keySerialization;
        this.valueSerialization = Objects.requireNonNull(valueSerialization, "valueSerialization");
        this.keyProjection = keyProjection.clone();
        this.valueProjection = valueProjection.clone();
        this.physicalTypes = physicalTypes.toArray(new LogicalType[0]);
        this.consumedRowType = consumedRowType;
        this.metadataPositions = KafkaWritableMetadata.positions(metadataKeys, physicalTypes.size());
        this.upsertMode = upsertMode;
        this.keepRowImage = keepRowImage;
    }

    /** Whether the table declares any writable metadata column. */
    boolean hasMetadata() {
        for (int position : metadataPositions) {
            if (position >= 0) {
                return true;
            }
        }
        return false;
    }

    /** Position of {@code metadata} in the consumed row, or {@code -1}. */
    int position(KafkaWritableMetadata metadata) {
        return metadataPositions[metadata.ordinal()];
    }
}

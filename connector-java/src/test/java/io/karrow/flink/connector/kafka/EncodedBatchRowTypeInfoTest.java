package io.karrow.flink.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;

/**
 * The carrier type of full fusion: chained copies (object reuse off) keep the very object, and
 * anything that would serialize it fails with a message naming the unchained edge.
 */
class EncodedBatchRowTypeInfoTest {

    private final TypeSerializer<RowData> serializer =
            EncodedBatchRowTypeInfo.INSTANCE.createSerializer(new SerializerConfigImpl());

    @Test
    void aChainedCopyIsTheSameObject() {
        RowData row = GenericRowData.of(1L, 2L);
        assertThat(serializer.copy(row)).isSameAs(row);
        assertThat(serializer.copy(row, GenericRowData.of(3L, 4L))).isSameAs(row);
        assertThat(serializer.duplicate()).isSameAs(serializer);
    }

    @Test
    void serializingFailsLoudly() {
        RowData row = GenericRowData.of(1L);
        assertThatThrownBy(() -> serializer.serialize(row, new DataOutputSerializer(16)))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("cross only chained edges");
        assertThatThrownBy(() -> serializer.deserialize(null)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(serializer::createInstance).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void itsSnapshotRestoresTheSameSerializer() {
        assertThat(serializer.snapshotConfiguration().restoreSerializer()).isEqualTo(serializer);
        assertThat(EncodedBatchRowTypeInfo.INSTANCE).isEqualTo(EncodedBatchRowTypeInfo.INSTANCE)
                .hasSameHashCodeAs(EncodedBatchRowTypeInfo.INSTANCE);
    }
}

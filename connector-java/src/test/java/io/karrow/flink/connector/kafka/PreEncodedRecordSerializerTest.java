package io.karrow.flink.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

import java.util.List;

/** {@link PreEncodedRecordSerializer} round-trips every field, present or absent. */
class PreEncodedRecordSerializerTest {

    @Test
    void roundTripsAllFields() throws Exception {
        List<Header> headers = List.of(new RecordHeader("a", new byte[] {1, 2}), new RecordHeader("b", (byte[]) null));
        PreEncodedRecord full = new PreEncodedRecord("t", new byte[] {9}, new byte[] {0, 0, 0, 0, 1, 2}, 42L, headers, new byte[] {7, 7});
        PreEncodedRecord copy = roundTrip(full);
        assertThat(copy.topic()).isEqualTo("t");
        assertThat(copy.key()).containsExactly(9);
        assertThat(copy.value()).containsExactly(0, 0, 0, 0, 1, 2);
        assertThat(copy.timestamp()).isEqualTo(42L);
        assertThat(copy.headers()).hasSize(2);
        assertThat(copy.headers().get(0).key()).isEqualTo("a");
        assertThat(copy.headers().get(0).value()).containsExactly(1, 2);
        assertThat(copy.headers().get(1).value()).isNull();
        assertThat(copy.rowImage()).containsExactly(7, 7);
    }

    @Test
    void roundTripsAnEmptyRecord() throws Exception {
        PreEncodedRecord copy = roundTrip(new PreEncodedRecord(null, null, null, null, null, null));
        assertThat(copy.topic()).isNull();
        assertThat(copy.key()).isNull();
        assertThat(copy.value()).isNull();
        assertThat(copy.timestamp()).isNull();
        assertThat(copy.headers()).isNull();
        assertThat(copy.rowImage()).isNull();
    }

    @Test
    void copyIsIdentityForImmutableRecords() {
        PreEncodedRecord record = new PreEncodedRecord(null, null, new byte[] {1}, null, null, null);
        assertThat(PreEncodedRecordSerializer.INSTANCE.copy(record)).isSameAs(record);
        assertThat(PreEncodedRecordSerializer.INSTANCE.snapshotConfiguration().restoreSerializer())
                .isSameAs(PreEncodedRecordSerializer.INSTANCE);
    }

    private static PreEncodedRecord roundTrip(PreEncodedRecord record) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        PreEncodedRecordSerializer.INSTANCE.serialize(record, out);
        return PreEncodedRecordSerializer.INSTANCE.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    }
}

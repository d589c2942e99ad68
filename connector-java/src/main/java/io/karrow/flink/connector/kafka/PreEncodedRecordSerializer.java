package io.karrow.flink.connector.kafka;

import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Serializer of {@link PreEncodedRecord}s between the encode operator and the Kafka writer when they
 * are not chained. Records are immutable, so {@link #copy} returns its argument (chained operators
 * copy nothing).
 */
public final class PreEncodedRecordSerializer extends TypeSerializerSingleton<PreEncodedRecord> {

    private static final long serialVersionUID = 1L;

    /** The one instance. */
    public static final PreEncodedRecordSerializer INSTANCE = new PreEncodedRecordSerializer();

    private static final int TOPIC = 1;
    private static final int KEY = 1 << 1;
    private static final int VALUE = 1 << 2;
    private static final int TIMESTAMP = 1 << 3;
    private static final int HEADERS = 1 << 4;
    private static final int ROW = 1 << 5;

    private PreEncodedRecordSerializer() {}

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public PreEncodedRecord createInstance() {
        return new PreEncodedRecord(null, null, null, null, null, null);
    }

    @Override
    public PreEncodedRecord copy(PreEncodedRecord from) {
        return from;
    }

    @Override
    public PreEncodedRecord copy(PreEncodedRecord from, PreEncodedRecord reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(PreEncodedRecord record, DataOutputView target) throws IOException {
        int flags = (record.topic() != null ? TOPIC : 0)
                | (record.key() != null ? KEY : 0)
                | (record.value() != null ? VALUE : 0)
                | (record.timestamp() != null ? TIMESTAMP : 0)
                | (record.headers() != null ? HEADERS : 0)
                | (record.rowImage() != null ? ROW : 0);
        target.writeByte(flags);
        if (record.topic() != null) {
            target.writeUTF(record.topic());
        }
        if (record.key() != null) {
            writeBytes(record.key(), target);
        }
        if (record.value() != null) {
            writeBytes(record.value(), target);
        }
        if (record.timestamp() != null) {
            target.writeLong(record.timestamp());
        }
        if (record.headers() != null) {
            target.writeInt(record.headers().size());
            for (Header header : record.headers()) {
                target.writeUTF(header.key());
                byte[] value = header.value();
                target.writeBoolean(value != null);
                if (value != null) {
                    writeBytes(value, target);
                }
            }
        }
        if (record.rowImage() != null) {
            writeBytes(record.rowImage(), target);
        }
    }

    @Override
    public PreEncodedRecord deserialize(DataInputView source) throws IOException {
        int flags = source.readByte();
        String topic = (flags & TOPIC) != 0 ? source.readUTF() : null;
        byte[] key = (flags & KEY) != 0 ? readBytes(source) : null;
        byte[] value = (flags & VALUE) != 0 ? readBytes(source) : null;
        Long timestamp = (flags & TIMESTAMP) != 0 ? source.readLong() : null;
        List<Header> headers = null;
        if ((flags & HEADERS) != 0) {
            int size = source.readInt();
            headers = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                String headerKey = source.readUTF();
                byte[] headerValue = source.readBoolean() ? readBytes(source) : null;
                headers.add(new RecordHeader(headerKey, headerValue));
            }
        }
        byte[] row = (flags & ROW) != 0 ? readBytes(source) : null;
        return new PreEncodedRecord(topic, key, value, timestamp, headers, row);
    }

    @Override
    public PreEncodedRecord deserialize(PreEncodedRecord reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public TypeSerializerSnapshot<PreEncodedRecord> snapshotConfiguration() {
        return new PreEncodedRecordSerializerSnapshot();
    }

    private static void writeBytes(byte[] bytes, DataOutputView target) throws IOException {
        target.writeInt(bytes.length);
        target.write(bytes);
    }

    private static byte[] readBytes(DataInputView source) throws IOException {
        byte[] bytes = new byte[source.readInt()];
        source.readFully(bytes);
        return bytes;
    }

    /** Snapshot of the configuration-free {@link PreEncodedRecordSerializer}. */
    public static final class PreEncodedRecordSerializerSnapshot
            extends SimpleTypeSerializerSnapshot<PreEncodedRecord> {

        /** Creates the snapshot (also used reflectively when restoring). */
        public PreEncodedRecordSerializerSnapshot() {
            super(() -> INSTANCE);
        }
    }
}

package io.karrow.flink.connector.kafka;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.RowData;

/**
 * The type of a fully fused {@code kafka-native} source's output ({@link EncodedBatchRow}, one per
 * fetched batch), declared on the source and on the chained Calc slot. With object reuse off, Flink
 * copies each element between chained operators with its type's serializer: this one's copy is the
 * element itself (Flink's row serializer would rebuild the row field by field). Anything that would
 * serialize it — an edge that is not chained, a network shuffle, state — fails with a message: the
 * carrier never silently crosses a boundary it was not planned for.
 */
public final class EncodedBatchRowTypeInfo extends TypeInformation<RowData> {

    private static final long serialVersionUID = 1L;

    /** The one instance. */
    public static final EncodedBatchRowTypeInfo INSTANCE = new EncodedBatchRowTypeInfo();

    private EncodedBatchRowTypeInfo() {}

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<RowData> getTypeClass() {
        return RowData.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<RowData> createSerializer(SerializerConfig config) {
        return Serializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "EncodedBatchRow";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof EncodedBatchRowTypeInfo;
    }

    @Override
    public int hashCode() {
        return EncodedBatchRowTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof EncodedBatchRowTypeInfo;
    }

    /** Copies by identity; refuses to serialize. */
    static final class Serializer extends TypeSerializer<RowData> {

        private static final long serialVersionUID = 1L;

        static final Serializer INSTANCE = new Serializer();

        private static UnsupportedOperationException unchained() {
            return new UnsupportedOperationException("The encoded batches of a fully fused kafka-native source"
                    + " cross only chained edges (source, Calc slot and kafka-native sink chained, same"
                    + " parallelism); something tried to serialize one (an unchained edge, a shuffle or state):"
                    + " a planning error of full fusion");
        }

        @Override
        public boolean isImmutableType() {
            return false;
        }

        @Override
        public TypeSerializer<RowData> duplicate() {
            return this;
        }

        @Override
        public RowData createInstance() {
            throw unchained();
        }

        @Override
        public RowData copy(RowData from) {
            return from;
        }

        @Override
        public RowData copy(RowData from, RowData reuse) {
            return from;
        }

        @Override
        public int getLength() {
            return -1;
        }

        @Override
        public void serialize(RowData record, DataOutputView target) {
            throw unchained();
        }

        @Override
        public RowData deserialize(DataInputView source) {
            throw unchained();
        }

        @Override
        public RowData deserialize(RowData reuse, DataInputView source) {
            throw unchained();
        }

        @Override
        public void copy(DataInputView source, DataOutputView target) {
            throw unchained();
        }

        @Override
        public boolean equals(Object obj) {
            return obj instanceof Serializer;
        }

        @Override
        public int hashCode() {
            return Serializer.class.hashCode();
        }

        @Override
        public TypeSerializerSnapshot<RowData> snapshotConfiguration() {
            return new Snapshot();
        }
    }

    /** The serializer's snapshot (it has no configuration). */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<RowData> {

        /** For Flink's reflective instantiation. */
        public Snapshot() {
            super(() -> Serializer.INSTANCE);
        }
    }
}

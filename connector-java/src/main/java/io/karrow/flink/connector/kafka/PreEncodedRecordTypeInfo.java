package io.karrow.flink.connector.kafka;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information of {@link PreEncodedRecord}, served by {@link PreEncodedRecordSerializer}. */
public final class PreEncodedRecordTypeInfo extends TypeInformation<PreEncodedRecord> {

    private static final long serialVersionUID = 1L;

    /** The one instance. */
    public static final PreEncodedRecordTypeInfo INSTANCE = new PreEncodedRecordTypeInfo();

    private PreEncodedRecordTypeInfo() {}

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
    public Class<PreEncodedRecord> getTypeClass() {
        return PreEncodedRecord.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<PreEncodedRecord> createSerializer(SerializerConfig config) {
        return PreEncodedRecordSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "PreEncodedRecord";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof PreEncodedRecordTypeInfo;
    }

    @Override
    public int hashCode() {
        return PreEncodedRecordTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof PreEncodedRecordTypeInfo;
    }
}

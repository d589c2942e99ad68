package io.karrow.bench.nexmark;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;
import org.apache.flink.util.Collector;

import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;

/**
 * Format {@code protobuf-confluent-reference} (decode only): the stock side of the suite's Confluent
 * Protobuf topic. Open-source Flink has no Confluent Protobuf format and Confluent's deserializer is
 * not on Maven Central, so this is Flink's own {@code protobuf} format (flink-protobuf, a generated
 * message class named by {@code message-class-name}) behind the Confluent framing: the magic byte
 * {@code 0x00}, a 4-byte schema id and the message-index array are checked and skipped, the rest is
 * what flink-protobuf decodes. The decoding work is flink-protobuf's.
 */
public final class ProtobufConfluentReferenceFormatFactory implements DeserializationFormatFactory {

    /** The format identifier. */
    public static final String IDENTIFIER = "protobuf-confluent-reference";

    static final ConfigOption<String> MESSAGE_CLASS_NAME =
            ConfigOptions.key("message-class-name").stringType().noDefaultValue();

    @Override
    public DecodingFormat<DeserializationSchema<RowData>> createDecodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        FactoryUtil.validateFactoryOptions(this, formatOptions);
        DeserializationFormatFactory protobuf = FactoryUtil.discoverFactory(
                context.getClassLoader(), DeserializationFormatFactory.class, "protobuf");
        DecodingFormat<DeserializationSchema<RowData>> inner = protobuf.createDecodingFormat(
                context, Configuration.fromMap(Map.of("message-class-name", formatOptions.get(MESSAGE_CLASS_NAME))));
        return new DecodingFormat<>() {
            @Override
            public DeserializationSchema<RowData> createRuntimeDecoder(
                    DynamicTableSource.Context ctx, DataType physicalDataType) {
                return new Unframing(inner.createRuntimeDecoder(ctx, physicalDataType));
            }

            @Override
            public ChangelogMode getChangelogMode() {
                return ChangelogMode.insertOnly();
            }
        };
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(MESSAGE_CLASS_NAME);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    /** Length of the Confluent header of {@code value}: magic, schema id, message indexes. */
    public static int headerLength(byte[] value) throws IOException {
        if (value.length < 6 || value[0] != 0) {
            throw new IOException("Unknown data format. Magic number does not match");
        }
        int[] at = {5};
        long count = zigZag(value, at);
        if (count < 0 || count > value.length) {
            throw new IOException("invalid Confluent message-index array");
        }
        for (long i = 0; i < count; i++) {
            zigZag(value, at);
        }
        return at[0];
    }

    private static long zigZag(byte[] value, int[] at) throws IOException {
        int raw = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (at[0] >= value.length) {
                throw new IOException("truncated Confluent message-index array");
            }
            int b = value[at[0]++];
            raw |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw new IOException("Confluent message-index varint longer than 5 bytes");
    }

    /** flink-protobuf's deserializer over the bytes after the Confluent header. */
    private static final class Unframing implements DeserializationSchema<RowData> {
        private static final long serialVersionUID = 1L;
        private final DeserializationSchema<RowData> inner;

        Unframing(DeserializationSchema<RowData> inner) {
            this.inner = inner;
        }

        @Override
        public void open(InitializationContext context) throws Exception {
            inner.open(context);
        }

        @Override
        public RowData deserialize(byte[] message) throws IOException {
            return message == null ? null : inner.deserialize(strip(message));
        }

        @Override
        public void deserialize(byte[] message, Collector<RowData> out) throws IOException {
            if (message != null) {
                inner.deserialize(strip(message), out);
            }
        }

        private static byte[] strip(byte[] message) throws IOException {
            return Arrays.copyOfRange(message, headerLength(message), message.length);
        }

        @Override
        public boolean isEndOfStream(RowData nextElement) {
            return false;
        }

        @Override
        public TypeInformation<RowData> getProducedType() {
            return inner.getProducedType();
        }
    }
}

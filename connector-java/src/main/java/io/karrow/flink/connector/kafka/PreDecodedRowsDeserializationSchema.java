package io.karrow.flink.connector.kafka;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.io.IOException;

/**
 * The task-thread half of decoding: emits the rows a {@link DecodedKafkaRecord} already carries
 * (decoded on the fetcher thread), or throws its decoding failure. Used inside Flink's stock {@code
 * KafkaRecordEmitter}, so timestamps and split offsets are handled exactly as by the {@code kafka}
 * source.
 */
final class PreDecodedRowsDeserializationSchema implements KafkaRecordDeserializationSchema<RowData> {

    private static final long serialVersionUID = 1L;

    private final TypeInformation<RowData> producedType;

    PreDecodedRowsDeserializationSchema(TypeInformation<RowData> producedType) {
        this.producedType = producedType;
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<RowData> out) throws IOException {
        if (!(record instanceof DecodedKafkaRecord)) {
            throw new IllegalStateException("The kafka-native source received an undecoded record at " + record.topic()
                    + "-" + record.partition() + " offset " + record.offset());
        }
        ((DecodedKafkaRecord) record).emitTo(out);
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }
}

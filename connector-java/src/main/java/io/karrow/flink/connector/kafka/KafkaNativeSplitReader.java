package io.karrow.flink.connector.kafka;

import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.kafka.source.metrics.KafkaSourceReaderMetrics;
import org.apache.flink.connector.kafka.source.reader.KafkaPartitionSplitReader;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * Flink's {@link KafkaPartitionSplitReader} (polling, assignment, stopping offsets, offset commits,
 * consumer metrics: all unchanged) with decoding moved onto the fetcher thread: each poll's records
 * are decoded per split, in one batch, before they are handed to the task thread.
 *
 * <p>Stays a {@code KafkaPartitionSplitReader} because Flink's {@code KafkaSourceFetcherManager}
 * casts to it to commit offsets. Owns its {@link KafkaRecordBatchDecoder} and closes it with the
 * consumer.
 */
final class KafkaNativeSplitReader extends KafkaPartitionSplitReader {

    private final KafkaRecordBatchDecoder decoder;
    private final List<ConsumerRecord<byte[], byte[]>> pending = new ArrayList<>();

    KafkaNativeSplitReader(
            Properties props,
            SourceReaderContext context,
            KafkaSourceReaderMetrics kafkaSourceReaderMetrics,
            @Nullable String rackId,
            KafkaRecordDecoderSpec spec,
            KafkaNativeSourceMetrics metrics) {
        super(props, context, kafkaSourceReaderMetrics, rackId);
        try {
            this.decoder = spec.open(context, metrics);
        } catch (Exception e) {
            try {
                super.close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new IllegalStateException("Could not open the kafka-native record decoder: " + e.getMessage(), e);
        }
    }

    /** Polls like the stock reader, then decodes each split's records in one batch. */
    @Override
    public RecordsWithSplitIds<ConsumerRecord<byte[], byte[]>> fetch() throws IOException {
        RecordsWithSplitIds<ConsumerRecord<byte[], byte[]>> fetched = super.fetch();
        DecodedRecordsBySplits decoded = new DecodedRecordsBySplits(fetched.finishedSplits());
        String splitId;
        while ((splitId = fetched.nextSplit()) != null) {
            pending.clear();
            ConsumerRecord<byte[], byte[]> record;
            // The stock iterator drops records at or after the stopping offset and tracks currentOffset.
            while ((record = fetched.nextRecordFromSplit()) != null) {
                pending.add(record);
            }
            decoded.add(splitId, decoder.decode(pending));
        }
        pending.clear();
        fetched.recycle();
        return decoded;
    }

    /** Closes the consumer, then the decoder. */
    @Override
    public void close() throws Exception {
        try {
            super.close();
        } finally {
            decoder.close();
        }
    }
}

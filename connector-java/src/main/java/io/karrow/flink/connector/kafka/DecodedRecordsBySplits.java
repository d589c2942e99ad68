package io.karrow.flink.connector.kafka;

import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The decoded records of one fetch, grouped by split in fetch order, plus the splits the fetch
 * finished; what {@link KafkaNativeSplitReader#fetch()} hands to the task thread.
 */
final class DecodedRecordsBySplits implements RecordsWithSplitIds<ConsumerRecord<byte[], byte[]>> {

    private final List<String> splitIds = new ArrayList<>();
    private final List<List<DecodedKafkaRecord>> records = new ArrayList<>();
    private final Set<String> finishedSplits;
    private int split = -1;
    private Iterator<DecodedKafkaRecord> current;

    /** Creates an empty fetch result that finishes {@code finishedSplits}. */
    DecodedRecordsBySplits(Set<String> finishedSplits) {
        this.finishedSplits = finishedSplits;
    }

    /** Adds the decoded records of one split. */
    void add(String splitId, List<DecodedKafkaRecord> splitRecords) {
        splitIds.add(splitId);
        records.add(splitRecords);
    }

    @Override
    public String nextSplit() {
        split++;
        if (split < splitIds.size()) {
            current = records.get(split).iterator();
            return splitIds.get(split);
        }
        current = null;
        return null;
    }

    @Override
    public ConsumerRecord<byte[], byte[]> nextRecordFromSplit() {
        if (current == null) {
            throw new IllegalStateException("nextSplit() must return a split before records are read");
        }
        return current.hasNext() ? current.next() : null;
    }

    @Override
    public Set<String> finishedSplits() {
        return finishedSplits;
    }
}

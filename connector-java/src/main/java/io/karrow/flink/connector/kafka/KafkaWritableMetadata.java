package io.karrow.flink.connector.kafka;

import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * The writable metadata columns of a Kafka sink table ({@code topic}, {@code headers}, {@code
 * timestamp}), read from a consumed row exactly as Flink's {@code KafkaDynamicSink} reads them.
 */
enum KafkaWritableMetadata {
    TOPIC("topic"),
    HEADERS("headers"),
    TIMESTAMP("timestamp");

    private final String key;

    KafkaWritableMetadata(String key) {
        this.key = key;
    }

    /**
     * Position of each metadata column in the consumed row, indexed by ordinal ({@code -1} when the
     * table does not declare it): the declared metadata columns follow the physical columns.
     */
    static int[] positions(List<String> metadataKeys, int physicalArity) {
        KafkaWritableMetadata[] all = values();
        int[] positions = new int[all.length];
        for (KafkaWritableMetadata m : all) {
            int index = metadataKeys.indexOf(m.key);
            positions[m.ordinal()] = index < 0 ? -1 : physicalArity + index;
        }
        return positions;
    }

    /** The {@code topic} column's value, or {@code null}. */
    static @Nullable String readTopic(RowData row, int pos) {
        if (pos < 0 || row.isNullAt(pos)) {
            return null;
        }
        return row.getString(pos).toString();
    }

    /** The {@code headers} column as Kafka headers (entries with a null key or value skipped), or {@code null}. */
    static @Nullable List<Header> readHeaders(RowData row, int pos) {
        if (pos < 0 || row.isNullAt(pos)) {
            return null;
        }
        MapData map = row.getMap(pos);
        ArrayData keys = map.keyArray();
        ArrayData values = map.valueArray();
        List<Header> headers = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            if (!keys.isNullAt(i) && !values.isNullAt(i)) {
                headers.add(new RecordHeader(keys.getString(i).toString(), values.getBinary(i)));
            }
        }
        return headers;
    }

    /** The {@code timestamp} column in epoch milliseconds, or {@code null} (Kafka assigns one). */
    static @Nullable Long readTimestamp(RowData row, int pos) {
        if (pos < 0 || row.isNullAt(pos)) {
            return null;
        }
        return row.getTimestamp(pos, 3).getMillisecond();
    }
}

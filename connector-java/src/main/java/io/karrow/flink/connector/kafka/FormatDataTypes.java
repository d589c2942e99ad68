package io.karrow.flink.connector.kafka;

import org.apache.flink.streaming.connectors.kafka.table.TableDataTypeUtils;
import org.apache.flink.table.connector.Projection;
import org.apache.flink.table.types.DataType;

import javax.annotation.Nullable;

/** The row type a key or value format of a Kafka table sees, as Flink's Kafka connector computes it. */
final class FormatDataTypes {

    private FormatDataTypes() {}

    /** The {@code projection} of the table's physical columns, with {@code key.fields-prefix} stripped. */
    static DataType of(DataType physicalDataType, int[] projection, @Nullable String prefix) {
        DataType type = Projection.of(projection).project(physicalDataType);
        return prefix == null ? type : TableDataTypeUtils.stripRowPrefix(type, prefix);
    }
}

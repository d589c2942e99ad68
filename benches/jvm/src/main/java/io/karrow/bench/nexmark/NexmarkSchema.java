package io.karrow.bench.nexmark;

import static org.apache.flink.table.api.DataTypes.BIGINT;
import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.apache.flink.table.api.DataTypes.INT;
import static org.apache.flink.table.api.DataTypes.ROW;
import static org.apache.flink.table.api.DataTypes.STRING;
import static org.apache.flink.table.api.DataTypes.TIMESTAMP;

import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The physical row of the suite's {@code nexmark} table ({@code benches/nexmark/sql/source.sql}):
 * what the event writers serialize and the sources read. Keep both in step.
 */
final class NexmarkSchema {

    private NexmarkSchema() {}

    /** The physical row type; with {@code millis} its timestamps are BIGINT epoch milliseconds (Protobuf). */
    static RowType rowType(boolean millis) {
        return (RowType) dataType(millis).getLogicalType();
    }

    static DataType dataType(boolean millis) {
        DataType time = millis ? BIGINT() : TIMESTAMP(3);
        return ROW(
                FIELD("event_type", INT()),
                FIELD("person", ROW(
                        FIELD("id", BIGINT()),
                        FIELD("name", STRING()),
                        FIELD("emailAddress", STRING()),
                        FIELD("creditCard", STRING()),
                        FIELD("city", STRING()),
                        FIELD("state", STRING()),
                        FIELD("dateTime", time),
                        FIELD("extra", STRING()))),
                FIELD("auction", ROW(
                        FIELD("id", BIGINT()),
                        FIELD("itemName", STRING()),
                        FIELD("description", STRING()),
                        FIELD("initialBid", BIGINT()),
                        FIELD("reserve", BIGINT()),
                        FIELD("dateTime", time),
                        FIELD("expires", time),
                        FIELD("seller", BIGINT()),
                        FIELD("category", BIGINT()),
                        FIELD("extra", STRING()))),
                FIELD("bid", ROW(
                        FIELD("auction", BIGINT()),
                        FIELD("bidder", BIGINT()),
                        FIELD("price", BIGINT()),
                        FIELD("channel", STRING()),
                        FIELD("url", STRING()),
                        FIELD("dateTime", time),
                        FIELD("extra", STRING()))))
                .notNull();
    }
}

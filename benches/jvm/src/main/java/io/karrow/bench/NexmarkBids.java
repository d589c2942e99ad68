package io.karrow.bench;

import static org.apache.flink.table.api.DataTypes.BIGINT;
import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.apache.flink.table.api.DataTypes.ROW;
import static org.apache.flink.table.api.DataTypes.STRING;
import static org.apache.flink.table.api.DataTypes.TIMESTAMP;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Random;

/**
 * The Nexmark bid stream of the benchmarks: the Flink table columns, the Avro writer schema a
 * producer registers, and a deterministic generator of Confluent-framed Avro values with Nexmark-like
 * field sizes (a URL of ~70-90 characters, a short channel name, an {@code extra} padding string of
 * 0-63 characters that is null in 5% of the bids).
 */
public final class NexmarkBids {

    /** The column list of the {@code bids} table, as in issue 2. */
    public static final String COLUMNS_DDL =
            "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, "
                    + "date_time TIMESTAMP(3), extra STRING";

    /** The Avro schema producers write bids with (registered under {@code <topic>-value}). */
    public static final String WRITER_SCHEMA =
            "{\"type\":\"record\",\"name\":\"Bid\",\"namespace\":\"io.karrow.bench.nexmark\",\"fields\":["
                    + "{\"name\":\"auction\",\"type\":\"long\"},"
                    + "{\"name\":\"bidder\",\"type\":\"long\"},"
                    + "{\"name\":\"price\",\"type\":\"long\"},"
                    + "{\"name\":\"channel\",\"type\":\"string\"},"
                    + "{\"name\":\"url\",\"type\":\"string\"},"
                    + "{\"name\":\"date_time\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},"
                    + "{\"name\":\"extra\",\"type\":[\"null\",\"string\"],\"default\":null}]}";

    private static final String[] HOT_CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};
    private static final long BASE_TIME_MILLIS = 1_700_000_000_000L;

    private NexmarkBids() {}

    /** The physical row type of the table (NOT NULL at the top level, as the planner passes it). */
    public static RowType rowType() {
        return (RowType)
                ROW(
                                FIELD("auction", BIGINT()),
                                FIELD("bidder", BIGINT()),
                                FIELD("price", BIGINT()),
                                FIELD("channel", STRING()),
                                FIELD("url", STRING()),
                                FIELD("date_time", TIMESTAMP(3)),
                                FIELD("extra", STRING()))
                        .notNull()
                        .getLogicalType();
    }

    /**
     * A deterministic stream of Confluent-framed bid values ({@code 0x00}, big-endian schema id,
     * Avro binary datum). Not thread-safe; reuses its encoder between calls.
     */
    public static final class Generator {

        private final Random random;
        private final int schemaId;
        private final Schema schema = new Schema.Parser().parse(WRITER_SCHEMA);
        private final GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(schema);
        private final GenericRecord record = new GenericData.Record(schema);
        private final ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        private final StringBuilder text = new StringBuilder(128);
        private BinaryEncoder encoder;
        private long index;

        /** Creates a generator for values framed with {@code schemaId}, seeded with {@code seed}. */
        public Generator(int schemaId, long seed) {
            this.schemaId = schemaId;
            this.random = new Random(seed);
        }

        /** The price of the bid last returned by {@link #next()}. */
        public long lastPrice() {
            return (Long) record.get("price");
        }

        /** Returns the next framed value. */
        public byte[] next() {
            fill(record, index++);
            out.reset();
            out.write(0);
            out.write(schemaId >>> 24);
            out.write(schemaId >>> 16);
            out.write(schemaId >>> 8);
            out.write(schemaId);
            encoder = EncoderFactory.get().binaryEncoder(out, encoder);
            try {
                writer.write(record, encoder);
                encoder.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return out.toByteArray();
        }

        /**
         * Returns the next bid as a Flink row of {@link #rowType()} (the same sequence of bids as
         * {@link #next()} would frame, for formats that start from rows).
         */
        public GenericRowData nextRow() {
            fill(record, index++);
            Object extra = record.get("extra");
            return GenericRowData.of(
                    record.get("auction"),
                    record.get("bidder"),
                    record.get("price"),
                    StringData.fromString(record.get("channel").toString()),
                    StringData.fromString(record.get("url").toString()),
                    TimestampData.fromEpochMillis((Long) record.get("date_time")),
                    extra == null ? null : StringData.fromString(extra.toString()));
        }

        private void fill(GenericRecord bid, long i) {
            Random r = random;
            bid.put("auction", 1000L + i / 16 + r.nextInt(64));
            bid.put("bidder", 1000L + r.nextInt(100_000));
            bid.put("price", (long) (Math.pow(10.0, r.nextDouble() * 6.0) * 100.0));
            String channel;
            int channelId = -1;
            if (r.nextInt(10) > 0) {
                channel = HOT_CHANNELS[r.nextInt(HOT_CHANNELS.length)];
            } else {
                channelId = r.nextInt(10_000);
                channel = "channel-" + channelId;
            }
            bid.put("channel", channel);
            text.setLength(0);
            text.append("https://www.nexmark.com/");
            word(r, 5).append('/');
            word(r, 5).append('/');
            word(r, 5).append("/item.htm?query=1");
            if (channelId >= 0) {
                text.append("&channel_id=").append(Integer.toUnsignedLong(Integer.reverse(channelId)));
            }
            bid.put("url", text.toString());
            bid.put("date_time", BASE_TIME_MILLIS + i * 10 + r.nextInt(10));
            if (r.nextInt(20) == 0) {
                bid.put("extra", null);
            } else {
                text.setLength(0);
                bid.put("extra", word(r, r.nextInt(64)).toString());
            }
        }

        private StringBuilder word(Random r, int length) {
            for (int k = 0; k < length; k++) {
                text.append((char) ('a' + r.nextInt(26)));
            }
            return text;
        }
    }
}

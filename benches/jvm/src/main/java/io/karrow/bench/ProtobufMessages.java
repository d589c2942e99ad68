package io.karrow.bench;

import static org.apache.flink.table.api.DataTypes.ARRAY;
import static org.apache.flink.table.api.DataTypes.BIGINT;
import static org.apache.flink.table.api.DataTypes.DOUBLE;
import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.apache.flink.table.api.DataTypes.INT;
import static org.apache.flink.table.api.DataTypes.MAP;
import static org.apache.flink.table.api.DataTypes.ROW;
import static org.apache.flink.table.api.DataTypes.STRING;

import io.karrow.bench.proto.OrdersProto;
import io.karrow.flink.formats.protobuf.proto.BidsProto;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.SerializationFormatFactory;
import org.apache.flink.table.runtime.connector.sink.SinkRuntimeProviderContext;
import org.apache.flink.table.runtime.connector.source.ScanRuntimeProviderContext;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The messages of the Protobuf benchmarks, and the {@code protobuf} / {@code protobuf-native} formats
 * created as a SQL table gets them (discovered by identifier through {@link FactoryUtil}, runtime
 * (de)serializer for the table's physical row type, opened).
 *
 * <p>Two message types ({@link Kind}): the Nexmark bids of {@link NexmarkBids} as the flat {@code
 * karrow.test.Bid} (the connector test-jar's {@code bids.proto}, {@code date_time} in epoch
 * milliseconds), and {@code karrow.bench.Order} ({@code src/main/proto/orders.proto}: a nested
 * address, repeated line items with repeated tags, a string map and a repeated int64). Rows come
 * from a seeded generator; values are those rows written by the generated class.
 */
final class ProtobufMessages {

    /** Identifier of Flink's own format (flink-protobuf 2.2.0). */
    static final String FLINK = "protobuf";

    /** Identifier of the format under test. */
    static final String NATIVE = "protobuf-native";

    /** A message type of the benchmarks: its table columns, generated class, rows and values. */
    enum Kind {
        /** The flat Nexmark bid ({@code karrow.test.Bid}, 7 fields, ~120 bytes). */
        BID(BidsProto.Bid.class.getName()) {
            @Override
            RowType rowType() {
                return bidRowType();
            }

            @Override
            GenericRowData[] rows(int count) {
                return bidRows(count);
            }

            @Override
            byte[] message(RowData row) {
                return bidMessage(row);
            }
        },
        /** The nested order ({@code karrow.bench.Order}, nested, repeated and map fields). */
        ORDER(OrdersProto.Order.class.getName()) {
            @Override
            RowType rowType() {
                return orderRowType();
            }

            @Override
            GenericRowData[] rows(int count) {
                return orderRows(count);
            }

            @Override
            byte[] message(RowData row) {
                return orderMessage(row);
            }
        };

        /** The generated class ({@code message-class-name}). */
        final String messageClass;

        Kind(String messageClass) {
            this.messageClass = messageClass;
        }

        /** The columns of a table of this message in {@code protobuf} (NOT NULL at the top level). */
        abstract RowType rowType();

        /** The first {@code count} rows of the seeded generator. */
        abstract GenericRowData[] rows(int count);

        /** {@code row} written by the generated class (NULL fields left unset). */
        abstract byte[] message(RowData row);

        /** The rows of {@link #rows(int)} written by the generated class. */
        byte[][] messages(int count) {
            GenericRowData[] rows = rows(count);
            byte[][] out = new byte[count][];
            for (int i = 0; i < count; i++) {
                out[i] = message(rows[i]);
            }
            return out;
        }
    }

    private ProtobufMessages() {}

    // ------------------------------------------------------------------------------------------
    // Bids
    // ------------------------------------------------------------------------------------------

    private static RowType bidRowType() {
        return (RowType)
                ROW(
                                FIELD("auction", BIGINT()),
                                FIELD("bidder", BIGINT()),
                                FIELD("price", BIGINT()),
                                FIELD("channel", STRING()),
                                FIELD("url", STRING()),
                                FIELD("date_time", BIGINT()),
                                FIELD("extra", STRING()))
                        .notNull()
                        .getLogicalType();
    }

    /** The columns of a table of {@code karrow.test.Bid} ({@code date_time} in epoch milliseconds). */
    static final String BID_COLUMNS_DDL =
            "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, date_time BIGINT, extra STRING";

    /** The generated class of {@code karrow.test.Bid}, for {@code message-class-name}. */
    static final String BID_CLASS = BidsProto.Bid.class.getName();

    /** The bids of {@link NexmarkBids.Generator} (seed 42); {@code extra} is NULL in about 5%. */
    private static GenericRowData[] bidRows(int count) {
        NexmarkBids.Generator generator = new NexmarkBids.Generator(0, 42L);
        GenericRowData[] out = new GenericRowData[count];
        for (int i = 0; i < count; i++) {
            out[i] = bidRow(generator.nextRow());
        }
        return out;
    }

    /** A bid of {@link NexmarkBids.Generator#nextRow()} as a row of {@link #BID_COLUMNS_DDL}. */
    static GenericRowData bidRow(GenericRowData bid) {
        GenericRowData row = new GenericRowData(7);
        for (int f = 0; f < 7; f++) {
            row.setField(f, bid.getField(f));
        }
        row.setField(5, ((TimestampData) bid.getField(5)).getMillisecond());
        return row;
    }

    /** A row of {@link #BID_COLUMNS_DDL} written by the generated class (a NULL {@code extra} left unset). */
    static byte[] bidMessage(RowData row) {
        BidsProto.Bid.Builder bid = BidsProto.Bid.newBuilder()
                .setAuction(row.getLong(0))
                .setBidder(row.getLong(1))
                .setPrice(row.getLong(2))
                .setChannel(row.getString(3).toString())
                .setUrl(row.getString(4).toString())
                .setDateTime(row.getLong(5));
        if (!row.isNullAt(6)) {
            bid.setExtra(row.getString(6).toString());
        }
        return bid.build().toByteArray();
    }

    // ------------------------------------------------------------------------------------------
    // Orders
    // ------------------------------------------------------------------------------------------

    private static final String[] STATUSES = {"PENDING", "PAID", "SHIPPED", "DELIVERED", "CANCELLED"};
    private static final String[] FIRST_NAMES = {"Anna", "Ben", "Chloé", "David", "Elif", "Finn", "Greta", "Hugo",
            "Ines", "Jonas", "Karl", "Lena", "Mehmet", "Nora", "Oskar", "Paula"};
    private static final String[] LAST_NAMES = {"Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer",
            "Wagner", "Becker", "Schulz", "Hoffmann", "Koch", "Richter", "Klein", "Wolf", "Neumann", "Schwarz"};
    private static final String[] STREETS = {"Hauptstraße", "Schulstraße", "Gartenweg", "Bahnhofstraße",
            "Lindenallee", "Kirchgasse", "Dorfstraße", "Bergstraße"};
    private static final String[] CITIES = {"Berlin", "Hamburg", "München", "Köln", "Frankfurt am Main",
            "Stuttgart", "Düsseldorf", "Leipzig", "Dortmund", "Essen"};
    private static final String[] COUNTRIES = {"DE", "DE", "DE", "AT", "CH", "NL", "FR"};
    private static final String[] TAGS = {"fragile", "gift", "bulky", "express", "refurbished", "clearance"};
    private static final String[] CHANNELS = {"web", "ios", "android", "store"};
    private static final String[] LOCALES = {"de-DE", "de-AT", "de-CH", "en-GB", "fr-FR", "nl-NL"};
    private static final double[] TAX_RATES = {0.19, 0.07, 0.2, 0.077, 0.21};
    private static final long BASE_TIME_MILLIS = 1_700_000_000_000L;

    private static RowType orderRowType() {
        return (RowType)
                ROW(
                                FIELD("order_id", BIGINT()),
                                FIELD("customer_id", BIGINT()),
                                FIELD("created_at", BIGINT()),
                                FIELD("status", STRING()),
                                FIELD("shipping", ROW(
                                        FIELD("name", STRING()),
                                        FIELD("street", STRING()),
                                        FIELD("city", STRING()),
                                        FIELD("zip", STRING()),
                                        FIELD("country", STRING()))),
                                FIELD("items", ARRAY(ROW(
                                        FIELD("sku", STRING()),
                                        FIELD("quantity", INT()),
                                        FIELD("unit_price_cents", BIGINT()),
                                        FIELD("tags", ARRAY(STRING()))))),
                                FIELD("attributes", MAP(STRING(), STRING())),
                                FIELD("coupon_ids", ARRAY(BIGINT())),
                                FIELD("total_cents", BIGINT()),
                                FIELD("tax_rate", DOUBLE()))
                        .notNull()
                        .getLogicalType();
    }

    /**
     * Orders from a seeded generator: 1-4 line items with 0-2 tags, 0-4 attributes, 0-2 coupons, the
     * shipping address absent (NULL) in about 3% and German names and places (non-ASCII UTF-8).
     */
    private static GenericRowData[] orderRows(int count) {
        Random r = new Random(42L);
        GenericRowData[] out = new GenericRowData[count];
        for (int i = 0; i < count; i++) {
            GenericRowData shipping = null;
            if (r.nextInt(100) >= 3) {
                shipping = GenericRowData.of(
                        str(pick(r, FIRST_NAMES) + " " + pick(r, LAST_NAMES)),
                        str(pick(r, STREETS) + " " + (1 + r.nextInt(180))),
                        str(pick(r, CITIES)),
                        str(String.format("%05d", 1000 + r.nextInt(98_000))),
                        str(pick(r, COUNTRIES)));
            }
            int itemCount = 1 + r.nextInt(4);
            GenericRowData[] items = new GenericRowData[itemCount];
            long total = 0;
            for (int k = 0; k < itemCount; k++) {
                int quantity = 1 + r.nextInt(r.nextInt(10) == 0 ? 20 : 3);
                long unitPrice = 99 + r.nextInt(49_900);
                total += quantity * unitPrice;
                StringData[] tags = new StringData[r.nextInt(3)];
                for (int t = 0; t < tags.length; t++) {
                    tags[t] = str(pick(r, TAGS));
                }
                items[k] = GenericRowData.of(
                        str(String.format("SKU-%06d-%s", r.nextInt(1_000_000), (char) ('A' + r.nextInt(26)))),
                        quantity,
                        unitPrice,
                        new GenericArrayData(tags));
            }
            Map<StringData, StringData> attributes = new LinkedHashMap<>();
            if (r.nextInt(4) > 0) {
                attributes.put(str("channel"), str(pick(r, CHANNELS)));
            }
            if (r.nextInt(2) == 0) {
                attributes.put(str("locale"), str(pick(r, LOCALES)));
            }
            if (r.nextInt(5) == 0) {
                attributes.put(str("campaign"), str("spring-sale-" + r.nextInt(40)));
            }
            if (r.nextInt(10) == 0) {
                attributes.put(str("gift_message"), str("Alles Gute zum Geburtstag! " + pick(r, FIRST_NAMES)));
            }
            long[] coupons = new long[r.nextInt(5) == 0 ? 1 + r.nextInt(2) : 0];
            for (int c = 0; c < coupons.length; c++) {
                coupons[c] = 10_000_000L + r.nextInt(1_000_000);
            }
            out[i] = GenericRowData.of(
                    7_000_000_000L + i,
                    10_000L + r.nextInt(500_000),
                    BASE_TIME_MILLIS + i * 37L + r.nextInt(37),
                    str(pick(r, STATUSES)),
                    shipping,
                    new GenericArrayData(items),
                    new GenericMapData(attributes),
                    new GenericArrayData(coupons),
                    total,
                    TAX_RATES[r.nextInt(TAX_RATES.length)]);
        }
        return out;
    }

    private static byte[] orderMessage(RowData row) {
        OrdersProto.Order.Builder order = OrdersProto.Order.newBuilder()
                .setOrderId(row.getLong(0))
                .setCustomerId(row.getLong(1))
                .setCreatedAt(row.getLong(2))
                .setStatus(row.getString(3).toString())
                .setTotalCents(row.getLong(8))
                .setTaxRate(row.getDouble(9));
        if (!row.isNullAt(4)) {
            RowData a = row.getRow(4, 5);
            order.setShipping(OrdersProto.Address.newBuilder()
                    .setName(a.getString(0).toString())
                    .setStreet(a.getString(1).toString())
                    .setCity(a.getString(2).toString())
                    .setZip(a.getString(3).toString())
                    .setCountry(a.getString(4).toString()));
        }
        ArrayData items = row.getArray(5);
        for (int k = 0; k < items.size(); k++) {
            RowData item = items.getRow(k, 4);
            OrdersProto.LineItem.Builder b = OrdersProto.LineItem.newBuilder()
                    .setSku(item.getString(0).toString())
                    .setQuantity(item.getInt(1))
                    .setUnitPriceCents(item.getLong(2));
            ArrayData tags = item.getArray(3);
            for (int t = 0; t < tags.size(); t++) {
                b.addTags(tags.getString(t).toString());
            }
            order.addItems(b);
        }
        MapData attributes = row.getMap(6);
        for (int e = 0; e < attributes.size(); e++) {
            order.putAttributes(attributes.keyArray().getString(e).toString(),
                    attributes.valueArray().getString(e).toString());
        }
        ArrayData coupons = row.getArray(7);
        for (int c = 0; c < coupons.size(); c++) {
            order.addCouponIds(coupons.getLong(c));
        }
        return order.build().toByteArray();
    }

    private static String pick(Random r, String[] values) {
        return values[r.nextInt(values.length)];
    }

    private static StringData str(String s) {
        return StringData.fromString(s);
    }

    // ------------------------------------------------------------------------------------------
    // Formats
    // ------------------------------------------------------------------------------------------

    /** The opened runtime decoder of format {@code identifier} for the table of {@code kind}. */
    static DeserializationSchema<RowData> decoder(String identifier, Kind kind) throws Exception {
        return decoder(identifier, kind.rowType(), kind.messageClass);
    }

    /**
     * The opened runtime decoder of format {@code identifier} for a table of {@code rowType}'s
     * columns whose {@code message-class-name} is {@code messageClass}.
     */
    static DeserializationSchema<RowData> decoder(String identifier, RowType rowType, String messageClass)
            throws Exception {
        DeserializationFormatFactory factory = FactoryUtil.discoverFactory(
                Thread.currentThread().getContextClassLoader(), DeserializationFormatFactory.class, identifier);
        DataType physical = TypeConversions.fromLogicalToDataType(rowType);
        DeserializationSchema<RowData> schema = factory
                .createDecodingFormat(context(rowType), options(messageClass))
                .createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, physical);
        schema.open(InitContext.INSTANCE);
        return schema;
    }

    /** The opened runtime encoder of format {@code identifier} for the table of {@code kind}. */
    static SerializationSchema<RowData> encoder(String identifier, Kind kind) throws Exception {
        return encoder(identifier, kind.rowType(), kind.messageClass);
    }

    /**
     * The opened runtime encoder of format {@code identifier} for a table of {@code rowType}'s
     * columns whose {@code message-class-name} is {@code messageClass}.
     */
    static SerializationSchema<RowData> encoder(String identifier, RowType rowType, String messageClass)
            throws Exception {
        SerializationFormatFactory factory = FactoryUtil.discoverFactory(
                Thread.currentThread().getContextClassLoader(), SerializationFormatFactory.class, identifier);
        DataType physical = TypeConversions.fromLogicalToDataType(rowType);
        SerializationSchema<RowData> schema = factory
                .createEncodingFormat(context(rowType), options(messageClass))
                .createRuntimeEncoder(new SinkRuntimeProviderContext(false), physical);
        schema.open(InitContext.INSTANCE);
        return schema;
    }

    /** Closes a native schema (they are {@link AutoCloseable}); Flink's need nothing. */
    static void close(Object schema) throws Exception {
        if (schema instanceof AutoCloseable) {
            ((AutoCloseable) schema).close();
        }
    }

    /** The format options of the table: the message class, everything else at Flink's defaults. */
    private static Configuration options(String messageClass) {
        return Configuration.fromMap(Map.of("message-class-name", messageClass));
    }

    /** A value-only Kafka table of {@code rowType}'s columns (no key format, no metadata columns). */
    private static DynamicTableFactory.Context context(RowType rowType) {
        List<Column> columns = new ArrayList<>();
        for (RowType.RowField field : rowType.getFields()) {
            columns.add(Column.physical(field.getName(), TypeConversions.fromLogicalToDataType(field.getType())));
        }
        ResolvedSchema schema = ResolvedSchema.of(columns);
        CatalogTable table = CatalogTable.newBuilder()
                .schema(Schema.newBuilder().fromResolvedSchema(schema).build())
                .options(Map.of("connector", "kafka"))
                .build();
        return new FactoryUtil.DefaultDynamicTableContext(
                ObjectIdentifier.of("default_catalog", "default_database", "t"),
                new ResolvedCatalogTable(table, schema),
                Map.of(),
                new Configuration(),
                Thread.currentThread().getContextClassLoader(),
                false);
    }

    /** The initialization context a task passes to {@code open}. */
    private static final class InitContext
            implements DeserializationSchema.InitializationContext, SerializationSchema.InitializationContext {
        static final InitContext INSTANCE = new InitContext();

        @Override
        public MetricGroup getMetricGroup() {
            return new UnregisteredMetricsGroup();
        }

        @Override
        public UserCodeClassLoader getUserCodeClassLoader() {
            return SimpleUserCodeClassLoader.create(Thread.currentThread().getContextClassLoader());
        }
    }
}

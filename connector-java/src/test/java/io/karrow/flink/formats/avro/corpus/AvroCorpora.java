package io.karrow.flink.formats.avro.corpus;

import static io.karrow.flink.formats.avro.corpus.Values.anyBytes;
import static io.karrow.flink.formats.avro.corpus.Values.anyDate;
import static io.karrow.flink.formats.avro.corpus.Values.anyDouble;
import static io.karrow.flink.formats.avro.corpus.Values.anyFloat;
import static io.karrow.flink.formats.avro.corpus.Values.anyInt;
import static io.karrow.flink.formats.avro.corpus.Values.anyLong;
import static io.karrow.flink.formats.avro.corpus.Values.anyString;
import static io.karrow.flink.formats.avro.corpus.Values.anyTimeMillis;
import static io.karrow.flink.formats.avro.corpus.Values.anyTimestampMillis;
import static io.karrow.flink.formats.avro.corpus.Values.chance;
import static io.karrow.flink.formats.avro.corpus.Values.decimalBytes;
import static io.karrow.flink.formats.avro.corpus.Values.smallInt;
import static io.karrow.flink.formats.avro.corpus.Values.unscaled;
import static io.karrow.flink.formats.avro.corpus.Values.word;
import static org.apache.flink.table.api.DataTypes.ARRAY;
import static org.apache.flink.table.api.DataTypes.BIGINT;
import static org.apache.flink.table.api.DataTypes.BOOLEAN;
import static org.apache.flink.table.api.DataTypes.BYTES;
import static org.apache.flink.table.api.DataTypes.DATE;
import static org.apache.flink.table.api.DataTypes.DECIMAL;
import static org.apache.flink.table.api.DataTypes.DOUBLE;
import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.apache.flink.table.api.DataTypes.FLOAT;
import static org.apache.flink.table.api.DataTypes.INT;
import static org.apache.flink.table.api.DataTypes.MAP;
import static org.apache.flink.table.api.DataTypes.MULTISET;
import static org.apache.flink.table.api.DataTypes.ROW;
import static org.apache.flink.table.api.DataTypes.SMALLINT;
import static org.apache.flink.table.api.DataTypes.STRING;
import static org.apache.flink.table.api.DataTypes.TIME;
import static org.apache.flink.table.api.DataTypes.TIMESTAMP;
import static org.apache.flink.table.api.DataTypes.TINYINT;
import static org.apache.flink.table.api.DataTypes.VARCHAR;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The parity corpora: every type {@code avro-confluent} supports, nullability both ways, nesting,
 * collections, schema evolution and promotions, with Confluent-style named writer records.
 */
public final class AvroCorpora {

    private AvroCorpora() {}

    /** All corpora, each generating as many records as asked, deterministically. */
    public static List<AvroCorpus> all() {
        return List.of(primitives(), nullables(), decimals(), temporal(), nested(), arrays(), maps(),
                evolution(), promotions(), unionBranches(), bids(), schemaChanges());
    }

    /** The Nexmark bid corpus used by the example query. */
    public static AvroCorpus bids() {
        String writer = "{\"type\":\"record\",\"name\":\"Bid\",\"namespace\":\"com.acme.nexmark\",\"fields\":["
                + "{\"name\":\"auction\",\"type\":\"long\"},{\"name\":\"bidder\",\"type\":\"long\"},"
                + "{\"name\":\"price\",\"type\":\"long\"},{\"name\":\"channel\",\"type\":\"string\"},"
                + "{\"name\":\"url\",\"type\":\"string\"},"
                + "{\"name\":\"date_time\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},"
                + "{\"name\":\"extra\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
        return new AvroCorpus("bids",
                ROW(FIELD("auction", BIGINT()), FIELD("bidder", BIGINT()), FIELD("price", BIGINT()),
                        FIELD("channel", STRING()), FIELD("url", STRING()), FIELD("date_time", TIMESTAMP(3)),
                        FIELD("extra", STRING())).notNull(),
                List.of(writer),
                (r, i, w) -> bid(r, i, w), 11L);
    }

    /** One Nexmark-like bid for writer schema {@code w} (also used by the Kafka ITCase). */
    public static GenericRecord bid(Random r, int i, Schema w) {
        String[] channels = {"Google", "Facebook", "Baidu", "Apple"};
        GenericRecord g = new GenericData.Record(w);
        g.put("auction", 1000L + r.nextInt(1000));
        g.put("bidder", 2000L + r.nextInt(10000));
        g.put("price", (long) r.nextInt(100_000_000));
        g.put("channel", channels[r.nextInt(channels.length)]);
        g.put("url", "https://www.nexmark.com/" + word(r, "item") + "/" + word(r, "page"));
        g.put("date_time", 1_700_000_000_000L + i * 7L + r.nextInt(1000));
        g.put("extra", chance(r, 30) ? null : anyString(r));
        return g;
    }

    static AvroCorpus primitives() {
        String writer = "{\"type\":\"record\",\"name\":\"Primitives\",\"namespace\":\"com.acme\",\"fields\":["
                + "{\"name\":\"b\",\"type\":\"boolean\"},{\"name\":\"i\",\"type\":\"int\"},"
                + "{\"name\":\"ti\",\"type\":\"int\"},{\"name\":\"si\",\"type\":\"int\"},"
                + "{\"name\":\"l\",\"type\":\"long\"},{\"name\":\"f\",\"type\":\"float\"},"
                + "{\"name\":\"d\",\"type\":\"double\"},{\"name\":\"s\",\"type\":\"string\"},"
                + "{\"name\":\"vs\",\"type\":\"string\"},{\"name\":\"by\",\"type\":\"bytes\"}]}";
        return new AvroCorpus("primitives",
                ROW(FIELD("b", BOOLEAN().notNull()), FIELD("i", INT().notNull()), FIELD("ti", TINYINT()),
                        FIELD("si", SMALLINT()), FIELD("l", BIGINT().notNull()), FIELD("f", FLOAT()),
                        FIELD("d", DOUBLE().notNull()), FIELD("s", STRING().notNull()), FIELD("vs", VARCHAR(5)),
                        FIELD("by", BYTES())).notNull(),
                List.of(writer),
                (r, i, w) -> {
                    GenericRecord g = new GenericData.Record(w);
                    g.put("b", r.nextBoolean());
                    g.put("i", anyInt(r));
                    g.put("ti", chance(r, 50) ? anyInt(r) : r.nextInt(256) - 128);
                    g.put("si", chance(r, 50) ? anyInt(r) : r.nextInt(65536) - 32768);
                    g.put("l", anyLong(r));
                    g.put("f", anyFloat(r));
                    g.put("d", anyDouble(r));
                    g.put("s", anyString(r));
                    g.put("vs", anyString(r));
                    g.put("by", anyBytes(r));
                    return g;
                }, 1L);
    }

    static AvroCorpus nullables() {
        String writer = "{\"type\":\"record\",\"name\":\"Nullables\",\"namespace\":\"com.acme\",\"fields\":["
                + "{\"name\":\"b\",\"type\":[\"null\",\"boolean\"],\"default\":null},"
                + "{\"name\":\"i\",\"type\":[\"int\",\"null\"],\"default\":0},"
                + "{\"name\":\"l\",\"type\":[\"null\",\"long\"],\"default\":null},"
                + "{\"name\":\"f\",\"type\":[\"null\",\"float\"],\"default\":null},"
                + "{\"name\":\"d\",\"type\":[\"null\",\"double\"],\"default\":null},"
                + "{\"name\":\"s\",\"type\":[\"null\",\"string\"],\"default\":null},"
                + "{\"name\":\"by\",\"type\":[\"null\",\"bytes\"],\"default\":null},"
                + "{\"name\":\"dt\",\"type\":[\"null\",{\"type\":\"int\",\"logicalType\":\"date\"}],\"default\":null},"
                + "{\"name\":\"nn\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
        return new AvroCorpus("nullables",
                ROW(FIELD("b", BOOLEAN()), FIELD("i", INT()), FIELD("l", BIGINT()), FIELD("f", FLOAT()),
                        FIELD("d", DOUBLE()), FIELD("s", STRING()), FIELD("by", BYTES()), FIELD("dt", DATE()),
                        // writer union, NOT NULL column: only non-null values are written here
                        FIELD("nn", STRING().notNull())).notNull(),
                List.of(writer),
                (r, i, w) -> {
                    GenericRecord g = new GenericData.Record(w);
                    g.put("b", chance(r, 30) ? null : r.nextBoolean());
                    g.put("i", chance(r, 30) ? null : anyInt(r));
                    g.put("l", chance(r, 30) ? null : anyLong(r));
                    g.put("f", chance(r, 30) ? null : anyFloat(r));
                    g.put("d", chance(r, 30) ? null : anyDouble(r));
                    g.put("s", chance(r, 30) ? null : anyString(r));
                    g.put("by", chance(r, 30) ? null : anyBytes(r));
                    g.put("dt", chance(r, 30) ? null : anyDate(r));
                    g.put("nn", anyString(r));
                    return g;
                }, 2L);
    }

    private static String decimalType(int p, int s) {
        return "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":" + p + ",\"scale\":" + s + "}";
    }

    static AvroCorpus decimals() {
        String writer = "{\"type\":\"record\",\"name\":\"Money\",\"namespace\":\"com.acme.finance\",\"fields\":["
                + "{\"name\":\"d10_2\",\"type\":" + decimalType(10, 2) + "},"
                + "{\"name\":\"d38_10\",\"type\":" + decimalType(38, 10) + "},"
                + "{\"name\":\"d5_0\",\"type\":" + decimalType(5, 0) + "},"
                + "{\"name\":\"d3_3\",\"type\":" + decimalType(3, 3) + "},"
                + "{\"name\":\"d18_4\",\"type\":" + decimalType(18, 4) + "},"
                + "{\"name\":\"d19_4\",\"type\":" + decimalType(19, 4) + "},"
                + "{\"name\":\"dscale\",\"type\":" + decimalType(10, 4) + "},"
                + "{\"name\":\"dnull\",\"type\":[\"null\"," + decimalType(12, 3) + "],\"default\":null}]}";
        return new AvroCorpus("decimals",
                ROW(FIELD("d10_2", DECIMAL(10, 2)), FIELD("d38_10", DECIMAL(38, 10)),
                        FIELD("d5_0", DECIMAL(5, 0).notNull()), FIELD("d3_3", DECIMAL(3, 3)),
                        FIELD("d18_4", DECIMAL(18, 4)), FIELD("d19_4", DECIMAL(19, 4)),
                        FIELD("dscale", DECIMAL(10, 2)), FIELD("dnull", DECIMAL(12, 3))).notNull(),
                List.of(writer),
                (r, i, w) -> {
                    GenericRecord g = new GenericData.Record(w);
                    // ~10% of values have more digits than the column precision -> NULL in Flink
                    g.put("d10_2", decimalBytes(r, unscaled(r, chance(r, 10) ? 13 : 10)));
                    g.put("d38_10", decimalBytes(r, unscaled(r, chance(r, 10) ? 40 : 38)));
                    g.put("d5_0", decimalBytes(r, unscaled(r, chance(r, 10) ? 7 : 5)));
                    g.put("d3_3", decimalBytes(r, unscaled(r, chance(r, 10) ? 4 : 3)));
                    g.put("d18_4", decimalBytes(r, unscaled(r, chance(r, 10) ? 20 : 18)));
                    g.put("d19_4", decimalBytes(r, unscaled(r, chance(r, 10) ? 21 : 19)));
                    g.put("dscale", decimalBytes(r, unscaled(r, 10)));
                    g.put("dnull", chance(r, 30) ? null : decimalBytes(r, unscaled(r, chance(r, 10) ? 14 : 12)));
                    return g;
                }, 3L);
    }

    static AvroCorpus temporal() {
        String date = "{\"type\":\"int\",\"logicalType\":\"date\"}";
        String time = "{\"type\":\"int\",\"logicalType\":\"time-millis\"}";
        String ts = "{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}";
        String writer = "{\"type\":\"record\",\"name\":\"Times\",\"namespace\":\"com.acme\",\"fields\":["
                + "{\"name\":\"dt\",\"type\":" + date + "},{\"name\":\"tm\",\"type\":" + time + "},"
                + "{\"name\":\"tm0\",\"type\":" + time + "},{\"name\":\"ts\",\"type\":" + ts + "},"
                + "{\"name\":\"ts0\",\"type\":" + ts + "},{\"name\":\"ts2\",\"type\":" + ts + "},"
                + "{\"name\":\"nts\",\"type\":[\"null\"," + ts + "],\"default\":null},"
                + "{\"name\":\"ntm\",\"type\":[\"null\"," + time + "],\"default\":null}]}";
        return new AvroCorpus("temporal",
                ROW(FIELD("dt", DATE().notNull()), FIELD("tm", TIME(3)), FIELD("tm0", TIME(0)),
                        FIELD("ts", TIMESTAMP(3).notNull()), FIELD("ts0", TIMESTAMP(0)), FIELD("ts2", TIMESTAMP(2)),
                        FIELD("nts", TIMESTAMP(3)), FIELD("ntm", TIME(3))).notNull(),
                List.of(writer),
                (r, i, w) -> {
                    GenericRecord g = new GenericData.Record(w);
                    g.put("dt", anyDate(r));
                    g.put("tm", anyTimeMillis(r));
                    g.put("tm0", anyTimeMillis(r));
                    g.put("ts", anyTimestampMillis(r));
                    g.put("ts0", anyTimestampMillis(r));
                    g.put("ts2", anyTimestampMillis(r));
                    g.put("nts", chance(r, 30) ? null : anyTimestampMillis(r));
                    g.put("ntm", chance(r, 30) ? null : anyTimeMillis(r));
                    return g;
                }, 4L);
    }

    static AvroCorpus nested() {
        String writer = "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"com.acme.shop\",\"fields\":["
                + "{\"name\":\"id\",\"type\":\"long\"},"
                + "{\"name\":\"customer\",\"type\":{\"type\":\"record\",\"name\":\"Customer\",\"fields\":["
                + "  {\"name\":\"name\",\"type\":\"string\"},"
                + "  {\"name\":\"address\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"Address\",\"namespace\":\"com.acme.geo\",\"fields\":["
                + "    {\"name\":\"street\",\"type\":\"string\"},{\"name\":\"city\",\"type\":[\"null\",\"string\"]},"
                + "    {\"name\":\"geo\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"Point\",\"fields\":["
                + "      {\"name\":\"lat\",\"type\":\"double\"},{\"name\":\"lon\",\"type\":\"double\"}]}],\"default\":null}]}],\"default\":null}]}},"
                + "{\"name\":\"billing\",\"type\":[\"null\",\"com.acme.geo.Address\"],\"default\":null},"
                + "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
        return new AvroCorpus("nested",
                ROW(FIELD("id", BIGINT().notNull()),
                        FIELD("customer", ROW(FIELD("name", STRING()),
                                FIELD("address", ROW(FIELD("street", STRING().notNull()), FIELD("city", STRING()),
                                        FIELD("geo", ROW(FIELD("lat", DOUBLE()), FIELD("lon", DOUBLE()))))))),
                        FIELD("billing", ROW(FIELD("street", STRING()), FIELD("city", STRING()),
                                FIELD("geo", ROW(FIELD("lat", DOUBLE().notNull()), FIELD("lon", DOUBLE().notNull()))))),
                        FIELD("note", STRING())).notNull(),
                List.of(writer),
                (r, i, w) -> {
                    Schema customerSchema = w.getField("customer").schema();
                    Schema addressSchema = customerSchema.getField("address").schema().getTypes().get(1);
                    GenericRecord g = new GenericData.Record(w);
                    g.put("id", anyLong(r));
                    GenericRecord customer = new GenericData.Record(customerSchema);
                    customer.put("name", anyString(r));
                    customer.put("address", chance(r, 20) ? null : address(r, addressSchema));
                    g.put("customer", customer);
                    g.put("billing", chance(r, 40) ? null : address(r, addressSchema));
                    g.put("note", chance(r, 50) ? null : anyString(r));
                    return g;
                }, 5L);
    }

    private static GenericRecord address(Random r, Schema addressSchema) {
        GenericRecord a = new GenericData.Record(addressSchema);
        a.put("street", anyString(r));
        a.put("city", chance(r, 20) ? null : word(r, "city"));
        Schema pointSchema = addressSchema.getField("geo").schema().getTypes().get(1);
        if (chance(r, 30)) {
            a.put("geo", null);
        } else {
            GenericRecord p = new GenericData.Record(pointSchema);
            p.put("lat", anyDouble(r));
            p.put("lon", anyDouble(r));
            a.put("geo", p);
        }
        return a;
    }

    static AvroCorpus arrays() {
        String writer = "{\"type\":\"record\",\"name\":\"Lists\",\"namespace\":\"com.acme\",\"fields\":["
                + "{\"name\":\"ints\",\"type\":{\"type\":\"array\",\"items\":\"int\"}},"
                + "{\"name\":\"nstrings\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",\"string\"]}],\"default\":null},"
                + "{\"name\":\"longs\",\"type\":{\"type\":\"array\",\"items\":\"long\"}},"
                + "{\"name\":\"doubles\",\"type\":{\"type\":\"array\",\"items\":\"double\"}},"
                + "{\"name\":\"items\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"Item\",\"fields\":["
                + "  {\"name\":\"sku\",\"type\":\"string\"},{\"name\":\"qty\",\"type\":\"int\"},"
                + "  {\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"}}]}}},"
                + "{\"name\":\"matrix\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":[\"null\",\"long\"]}}},"
                + "{\"name\":\"decs\",\"type\":{\"type\":\"array\",\"items\":" + decimalType(20, 5) + "}},"
                + "{\"name\":\"stamps\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}}]}";
        return new AvroCorpus("arrays",
                ROW(FIELD("ints", ARRAY(INT().notNull())), FIELD("nstrings", ARRAY(STRING())),
                        FIELD("longs", ARRAY(BIGINT())), FIELD("doubles", ARRAY(DOUBLE().notNull()).notNull()),
                        FIELD("items", ARRAY(ROW(FIELD("sku", STRING()), FIELD("qty", SMALLINT()), FIELD("tags", ARRAY(STRING()))))),
                        FIELD("matrix", ARRAY(ARRAY(BIGINT()))), FIELD("decs", ARRAY(DECIMAL(20, 5))),
                        FIELD("stamps", ARRAY(TIMESTAMP(3)))).notNull(),
                List.of(writer),
                (r, i, w) -> {
                    GenericRecord g = new GenericData.Record(w);
                    g.put("ints", list(r, 8, () -> anyInt(r)));
                    g.put("nstrings", chance(r, 20) ? null : list(r, 6, () -> chance(r, 25) ? null : anyString(r)));
                    g.put("longs", list(r, 8, () -> anyLong(r)));
                    g.put("doubles", list(r, 5, () -> anyDouble(r)));
                    Schema itemSchema = w.getField("items").schema().getElementType();
                    g.put("items", list(r, 4, () -> {
                        GenericRecord it = new GenericData.Record(itemSchema);
                        it.put("sku", word(r, "sku-"));
                        it.put("qty", smallInt(r));
                        it.put("tags", list(r, 3, () -> word(r, "t")));
                        return it;
                    }));
                    g.put("matrix", list(r, 3, () -> list(r, 3, () -> chance(r, 20) ? null : anyLong(r))));
                    g.put("decs", list(r, 4, () -> decimalBytes(r, unscaled(r, chance(r, 5) ? 22 : 20))));
                    g.put("stamps", list(r, 3, () -> anyTimestampMillis(r)));
                    return g;
                }, 6L);
    }

    static AvroCorpus maps() {
        String writer = "{\"type\":\"record\",\"name\":\"Maps\",\"namespace\":\"com.acme\",\"fields\":["
                + "{\"name\":\"counts\",\"type\":{\"type\":\"map\",\"values\":\"long\"}},"
                + "{\"name\":\"labels\",\"type\":[\"null\",{\"type\":\"map\",\"values\":[\"null\",\"string\"]}],\"default\":null},"
                + "{\"name\":\"people\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"record\",\"name\":\"Person\",\"fields\":["
                + "  {\"name\":\"age\",\"type\":\"int\"},{\"name\":\"email\",\"type\":[\"null\",\"string\"],\"default\":null}]}}},"
                + "{\"name\":\"bag\",\"type\":{\"type\":\"map\",\"values\":\"int\"}},"
                + "{\"name\":\"nested\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"array\",\"items\":\"int\"}}}]}";
        return new AvroCorpus("maps",
                ROW(FIELD("counts", MAP(STRING(), BIGINT())), FIELD("labels", MAP(STRING().notNull(), STRING())),
                        FIELD("people", MAP(STRING(), ROW(FIELD("age", INT()), FIELD("email", STRING())))),
                        FIELD("bag", MULTISET(STRING())), FIELD("nested", MAP(VARCHAR(100), ARRAY(INT())))).notNull(),
                List.of(writer),
                (r, i, w) -> {
                    GenericRecord g = new GenericData.Record(w);
                    g.put("counts", map(r, 6, () -> anyLong(r)));
                    g.put("labels", chance(r, 20) ? null : map(r, 4, () -> chance(r, 25) ? null : anyString(r)));
                    Schema personSchema = w.getField("people").schema().getValueType();
                    g.put("people", map(r, 3, () -> {
                        GenericRecord p = new GenericData.Record(personSchema);
                        p.put("age", r.nextInt(100));
                        p.put("email", chance(r, 30) ? null : word(r, "u") + "@acme.com");
                        return p;
                    }));
                    g.put("bag", map(r, 5, () -> 1 + r.nextInt(5)));
                    g.put("nested", map(r, 3, () -> list(r, 3, () -> anyInt(r))));
                    return g;
                }, 7L);
    }

    static AvroCorpus evolution() {
        // Writer has fields the table lacks (of every shape), declares them in another order, and
        // lacks the table's nullable columns 'added' and 'added_row' (read as NULL).
        String writer = "{\"type\":\"record\",\"name\":\"Event\",\"namespace\":\"io.producer.v2\",\"fields\":["
                + "{\"name\":\"skip_rec\",\"type\":{\"type\":\"record\",\"name\":\"Meta\",\"fields\":["
                + "  {\"name\":\"a\",\"type\":\"string\"},{\"name\":\"b\",\"type\":{\"type\":\"array\",\"items\":\"long\"}}]}},"
                + "{\"name\":\"name\",\"type\":\"string\"},"
                + "{\"name\":\"skip_map\",\"type\":{\"type\":\"map\",\"values\":\"double\"}},"
                + "{\"name\":\"skip_union\",\"type\":[\"null\",\"int\",\"string\",\"bytes\"]},"
                + "{\"name\":\"id\",\"type\":\"long\"},"
                + "{\"name\":\"skip_fixed\",\"type\":{\"type\":\"fixed\",\"name\":\"Hash\",\"size\":8}},"
                + "{\"name\":\"skip_enum\",\"type\":{\"type\":\"enum\",\"name\":\"Color\",\"symbols\":[\"RED\",\"GREEN\"]}},"
                + "{\"name\":\"inner\",\"type\":{\"type\":\"record\",\"name\":\"Inner\",\"fields\":["
                + "  {\"name\":\"extra\",\"type\":\"float\"},{\"name\":\"y\",\"type\":\"int\"},{\"name\":\"x\",\"type\":\"string\"}]}},"
                + "{\"name\":\"skip_str\",\"type\":\"string\"}]}";
        return new AvroCorpus("evolution",
                ROW(FIELD("id", BIGINT().notNull()), FIELD("added", STRING()), FIELD("name", STRING()),
                        FIELD("inner", ROW(FIELD("x", STRING()), FIELD("y", INT()), FIELD("z", DOUBLE()))),
                        FIELD("added_row", ROW(FIELD("q", INT())))).notNull(),
                List.of(writer),
                (r, i, w) -> {
                    GenericRecord g = new GenericData.Record(w);
                    GenericRecord meta = new GenericData.Record(w.getField("skip_rec").schema());
                    meta.put("a", anyString(r));
                    meta.put("b", list(r, 4, () -> anyLong(r)));
                    g.put("skip_rec", meta);
                    g.put("name", anyString(r));
                    g.put("skip_map", map(r, 3, () -> anyDouble(r)));
                    int u = r.nextInt(4);
                    g.put("skip_union", u == 0 ? null : u == 1 ? (Object) anyInt(r) : u == 2 ? anyString(r) : anyBytes(r));
                    g.put("id", anyLong(r));
                    byte[] hash = new byte[8];
                    r.nextBytes(hash);
                    g.put("skip_fixed", new GenericData.Fixed(w.getField("skip_fixed").schema(), hash));
                    g.put("skip_enum", new GenericData.EnumSymbol(w.getField("skip_enum").schema(), r.nextBoolean() ? "RED" : "GREEN"));
                    GenericRecord inner = new GenericData.Record(w.getField("inner").schema());
                    inner.put("extra", anyFloat(r));
                    inner.put("y", anyInt(r));
                    inner.put("x", anyString(r));
                    g.put("inner", inner);
                    g.put("skip_str", anyString(r));
                    return g;
                }, 8L);
    }

    static AvroCorpus promotions() {
        String writer = "{\"type\":\"record\",\"name\":\"Promo\",\"namespace\":\"com.acme\",\"fields\":["
                + "{\"name\":\"i2l\",\"type\":\"int\"},{\"name\":\"i2f\",\"type\":\"int\"},{\"name\":\"i2d\",\"type\":\"int\"},"
                + "{\"name\":\"l2f\",\"type\":\"long\"},{\"name\":\"l2d\",\"type\":\"long\"},{\"name\":\"f2d\",\"type\":\"float\"},"
                + "{\"name\":\"s2b\",\"type\":\"string\"},{\"name\":\"b2s\",\"type\":\"bytes\"},"
                + "{\"name\":\"ni2l\",\"type\":[\"null\",\"int\"],\"default\":null},"
                + "{\"name\":\"arr\",\"type\":{\"type\":\"array\",\"items\":\"int\"}},"
                + "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"float\"}}]}";
        return new AvroCorpus("promotions",
                ROW(FIELD("i2l", BIGINT()), FIELD("i2f", FLOAT()), FIELD("i2d", DOUBLE()), FIELD("l2f", FLOAT()),
                        FIELD("l2d", DOUBLE()), FIELD("f2d", DOUBLE()), FIELD("s2b", BYTES()), FIELD("b2s", STRING()),
                        FIELD("ni2l", BIGINT()), FIELD("arr", ARRAY(BIGINT())), FIELD("m", MAP(STRING(), DOUBLE()))).notNull(),
                List.of(writer),
                (r, i, w) -> {
                    GenericRecord g = new GenericData.Record(w);
                    g.put("i2l", anyInt(r));
                    g.put("i2f", anyInt(r));
                    g.put("i2d", anyInt(r));
                    g.put("l2f", anyLong(r));
                    g.put("l2d", anyLong(r));
                    g.put("f2d", anyFloat(r));
                    g.put("s2b", anyString(r));
                    // bytes read as string: keep them valid UTF-8 (invalid UTF-8 is an error case)
                    g.put("b2s", ByteBuffer.wrap(anyString(r).getBytes(StandardCharsets.UTF_8)));
                    g.put("ni2l", chance(r, 30) ? null : anyInt(r));
                    g.put("arr", list(r, 5, () -> anyInt(r)));
                    g.put("m", map(r, 3, () -> anyFloat(r)));
                    return g;
                }, 9L);
    }

    /** Writer unions wider than the column: only values of readable branches here (errors elsewhere). */
    static AvroCorpus unionBranches() {
        String writer = "{\"type\":\"record\",\"name\":\"Mixed\",\"namespace\":\"com.acme\",\"fields\":["
                + "{\"name\":\"v\",\"type\":[\"null\",\"int\",\"string\"]},"
                + "{\"name\":\"w\",\"type\":[\"string\",\"long\",\"null\"]},"
                + "{\"name\":\"x\",\"type\":[\"int\",\"long\"]},"
                + "{\"name\":\"plain\",\"type\":\"int\"}]}";
        return new AvroCorpus("union_branches",
                ROW(FIELD("v", INT()), FIELD("w", STRING()), FIELD("x", BIGINT()), FIELD("plain", INT())).notNull(),
                List.of(writer),
                (r, i, w) -> {
                    GenericRecord g = new GenericData.Record(w);
                    g.put("v", chance(r, 30) ? null : anyInt(r));
                    g.put("w", chance(r, 30) ? null : anyString(r));
                    g.put("x", r.nextBoolean() ? (Object) anyInt(r) : (Object) anyLong(r));
                    g.put("plain", anyInt(r));
                    return g;
                }, 10L);
    }

    /** Three writer versions interleaved record by record: the schema id changes inside a stream. */
    static AvroCorpus schemaChanges() {
        String v1 = "{\"type\":\"record\",\"name\":\"User\",\"namespace\":\"com.acme.users\",\"fields\":["
                + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"name\",\"type\":\"string\"}]}";
        String v2 = "{\"type\":\"record\",\"name\":\"User\",\"namespace\":\"com.acme.users\",\"fields\":["
                + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"name\",\"type\":\"string\"},"
                + "{\"name\":\"email\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
        String v3 = "{\"type\":\"record\",\"name\":\"UserV3\",\"namespace\":\"com.acme.users\",\"fields\":["
                + "{\"name\":\"email\",\"type\":[\"null\",\"string\"],\"default\":null},"
                + "{\"name\":\"score\",\"type\":\"int\"},{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"name\",\"type\":\"bytes\"}]}";
        return new AvroCorpus("schema_changes",
                ROW(FIELD("id", BIGINT().notNull()), FIELD("name", STRING()), FIELD("email", STRING()),
                        FIELD("score", DOUBLE())).notNull(),
                List.of(v1, v2, v3),
                (r, i, w) -> {
                    GenericRecord g = new GenericData.Record(w);
                    boolean v3Writer = w.getName().equals("UserV3");
                    g.put("id", v3Writer ? (Object) anyInt(r) : (Object) anyLong(r));
                    String name = anyString(r);
                    g.put("name", v3Writer ? ByteBuffer.wrap(name.getBytes(StandardCharsets.UTF_8)) : name);
                    if (w.getField("email") != null) {
                        g.put("email", chance(r, 30) ? null : word(r, "e") + "@x.org");
                    }
                    if (w.getField("score") != null) {
                        g.put("score", anyInt(r));
                    }
                    return g;
                }, 12L);
    }

    private static <T> List<T> list(Random r, int max, java.util.function.Supplier<T> element) {
        int n = chance(r, 10) ? 0 : r.nextInt(max + 1);
        List<T> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(element.get());
        }
        return out;
    }

    private static <T> Map<String, T> map(Random r, int max, java.util.function.Supplier<T> value) {
        int n = chance(r, 10) ? 0 : r.nextInt(max + 1);
        Map<String, T> out = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            out.put(chance(r, 10) ? "" : word(r, "k") + "-" + i, value.get());
        }
        return out;
    }

    /** Unscaled value helper for tests that build decimals by hand. */
    static BigInteger big(long v) {
        return BigInteger.valueOf(v);
    }
}

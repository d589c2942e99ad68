package io.karrow.flink.formats.json;

import static org.apache.flink.table.api.DataTypes.ARRAY;
import static org.apache.flink.table.api.DataTypes.BIGINT;
import static org.apache.flink.table.api.DataTypes.BINARY;
import static org.apache.flink.table.api.DataTypes.BOOLEAN;
import static org.apache.flink.table.api.DataTypes.BYTES;
import static org.apache.flink.table.api.DataTypes.CHAR;
import static org.apache.flink.table.api.DataTypes.DATE;
import static org.apache.flink.table.api.DataTypes.DAY;
import static org.apache.flink.table.api.DataTypes.DECIMAL;
import static org.apache.flink.table.api.DataTypes.DOUBLE;
import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.apache.flink.table.api.DataTypes.FLOAT;
import static org.apache.flink.table.api.DataTypes.HOUR;
import static org.apache.flink.table.api.DataTypes.INT;
import static org.apache.flink.table.api.DataTypes.INTERVAL;
import static org.apache.flink.table.api.DataTypes.MAP;
import static org.apache.flink.table.api.DataTypes.MINUTE;
import static org.apache.flink.table.api.DataTypes.MONTH;
import static org.apache.flink.table.api.DataTypes.MULTISET;
import static org.apache.flink.table.api.DataTypes.ROW;
import static org.apache.flink.table.api.DataTypes.SECOND;
import static org.apache.flink.table.api.DataTypes.SMALLINT;
import static org.apache.flink.table.api.DataTypes.STRING;
import static org.apache.flink.table.api.DataTypes.TIME;
import static org.apache.flink.table.api.DataTypes.TIMESTAMP;
import static org.apache.flink.table.api.DataTypes.TIMESTAMP_LTZ;
import static org.apache.flink.table.api.DataTypes.TINYINT;
import static org.apache.flink.table.api.DataTypes.VARBINARY;
import static org.apache.flink.table.api.DataTypes.VARCHAR;
import static org.apache.flink.table.api.DataTypes.YEAR;

import org.apache.flink.table.types.DataType;

import java.util.List;

/**
 * The JSON parity schemas: together every type flink-json supports (all nullable unless a corpus is
 * about NOT NULL), DECIMAL both compact (p &lt;= 18) and wide, TIMESTAMP / TIMESTAMP_LTZ at
 * precisions 0, 3, 6, 9, both INTERVAL kinds, ARRAY, MAP&lt;STRING, ...&gt;, MULTISET and ROWs
 * nested three deep and more. Field names avoid the keys the generator injects ({@code x_*},
 * {@code deep}, {@code x}, {@code zz}, {@code n}, {@code e}, {@code u}, {@code k*}, {@code d}).
 */
public final class JsonCorpora {

    private JsonCorpora() {}

    /** All corpora. */
    public static List<JsonCorpus> all() {
        return List.of(primitives(), decimals(), temporal(), textAndBinary(), arrays(), maps(), multisets(), nested(),
                wide(), events(), notNull(), pair());
    }

    /** Every scalar that is not temporal or DECIMAL. */
    public static JsonCorpus primitives() {
        return new JsonCorpus("primitives", ROW(
                FIELD("b", BOOLEAN()), FIELD("t", TINYINT()), FIELD("s", SMALLINT()), FIELD("i", INT()),
                FIELD("l", BIGINT()), FIELD("f", FLOAT()), FIELD("dbl", DOUBLE()), FIELD("str", STRING()),
                FIELD("c", CHAR(5)), FIELD("vc", VARCHAR(10))).notNull(), 101L);
    }

    /** DECIMAL compact (p &lt;= 18) and wide, scale 0 to p. */
    public static JsonCorpus decimals() {
        return new JsonCorpus("decimals", ROW(
                FIELD("d5_2", DECIMAL(5, 2)), FIELD("d1_0", DECIMAL(1, 0)), FIELD("d10_0", DECIMAL(10, 0)),
                FIELD("d18_4", DECIMAL(18, 4)), FIELD("d18_18", DECIMAL(18, 18)), FIELD("d19_2", DECIMAL(19, 2)),
                FIELD("d28_14", DECIMAL(28, 14)), FIELD("d38_0", DECIMAL(38, 0)), FIELD("d38_10", DECIMAL(38, 10)),
                FIELD("ds", ARRAY(DECIMAL(20, 3)))).notNull(), 102L);
    }

    /** DATE, TIME, TIMESTAMP and TIMESTAMP_LTZ at several precisions, INTERVALs. */
    public static JsonCorpus temporal() {
        return new JsonCorpus("temporal", ROW(
                FIELD("dt", DATE()), FIELD("t0", TIME(0)), FIELD("t3", TIME(3)),
                FIELD("ts0", TIMESTAMP(0)), FIELD("ts3", TIMESTAMP(3)), FIELD("ts6", TIMESTAMP(6)), FIELD("ts9", TIMESTAMP(9)),
                FIELD("ltz0", TIMESTAMP_LTZ(0)), FIELD("ltz3", TIMESTAMP_LTZ(3)), FIELD("ltz6", TIMESTAMP_LTZ(6)),
                FIELD("ltz9", TIMESTAMP_LTZ(9)),
                FIELD("iym", INTERVAL(YEAR(), MONTH())), FIELD("iy", INTERVAL(YEAR())), FIELD("imo", INTERVAL(MONTH())),
                FIELD("ids", INTERVAL(DAY(), SECOND(3))), FIELD("ihm", INTERVAL(HOUR(), MINUTE()))).notNull(), 103L);
    }

    /** Character and binary strings of every kind (no length checks in flink-json). */
    public static JsonCorpus textAndBinary() {
        return new JsonCorpus("text_binary", ROW(
                FIELD("s", STRING()), FIELD("c1", CHAR(1)), FIELD("c3", CHAR(3)), FIELD("vc", VARCHAR(5)),
                FIELD("bin", BINARY(4)), FIELD("vb", VARBINARY(16)), FIELD("by", BYTES()), FIELD("s2", STRING()),
                FIELD("unicodé_ключ", STRING())).notNull(), 104L);
    }

    /** Arrays of scalars, of arrays and of rows. */
    public static JsonCorpus arrays() {
        return new JsonCorpus("arrays", ROW(
                FIELD("ai", ARRAY(INT())), FIELD("as", ARRAY(STRING())), FIELD("ad", ARRAY(DOUBLE())),
                FIELD("af", ARRAY(FLOAT())), FIELD("adec", ARRAY(DECIMAL(10, 2))), FIELD("aai", ARRAY(ARRAY(BIGINT()))),
                FIELD("ats", ARRAY(TIMESTAMP(3))), FIELD("ab", ARRAY(BOOLEAN())), FIELD("abytes", ARRAY(BYTES())),
                FIELD("adt", ARRAY(DATE())),
                FIELD("arow", ARRAY(ROW(FIELD("p", INT()), FIELD("q", STRING()))))).notNull(), 105L);
    }

    /** MAP&lt;STRING-ish, ...&gt; with scalar, collection and map values. */
    public static JsonCorpus maps() {
        return new JsonCorpus("maps", ROW(
                FIELD("mi", MAP(STRING(), INT())), FIELD("ms", MAP(STRING(), STRING())),
                FIELD("md", MAP(VARCHAR(10), DOUBLE())), FIELD("mai", MAP(STRING(), ARRAY(INT()))),
                FIELD("mm", MAP(STRING(), MAP(STRING(), BIGINT()))), FIELD("mdec", MAP(STRING(), DECIMAL(20, 4))),
                FIELD("mltz", MAP(CHAR(3), TIMESTAMP_LTZ(6))),
                FIELD("mrow", MAP(STRING(), ROW(FIELD("p", INT()), FIELD("q", BOOLEAN()))))).notNull(), 106L);
    }

    /** MULTISET of character strings (flink-json needs string keys). */
    public static JsonCorpus multisets() {
        return new JsonCorpus("multisets", ROW(
                FIELD("id", BIGINT()), FIELD("ms", MULTISET(STRING())), FIELD("mv", MULTISET(VARCHAR(5))),
                FIELD("mc", MULTISET(CHAR(2)))).notNull(), 107L);
    }

    /** ROWs nested four deep, with collections inside. */
    public static JsonCorpus nested() {
        DataType r4 = ROW(FIELD("dd", DECIMAL(12, 3)), FIELD("ts", TIMESTAMP(6)));
        DataType r3 = ROW(FIELD("c", DOUBLE()), FIELD("r4", r4),
                FIELD("rows", ARRAY(ROW(FIELD("g", BIGINT()), FIELD("h", DATE())))));
        DataType r2 = ROW(FIELD("b", STRING()), FIELD("r3", r3), FIELD("m", MAP(STRING(), ROW(FIELD("v", INT())))));
        DataType r1 = ROW(FIELD("a", INT()), FIELD("r2", r2), FIELD("z", BOOLEAN()));
        return new JsonCorpus("nested", ROW(FIELD("id", INT()), FIELD("r1", r1), FIELD("tail", STRING())).notNull(), 108L);
    }

    /** Every supported type in one row. */
    public static JsonCorpus wide() {
        return new JsonCorpus("wide", ROW(
                FIELD("b", BOOLEAN()), FIELD("t", TINYINT()), FIELD("s", SMALLINT()), FIELD("i", INT()), FIELD("l", BIGINT()),
                FIELD("f", FLOAT()), FIELD("dbl", DOUBLE()), FIELD("str", STRING()), FIELD("c", CHAR(2)),
                FIELD("vc", VARCHAR(3)), FIELD("bin", BINARY(3)), FIELD("vb", VARBINARY(5)), FIELD("dec", DECIMAL(9, 3)),
                FIELD("dec38", DECIMAL(38, 6)), FIELD("dt", DATE()), FIELD("tm", TIME(3)), FIELD("ts", TIMESTAMP(3)),
                FIELD("ts9", TIMESTAMP(9)), FIELD("ltz", TIMESTAMP_LTZ(3)), FIELD("ltz6", TIMESTAMP_LTZ(6)),
                FIELD("iym", INTERVAL(YEAR(), MONTH())), FIELD("ids", INTERVAL(DAY(), SECOND(3))),
                FIELD("arr", ARRAY(STRING())), FIELD("map", MAP(STRING(), DOUBLE())), FIELD("mset", MULTISET(STRING())),
                FIELD("row", ROW(FIELD("p", INT()), FIELD("q", ROW(FIELD("r", STRING()), FIELD("s", ROW(FIELD("t", BIGINT())))))))
        ).notNull(), 109L);
    }

    /** A realistic event row. */
    public static JsonCorpus events() {
        return new JsonCorpus("events", ROW(
                FIELD("event_id", BIGINT()), FIELD("user", STRING()), FIELD("event_time", TIMESTAMP(3)),
                FIELD("amount", DECIMAL(10, 2)), FIELD("currency", CHAR(3)), FIELD("tags", ARRAY(STRING())),
                FIELD("attrs", MAP(STRING(), STRING())),
                FIELD("geo", ROW(FIELD("lat", DOUBLE()), FIELD("lon", DOUBLE()))), FIELD("ok", BOOLEAN()),
                FIELD("ingest_ltz", TIMESTAMP_LTZ(3))).notNull(), 110L);
    }

    /** NOT NULL columns (flink-json does not enforce nullability: a JSON null gives NULL). */
    public static JsonCorpus notNull() {
        return new JsonCorpus("not_null", ROW(
                FIELD("a", INT().notNull()), FIELD("s", STRING().notNull()), FIELD("dec", DECIMAL(20, 2).notNull()),
                FIELD("ts", TIMESTAMP(3).notNull()),
                FIELD("r", ROW(FIELD("p", BIGINT().notNull()), FIELD("q", ARRAY(INT().notNull()))).notNull()),
                FIELD("m", MAP(STRING().notNull(), DOUBLE().notNull()))).notNull(), 111L);
    }

    /** Two INT fields: duplicate keys and the parser decoder's field counter show most here. */
    public static JsonCorpus pair() {
        return new JsonCorpus("pair", ROW(FIELD("a", INT()), FIELD("b", INT())).notNull(), 112L);
    }
}

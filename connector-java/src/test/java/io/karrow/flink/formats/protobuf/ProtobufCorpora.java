package io.karrow.flink.formats.protobuf;

import static org.apache.flink.table.api.DataTypes.ARRAY;
import static org.apache.flink.table.api.DataTypes.BIGINT;
import static org.apache.flink.table.api.DataTypes.BINARY;
import static org.apache.flink.table.api.DataTypes.BOOLEAN;
import static org.apache.flink.table.api.DataTypes.BYTES;
import static org.apache.flink.table.api.DataTypes.CHAR;
import static org.apache.flink.table.api.DataTypes.DOUBLE;
import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.apache.flink.table.api.DataTypes.FLOAT;
import static org.apache.flink.table.api.DataTypes.INT;
import static org.apache.flink.table.api.DataTypes.MAP;
import static org.apache.flink.table.api.DataTypes.ROW;
import static org.apache.flink.table.api.DataTypes.STRING;
import static org.apache.flink.table.api.DataTypes.VARBINARY;
import static org.apache.flink.table.api.DataTypes.VARCHAR;

import org.apache.flink.formats.protobuf.util.PbToRowTypeUtil;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.List;

/**
 * The protobuf parity corpora: every test schema of {@code src/test/proto} with the row type Flink
 * derives for it ({@link PbToRowTypeUtil#generateRowType}), plus hand-written projections (column
 * subsets in another order, nested subsets down to {@code ROW<>}, enums as INT, CHAR/VARCHAR/BINARY
 * columns, row types a proto2 root or an editions message can open with read-default-values =
 * false).
 */
public final class ProtobufCorpora {

    private ProtobufCorpora() {}

    static final String PACKAGE = "io.karrow.flink.formats.protobuf.proto.";

    /** Projections reuse the generators of a derived corpus, so they get a fifth of the records. */
    static final double PROJECTION_SHARE = 0.2;

    /**
     * The corpora the parity suites run: all of them, or those named in {@code
     * -Dkarrow.protobuf.corpora=name,name,...}.
     */
    public static List<ProtobufCorpus> selected() {
        String names = System.getProperty("karrow.protobuf.corpora", "");
        if (names.isBlank()) {
            return all();
        }
        List<String> wanted = List.of(names.split(","));
        return all().stream().filter(c -> wanted.contains(c.name())).collect(java.util.stream.Collectors.toList());
    }

    /** All corpora. */
    public static List<ProtobufCorpus> all() {
        List<ProtobufCorpus> out = new ArrayList<>();
        out.add(derived("scalars2", "Scalars2Proto$Scalars2", 201));
        out.add(derived("scalars2_defaults", "Scalars2Proto$Scalars2Defaults", 202));
        out.add(derived("scalars2_required", "Scalars2Proto$Scalars2Required", 203));
        out.add(derived("scalars3", "Scalars3Proto$Scalars3", 204));
        out.add(derived("scalars3_optional", "Scalars3Proto$Scalars3Optional", 205));
        out.add(derived("enums3", "Enums3Proto$Enums3", 206));
        out.add(derived("enums2", "Enums2Proto$Enums2", 207));
        out.add(derived("nested", "NestedProto$Person", 208));
        out.add(derived("nested2", "Nested2Proto$Outer2", 209));
        out.add(derived("repeated2", "Repeated2Proto$Repeated2", 210));
        out.add(derived("repeated2_packed", "Repeated2Proto$Repeated2Packed", 211));
        out.add(derived("repeated3", "Repeated3Proto$Repeated3", 212));
        out.add(derived("maps", "MapsProto$Maps", 213));
        out.add(derived("oneofs", "OneofsProto$Oneofs", 214));
        out.add(derived("oneofs2", "Oneofs2Proto$Oneofs2", 215));
        out.add(derived("groups", "GroupsProto$Groups", 216));
        out.add(derived("wellknown", "WellKnownProto$WellKnown", 217));
        out.add(derived("crossfile", "CrossFileProto$Shipment", 218));
        out.add(derived("mixed3", "Mixed3Proto$Mixed3", 219));
        out.add(new ProtobufCorpus("mixed2", PACKAGE + "Mixed2Proto$Mixed2", rowType("Mixed2Proto$Mixed2"), 220, true, 1.0));
        out.add(new ProtobufCorpus("editions", PACKAGE + "EditionsProto$Editions", rowType("EditionsProto$Editions"), 221,
                true, 1.0));
        out.add(derived("bids", "BidsProto$Bid", 222));
        out.add(derived("utf8check2", "Utf8Check2Proto$Utf8Check2", 224));
        out.add(derived("bids_ts", "BidsProto$BidTs", 223));
        out.addAll(projections());
        return out;
    }

    /** Hand-written row types. */
    static List<ProtobufCorpus> projections() {
        List<ProtobufCorpus> out = new ArrayList<>();
        out.add(projection("scalars3_subset", "Scalars3Proto$Scalars3", 301, ROW(
                FIELD("f_string", CHAR(3)), FIELD("f_int64", BIGINT()), FIELD("f_bytes", BINARY(2)),
                FIELD("f_double", DOUBLE()), FIELD("f_float", FLOAT()))));
        out.add(projection("scalars2_subset", "Scalars2Proto$Scalars2", 302, ROW(
                FIELD("f_bytes", VARBINARY(3)), FIELD("f_string", VARCHAR(4)), FIELD("f_bool", BOOLEAN()),
                FIELD("f_uint64", BIGINT()))));
        out.add(projection("enums3_int", "Enums3Proto$Enums3", 303, ROW(
                FIELD("color", INT()), FIELD("opt_color", INT()), FIELD("level", INT()), FIELD("colors", ARRAY(INT())),
                FIELD("color_by_name", MAP(STRING(), INT())), FIELD("shape", INT()))));
        out.add(projection("enums3_mixed", "Enums3Proto$Enums3", 304, ROW(
                FIELD("level", VARCHAR(20)), FIELD("colors", ARRAY(STRING())), FIELD("shape", CHAR(12)),
                FIELD("color_by_name", MAP(STRING(), STRING())))));
        out.add(projection("enums3_bigint", "Enums3Proto$Enums3", 315, ROW(
                FIELD("color", BIGINT()), FIELD("colors", ARRAY(BIGINT())), FIELD("color_by_name", MAP(STRING(), BIGINT())),
                FIELD("level", BIGINT()))));
        out.add(projection("enums2_int", "Enums2Proto$Enums2", 305, ROW(
                FIELD("suit", INT()), FIELD("suit_with_default", INT()), FIELD("suits", ARRAY(INT())),
                FIELD("packed_suits", ARRAY(INT())), FIELD("rank_by_id", MAP(INT(), INT())), FIELD("rank", INT()))));
        DataType leaf = ROW(FIELD("weight", INT()));
        out.add(projection("nested_subset", "NestedProto$Person", 306, ROW(
                FIELD("root", ROW(FIELD("right", ROW(FIELD("leaf", leaf))), FIELD("label", STRING()))),
                FIELD("home", ROW(FIELD("point", ROW(FIELD("altitude", ROW(FIELD("datum", STRING()))),
                        FIELD("lat", DOUBLE()))), FIELD("city", STRING()))),
                FIELD("work", ROW()), FIELD("name", STRING()))));
        out.add(projection("maps_subset", "MapsProto$Maps", 307, ROW(
                FIELD("string_value", MAP(STRING(), ROW(FIELD("numbers", ARRAY(INT()))))),
                FIELD("bool_string", MAP(BOOLEAN(), STRING())), FIELD("int32_value", MAP(INT(), ROW())),
                FIELD("string_status", MAP(STRING(), INT())))));
        out.add(projection("maps2holder", "MapsProto$Maps2Holder", 308, ROW(
                FIELD("label", STRING()), FIELD("counts", MAP(STRING(), INT())))));
        out.add(projection("repeated3_subset", "Repeated3Proto$Repeated3", 309, ROW(
                FIELD("r_item", ARRAY(ROW(FIELD("tags", ARRAY(STRING())), FIELD("qty", INT())))),
                FIELD("r_kind", ARRAY(INT())), FIELD("r_int32_unpacked", ARRAY(INT())), FIELD("r_bytes", ARRAY(BYTES())))));
        out.add(projection("oneofs_subset", "OneofsProto$Oneofs", 310, ROW(
                FIELD("p_detail", ROW(FIELD("level", INT()))), FIELD("p_kind", INT()), FIELD("s_detail", ROW()),
                FIELD("p_string", STRING()), FIELD("s_bool", BOOLEAN()))));
        // proto2 root without proto3 implicit scalars in the row type: Flink opens it without read-default-values
        out.add(projection("mixed2_proto2_only", "Mixed2Proto$Mixed2", 311, ROW(
                FIELD("id", INT()), FIELD("outer", ROW(FIELD("name", STRING()), FIELD("count", INT()),
                        FIELD("middle", ROW(FIELD("tag", STRING()), FIELD("inner", ROW(FIELD("flag", BOOLEAN()))))))),
                FIELD("point", ROW(FIELD("altitude", ROW()))))));
        // editions without the IMPLICIT column: Flink opens it without read-default-values
        out.add(projection("editions_explicit", "EditionsProto$Editions", 312, ROW(
                FIELD("e_int32", INT()), FIELD("e_string", STRING()), FIELD("e_required", INT()),
                FIELD("e_default", INT()), FIELD("e_packed", ARRAY(INT())), FIELD("e_expanded", ARRAY(INT())),
                FIELD("e_sub", ROW(FIELD("name", STRING()))), FIELD("e_mood", STRING()),
                FIELD("e_closed_mood", INT()), FIELD("e_delimited", ROW(FIELD("name", STRING()))))));
        out.add(projection("wellknown_subset", "WellKnownProto$WellKnown", 313, ROW(
                FIELD("history", ARRAY(ROW(FIELD("nanos", INT())))), FIELD("w_string", ROW(FIELD("value", STRING()))),
                FIELD("created_at", ROW(FIELD("seconds", BIGINT()))), FIELD("w_bytes", ROW(FIELD("value", BYTES()))))));
        out.add(projection("groups_subset", "GroupsProto$Groups", 314, ROW(
                FIELD("line", ARRAY(ROW(FIELD("text", STRING())))), FIELD("header", ROW(FIELD("stamp", BIGINT()))))));
        return out;
    }

    /** The row type Flink derives for a message of this directory ({@code Outer$Message}). */
    static RowType rowType(String outerAndMessage) {
        return PbToRowTypeUtil.generateRowType(ProtobufCorpus.descriptorOf(PACKAGE + outerAndMessage));
    }

    private static ProtobufCorpus derived(String name, String outerAndMessage, long seed) {
        return new ProtobufCorpus(name, PACKAGE + outerAndMessage, rowType(outerAndMessage), seed, false, 1.0);
    }

    private static ProtobufCorpus projection(String name, String outerAndMessage, long seed, DataType type) {
        return new ProtobufCorpus(name, PACKAGE + outerAndMessage, (RowType) type.getLogicalType(), seed, false,
                PROJECTION_SHARE);
    }
}

package io.karrow.flink.formats.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.protobuf.proto.MapsProto;
import io.karrow.flink.testutils.RowDataDiff;

import com.google.protobuf.ByteString;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Decoded maps come in the order of the map flink-protobuf builds: its generated decoder copies
 * protobuf-java's map (wire order, a repeated key in its first place) into a {@code new HashMap()}
 * keyed by {@code BinaryStringData} / {@code Integer} / {@code Long} / {@code Boolean}, and every
 * encoder downstream iterates it. Messages with up to 60 entries per map (string, int32, int64,
 * uint32, sint64, fixed32 and bool keys; repeated keys from concatenated messages) are decoded by
 * {@code protobuf} and {@code protobuf-native}: the rows must be equal with every map in the same
 * order, and a pass-through job writing flink-json must write the same bytes for both. The corpus
 * is checked to need the order: most messages' wire order is not the {@code HashMap}'s.
 */
class ProtobufMapOrderParityTest {

    private static final String MESSAGE_CLASS = MapsProto.Maps.class.getName();
    private static final int MESSAGES = 2_000;

    @Test
    void decodedMapsComeInFlinkProtobufsOrderAndPassThroughToJsonUnchanged() throws Exception {
        RowType rowType = ProtobufCorpora.all().stream().filter(c -> c.name().equals("maps")).findFirst()
                .orElseThrow().rowType();
        Map<String, String> options = Map.of("message-class-name", MESSAGE_CLASS);
        DeserializationSchema<RowData> flink = ProtobufParityHarness.decoder(ProtobufParityHarness.ORACLE, rowType,
                options);
        DeserializationSchema<RowData> karrow = ProtobufParityHarness.decoder(ProtobufParityHarness.NATIVE, rowType,
                options);
        // flink-json writes string-keyed maps only: the pass-through job keeps those columns.
        int[] stringKeyed = {0, 1, 8, 9};
        List<RowType.RowField> jsonFields = new ArrayList<>();
        RowData.FieldGetter[] getters = new RowData.FieldGetter[stringKeyed.length];
        for (int f = 0; f < stringKeyed.length; f++) {
            jsonFields.add(rowType.getFields().get(stringKeyed[f]));
            getters[f] = RowData.createFieldGetter(rowType.getTypeAt(stringKeyed[f]), stringKeyed[f]);
        }
        RowType jsonType = new RowType(false, jsonFields);
        SerializationSchema<RowData> json = ProtobufParityHarness.encoder("json", jsonType, Map.of());
        SplittableRandom random = new SplittableRandom(61);
        List<String> problems = new ArrayList<>();
        int reordered = 0;
        try {
            for (int i = 0; i < MESSAGES; i++) {
                MapsProto.Maps first = message(random);
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                first.writeTo(bytes);
                if (random.nextInt(4) == 0) {
                    // A concatenated message: its map entries follow, repeated keys included.
                    message(random).writeTo(bytes);
                }
                byte[] value = bytes.toByteArray();
                RowData expected = flink.deserialize(value);
                RowData actual = karrow.deserialize(value);
                String diff = RowDataDiff.diffInOrder(rowType, expected, actual);
                if (diff != null) {
                    problems.add("message " + i + ": " + diff);
                    continue;
                }
                byte[] stock = json.serialize(project(expected, getters));
                byte[] own = json.serialize(project(actual, getters));
                if (!Arrays.equals(stock, own)) {
                    problems.add("message " + i + ": flink-json writes " + text(stock) + " for flink-protobuf's row, "
                            + text(own) + " for protobuf-native's");
                }
                List<Integer> wire = new ArrayList<>(first.getInt32StringMap().keySet());
                List<Integer> decoded = new ArrayList<>();
                for (int k = 0; !expected.isNullAt(2) && k < expected.getMap(2).size(); k++) {
                    decoded.add(expected.getMap(2).keyArray().getInt(k));
                }
                if (value.length == first.getSerializedSize() && !wire.equals(decoded)) {
                    reordered++;
                }
            }
        } finally {
            ProtobufParityHarness.closeQuietly(karrow);
        }
        System.out.printf("protobuf map order parity: %d messages, %d whose int32 map Flink reorders, %d problems%n",
                MESSAGES, reordered, problems.size());
        assertThat(reordered).as("messages whose wire order is not flink-protobuf's").isGreaterThan(MESSAGES / 2);
        assertThat(problems.subList(0, Math.min(10, problems.size()))).as("%d messages differ", problems.size())
                .isEmpty();
    }

    private static RowData project(RowData row, RowData.FieldGetter[] getters) {
        GenericRowData out = new GenericRowData(getters.length);
        for (int f = 0; f < getters.length; f++) {
            out.setField(f, getters[f].getFieldOrNull(row));
        }
        return out;
    }

    private static MapsProto.Maps message(SplittableRandom random) {
        MapsProto.Maps.Builder b = MapsProto.Maps.newBuilder();
        int n = random.nextInt(4) == 0 ? random.nextInt(61) : random.nextInt(8);
        for (int e = 0; e < n; e++) {
            b.putStringString(text(random), text(random));
            b.putStringInt64(text(random), random.nextLong());
            b.putInt32String(random.nextBoolean() ? random.nextInt(64) : random.nextInt(), text(random));
            b.putInt64Double(random.nextBoolean() ? random.nextLong(-40, 40) : random.nextLong(), random.nextDouble());
            b.putUint32Bytes(random.nextInt(), ByteString.copyFrom(new byte[] {(byte) e}));
            b.putSint64Float(random.nextLong(), (float) random.nextDouble());
            b.putFixed32Bool(random.nextInt(1000), random.nextBoolean());
            b.putBoolString(random.nextBoolean(), text(random));
            b.putStringStatusValue(text(random), random.nextInt(3));
            MapsProto.Maps.Value v = MapsProto.Maps.Value.newBuilder().setText(text(random)).setNumber(e).build();
            b.putStringValue(text(random), v);
            b.putInt32Value(random.nextInt(100), v);
        }
        return b.build();
    }

    private static String text(SplittableRandom random) {
        StringBuilder out = new StringBuilder();
        for (int n = random.nextInt(7); n > 0; n--) {
            int kind = random.nextInt(6);
            out.append(kind == 0 ? "é" : kind == 1 ? "\uD83D\uDE00" : String.valueOf((char) ('a' + random.nextInt(26))));
        }
        return out.toString();
    }

    private static String text(byte[] bytes) {
        return "'" + new String(bytes, StandardCharsets.UTF_8) + "'";
    }
}

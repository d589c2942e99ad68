package io.karrow.flink.formats.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;

import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * One protobuf parity corpus: a message class, a table row type for it (Flink's own derivation or a
 * hand-written projection) and seeded generators of Kafka values (protobuf wire bytes) for the
 * decode suite and of rows ({@link GenericRowData}) for the encode suite.
 *
 * <p>Messages are written by hand at the wire level from the descriptor, so the generator controls
 * what protobuf-java's own writer never produces: random presence (absent, present with the default
 * value, present), extreme values (min/max, -0.0, NaN with odd payloads, infinities, uint max,
 * int32 varints with garbage upper bits, bools from large varints), unicode and invalid UTF-8
 * strings, empty and multi-element repeated fields in packed, unpacked and mixed form, maps with
 * duplicate keys and odd entries (missing key or value, swapped, repeated key, unknown fields
 * inside), a singular field sent twice (last wins / message merge), oneofs with zero, one or two
 * members, unknown fields of every wire type (including groups) at every level, known numbers with
 * the wrong wire type, non-minimal varints, shuffled field order, unknown enum numbers, two
 * messages concatenated (a protobuf merge), tombstones and empty values, and about 5% malformed
 * values (truncated, flipped or inserted bytes, bad tags, bad lengths, overlong varints, broken
 * groups, missing required fields). Whether a value is valid is not decided here: the oracle
 * (flink-protobuf) decides, and native must agree.
 */
public final class ProtobufCorpus {

    private final String name;
    private final String messageClass;
    private final RowType rowType;
    private final long seed;
    private final boolean flinkOpenFailsWithoutReadDefaults;
    private final double share;
    private Descriptor descriptor;

    /**
     * @param messageClass the generated class, e.g. {@code ...Scalars3Proto$Scalars3}
     * @param rowType the table's physical row type
     * @param flinkOpenFailsWithoutReadDefaults whether flink-protobuf 2.2.0's {@code open()} fails
     *     with read-default-values = false for this row type (docs/parity/protobuf.md: a proto2 root
     *     embedding proto3 implicit scalars, an editions IMPLICIT column)
     * @param share the part of {@code karrow.corpus.records} this corpus gets ({@link #count})
     */
    ProtobufCorpus(String name, String messageClass, RowType rowType, long seed,
                   boolean flinkOpenFailsWithoutReadDefaults, double share) {
        this.share = share;
        this.name = name;
        this.messageClass = messageClass;
        this.rowType = rowType;
        this.seed = seed;
        this.flinkOpenFailsWithoutReadDefaults = flinkOpenFailsWithoutReadDefaults;
    }

    /** Name of the corpus. */
    public String name() {
        return name;
    }

    /** How many values / rows this corpus gets when every corpus gets {@code records}: its share, at least 100. */
    public int count(int records) {
        return Math.max(Math.min(records, 100), (int) Math.round(records * share));
    }

    /** The {@code message-class-name} option. */
    public String messageClass() {
        return messageClass;
    }

    /** The table's physical row type. */
    public RowType rowType() {
        return rowType;
    }

    /** Whether the message's file is an editions file ({@code getSyntax()} is {@code "editions"}). */
    public boolean isEditions() {
        return "editions".equals(descriptor().getFile().toProto().getSyntax());
    }

    /** Whether Flink cannot open this row type with read-default-values = false. */
    public boolean flinkOpenFailsWithoutReadDefaults() {
        return flinkOpenFailsWithoutReadDefaults;
    }

    /** The message descriptor (from the generated class's static {@code getDescriptor()}). */
    public synchronized Descriptor descriptor() {
        if (descriptor == null) {
            descriptor = descriptorOf(messageClass);
        }
        return descriptor;
    }

    /** The descriptor of a generated message class. */
    static Descriptor descriptorOf(String messageClass) {
        try {
            return (Descriptor) Class.forName(messageClass).getMethod("getDescriptor").invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("no descriptor for " + messageClass, e);
        }
    }

    /** {@code count} Kafka values (null = tombstone). */
    public List<byte[]> messages(int count) {
        MessageGenerator g = new MessageGenerator(new Random(seed * 31 + 7));
        List<byte[]> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(g.value(descriptor()));
        }
        return out;
    }

    /** {@code count} rows of {@link #rowType()} for the encoder. */
    public List<GenericRowData> rows(int count) {
        RowGenerator g = new RowGenerator(new Random(seed * 17 + 5));
        List<GenericRowData> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(g.row(rowType, descriptor(), true));
        }
        return out;
    }

    @Override
    public String toString() {
        return name;
    }

    // ------------------------------------------------------------------------------------------
    // Values shared by both generators
    // ------------------------------------------------------------------------------------------

    private static final int[] INT_EXTREMES = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, Integer.MIN_VALUE + 1,
        Integer.MAX_VALUE - 1, 127, 128, -128, 255, 256, 16383, 16384, 65535, -65536, 0x7fffff};
    private static final long[] LONG_EXTREMES = {0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MIN_VALUE,
        Integer.MAX_VALUE, 0xffffffffL, 1L << 32, 1L << 35, -(1L << 35), 1L << 62, Long.MIN_VALUE + 1,
        9_007_199_254_740_993L};
    private static final int[] FLOAT_SPECIALS = {0, 0x80000000, 0x7fc00000, 0x7f800001, 0xffc00001, 0x7fbfffff,
        0x7f800000, 0xff800000, 0x00000001, 0x7f7fffff, 0x00800000, 0x3f800000, 0xbfc00000, 0x80000001};
    private static final long[] DOUBLE_SPECIALS = {0L, 0x8000000000000000L, 0x7ff8000000000000L, 0x7ff0000000000001L,
        0xfff8000000000001L, 0x7ff0000000000000L, 0xfff0000000000000L, 1L, 0x7fefffffffffffffL, 0x0010000000000000L,
        0x3ff0000000000000L, 0xbff8000000000000L, 0x4340000000000001L};
    private static final String[] WORDS = {"", "a", "k", "z", "m", "b", "é", "null", "NULL", "key", "ключ", "中文",
        "😀", "a b", "\u0000", "\t\n", "\uFEFF", "\uFFFF", "x".repeat(130)};
    private static final byte[][] BAD_UTF8 = {
        {(byte) 0xc3, 0x28}, {(byte) 0xff}, {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, {(byte) 0xf0, (byte) 0x9f, (byte) 0x98},
        {(byte) 0xc0, (byte) 0x80}, {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xe2, (byte) 0x82},
        {(byte) 0x80}, {(byte) 0xed, (byte) 0xb0, (byte) 0x80, 0x62}, {(byte) 0xfe, (byte) 0xfe}, {(byte) 0xe0, (byte) 0x80, (byte) 0xaf}};

    private abstract static class Values {
        final Random r;

        Values(Random r) {
            this.r = r;
        }

        boolean chance(double p) {
            return r.nextDouble() < p;
        }

        int anInt() {
            double k = r.nextDouble();
            if (k < 0.3) {
                return r.nextInt(104) - 3;
            }
            if (k < 0.55) {
                return INT_EXTREMES[r.nextInt(INT_EXTREMES.length)];
            }
            return r.nextInt();
        }

        long aLong() {
            double k = r.nextDouble();
            if (k < 0.25) {
                return r.nextInt(1000) - 3;
            }
            if (k < 0.5) {
                return LONG_EXTREMES[r.nextInt(LONG_EXTREMES.length)];
            }
            if (k < 0.6) {
                return anInt();
            }
            return r.nextLong();
        }

        int floatBits() {
            double k = r.nextDouble();
            if (k < 0.35) {
                return FLOAT_SPECIALS[r.nextInt(FLOAT_SPECIALS.length)];
            }
            if (k < 0.45) {
                return r.nextInt();
            }
            if (k < 0.6) {
                return Float.floatToRawIntBits((float) (r.nextInt(2000) - 1000) / 4);
            }
            return Float.floatToRawIntBits((float) ((r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(40) - 20)));
        }

        long doubleBits() {
            double k = r.nextDouble();
            if (k < 0.35) {
                return DOUBLE_SPECIALS[r.nextInt(DOUBLE_SPECIALS.length)];
            }
            if (k < 0.45) {
                return r.nextLong();
            }
            if (k < 0.6) {
                return Double.doubleToRawLongBits((double) (r.nextInt(2000) - 1000) / 8);
            }
            return Double.doubleToRawLongBits((r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(600) - 300));
        }

        /** A Java string: words, random unicode, sometimes long; {@code surrogates} allows unpaired ones. */
        String text(boolean surrogates) {
            double k = r.nextDouble();
            if (k < 0.3) {
                return WORDS[r.nextInt(WORDS.length)];
            }
            StringBuilder s = new StringBuilder();
            int n = k < 0.97 ? r.nextInt(12) : 100 + r.nextInt(300);
            for (int i = 0; i < n; i++) {
                double c = r.nextDouble();
                if (c < 0.6) {
                    s.append((char) ('a' + r.nextInt(26)));
                } else if (c < 0.7) {
                    s.append((char) r.nextInt(0x20));
                } else if (c < 0.8) {
                    s.append((char) (0xa0 + r.nextInt(0x700)));
                } else if (c < 0.88) {
                    s.append((char) (0x3000 + r.nextInt(0x5000)));
                } else if (c < 0.96) {
                    s.appendCodePoint(0x10000 + r.nextInt(0x100000));
                } else if (c < 0.98) {
                    s.append(new char[] {'\uFFFD', '\uFFFF', '\uFEFF', '\u0000', '\u2028'}[r.nextInt(5)]);
                } else if (surrogates) {
                    s.append((char) (0xd800 + r.nextInt(0x800)));
                } else {
                    s.append('"');
                }
            }
            return s.toString();
        }

        byte[] bytes() {
            double k = r.nextDouble();
            byte[] b = new byte[k < 0.2 ? 0 : k < 0.95 ? 1 + r.nextInt(12) : 130 + r.nextInt(200)];
            r.nextBytes(b);
            return b;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Wire messages
    // ------------------------------------------------------------------------------------------

    private static final int VARINT = 0;
    private static final int I64 = 1;
    private static final int LEN = 2;
    private static final int SGROUP = 3;
    private static final int EGROUP = 4;
    private static final int I32 = 5;

    /** Writes protobuf wire messages for a descriptor; see the class comment. */
    static final class MessageGenerator extends Values {

        MessageGenerator(Random r) {
            super(r);
        }

        /** One Kafka value. */
        byte[] value(Descriptor d) {
            double k = r.nextDouble();
            if (k < 0.002) {
                return null; // tombstone
            }
            if (k < 0.007) {
                return new byte[0];
            }
            if (k < 0.057) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                out.writeBytes(message(d, 0));
                out.writeBytes(message(d, 0)); // a protobuf merge of two messages
                return out.toByteArray();
            }
            if (k < 0.107) {
                return malformed(d);
            }
            return message(d, 0);
        }

        /** The fields of one message of type {@code d}, as wire bytes. */
        byte[] message(Descriptor d, int depth) {
            List<byte[]> chunks = new ArrayList<>();
            Set<OneofDescriptor> oneofsDone = new HashSet<>();
            for (FieldDescriptor f : d.getFields()) {
                OneofDescriptor oneof = f.getRealContainingOneof();
                if (oneof != null) {
                    if (oneofsDone.add(oneof)) {
                        oneof(chunks, oneof, depth);
                    }
                    continue;
                }
                field(chunks, f, depth);
            }
            if (chance(depth == 0 ? 0.12 : 0.04)) {
                int n = 1 + r.nextInt(3);
                for (int i = 0; i < n; i++) {
                    chunks.add(unknownField(d, 0));
                }
            }
            if (chance(0.03)) {
                chunks.add(wrongWireType(d));
            }
            if (chance(0.2)) {
                Collections.shuffle(chunks, r);
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            chunks.forEach(out::writeBytes);
            return out.toByteArray();
        }

        private void oneof(List<byte[]> chunks, OneofDescriptor oneof, int depth) {
            double k = r.nextDouble();
            int members = k < 0.3 ? 0 : k < 0.9 ? 1 : 2;
            for (int i = 0; i < members; i++) {
                FieldDescriptor f = oneof.getField(r.nextInt(oneof.getFieldCount()));
                chunks.add(singular(f, depth, chance(0.2)));
            }
        }

        private void field(List<byte[]> chunks, FieldDescriptor f, int depth) {
            if (f.isMapField()) {
                map(chunks, f, depth);
            } else if (f.isRepeated()) {
                repeated(chunks, f, depth);
            } else {
                boolean present;
                if (f.isRequired()) {
                    present = !chance(0.02);
                } else {
                    present = !chance(0.35);
                }
                if (present) {
                    chunks.add(singular(f, depth, chance(0.2)));
                    if (chance(0.04)) {
                        chunks.add(singular(f, depth, chance(0.2))); // again: last wins / merged
                    }
                }
            }
        }

        /** One occurrence of a singular field, default-valued when {@code asDefault} (scalars). */
        private byte[] singular(FieldDescriptor f, int depth, boolean asDefault) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            if (f.getType() == FieldDescriptor.Type.GROUP) {
                tag(out, f.getNumber(), SGROUP);
                out.writeBytes(message(f.getMessageType(), depth + 1));
                tag(out, f.getNumber(), EGROUP);
                return out.toByteArray();
            }
            tag(out, f.getNumber(), wireType(f));
            payload(out, f, depth, asDefault);
            return out.toByteArray();
        }

        private void repeated(List<byte[]> chunks, FieldDescriptor f, int depth) {
            int n = count();
            if (n == 0) {
                if (f.isPackable() && chance(0.03)) {
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    tag(out, f.getNumber(), LEN);
                    varint(out, 0); // an empty packed run
                    chunks.add(out.toByteArray());
                }
                return;
            }
            if (!f.isPackable()) {
                for (int i = 0; i < n; i++) {
                    chunks.add(singular(f, depth, chance(0.1)));
                }
                return;
            }
            double k = r.nextDouble();
            boolean packed = k < 0.7 ? f.isPacked() : !f.isPacked();
            int split = k < 0.9 ? n : r.nextInt(n + 1); // sometimes the first part in the other form
            ByteArrayOutputStream run = new ByteArrayOutputStream();
            for (int i = 0; i < n; i++) {
                boolean thisPacked = i < split ? packed : !packed;
                if (thisPacked) {
                    payload(run, f, depth, chance(0.1));
                    if (i + 1 == split || i + 1 == n) {
                        ByteArrayOutputStream out = new ByteArrayOutputStream();
                        tag(out, f.getNumber(), LEN);
                        varint(out, run.size());
                        out.writeBytes(run.toByteArray());
                        run.reset();
                        chunks.add(out.toByteArray());
                    }
                } else {
                    chunks.add(singular(f, depth, chance(0.1)));
                }
            }
        }

        private int count() {
            double k = r.nextDouble();
            return k < 0.35 ? 0 : k < 0.6 ? 1 : k < 0.95 ? 2 + r.nextInt(4) : 6 + r.nextInt(15);
        }

        private void map(List<byte[]> chunks, FieldDescriptor f, int depth) {
            int n = count();
            Descriptor entry = f.getMessageType();
            FieldDescriptor key = entry.findFieldByNumber(1);
            FieldDescriptor value = entry.findFieldByNumber(2);
            boolean smallKeys = chance(0.3); // duplicate keys
            for (int i = 0; i < n; i++) {
                List<byte[]> parts = new ArrayList<>();
                double k = r.nextDouble();
                if (k >= 0.04) {
                    parts.add(mapKey(key, smallKeys));
                }
                if (k < 0.04 || k >= 0.08) {
                    parts.add(singular(value, depth, chance(0.1)));
                }
                if (k >= 0.08 && k < 0.12) {
                    Collections.reverse(parts);
                } else if (k >= 0.12 && k < 0.14) {
                    parts.add(mapKey(key, smallKeys)); // key repeated inside the entry: last wins
                } else if (k >= 0.14 && k < 0.16) {
                    parts.add(1, unknownField(entry, 0));
                } else if (k >= 0.16 && k < 0.17) {
                    parts.add(singular(value, depth, false)); // value repeated inside the entry
                }
                ByteArrayOutputStream body = new ByteArrayOutputStream();
                parts.forEach(body::writeBytes);
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                tag(out, f.getNumber(), LEN);
                varint(out, body.size());
                out.writeBytes(body.toByteArray());
                chunks.add(out.toByteArray());
            }
        }

        private byte[] mapKey(FieldDescriptor key, boolean small) {
            if (!small) {
                return singular(key, 0, chance(0.05));
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            tag(out, 1, wireType(key));
            switch (key.getJavaType()) {
                case STRING:
                    lengthDelimited(out, new String[] {"", "a", "z", "m", "b"}[r.nextInt(5)].getBytes(StandardCharsets.UTF_8));
                    break;
                case BOOLEAN:
                    varint(out, r.nextInt(2));
                    break;
                default: {
                    long v = r.nextInt(4) - 1;
                    scalar(out, key.getType(), v, v);
                }
            }
            return out.toByteArray();
        }

        private static int wireType(FieldDescriptor f) {
            switch (f.getType()) {
                case DOUBLE:
                case FIXED64:
                case SFIXED64:
                    return I64;
                case FLOAT:
                case FIXED32:
                case SFIXED32:
                    return I32;
                case STRING:
                case BYTES:
                case MESSAGE:
                    return LEN;
                case GROUP:
                    return SGROUP;
                default:
                    return VARINT;
            }
        }

        /** The value of one field occurrence, without its tag (length-prefixed for LEN types). */
        private void payload(ByteArrayOutputStream out, FieldDescriptor f, int depth, boolean asDefault) {
            switch (f.getType()) {
                case MESSAGE:
                    lengthDelimited(out, chance(0.05) ? new byte[0] : message(f.getMessageType(), depth + 1));
                    return;
                case GROUP:
                    throw new IllegalStateException("groups are written by singular()");
                case STRING:
                    lengthDelimited(out, asDefault ? new byte[0] : stringBytes(f));
                    return;
                case BYTES:
                    lengthDelimited(out, asDefault ? new byte[0] : bytes());
                    return;
                case ENUM: {
                    List<EnumValueDescriptor> values = f.getEnumType().getValues();
                    long number;
                    if (asDefault) {
                        number = f.hasDefaultValue() ? ((EnumValueDescriptor) f.getDefaultValue()).getNumber()
                                : values.get(0).getNumber();
                    } else if (chance(0.96)) {
                        number = values.get(r.nextInt(values.size())).getNumber();
                    } else {
                        number = new long[] {4, 5, 6, 9, 99, -2, -100, 1 << 20, Integer.MAX_VALUE, Integer.MIN_VALUE}[r.nextInt(10)];
                    }
                    writeVarint(out, number);
                    return;
                }
                case BOOL: {
                    double k = r.nextDouble();
                    writeVarint(out, asDefault ? 0 : k < 0.9 ? r.nextInt(2) : new long[] {2, 128, -1, 1L << 40}[r.nextInt(4)]);
                    return;
                }
                default: {
                    if (asDefault) {
                        scalar(out, f.getType(), 0, 0);
                    } else if (chance(0.02) && isVarint32(f.getType())) {
                        writeVarint(out, r.nextLong()); // upper bits dropped by a 32-bit field
                    } else {
                        long v = aLong();
                        int i = anInt();
                        scalar(out, f.getType(), v, i);
                    }
                }
            }
        }

        private static boolean isVarint32(FieldDescriptor.Type t) {
            return t == FieldDescriptor.Type.INT32 || t == FieldDescriptor.Type.UINT32 || t == FieldDescriptor.Type.SINT32;
        }

        /** A numeric scalar: {@code v} for 64-bit types, {@code i} for 32-bit types (bits for float/double are random). */
        private void scalar(ByteArrayOutputStream out, FieldDescriptor.Type t, long v, long i) {
            boolean zero = v == 0 && i == 0;
            switch (t) {
                case INT32:
                    writeVarint(out, (int) i);
                    break;
                case UINT32:
                    writeVarint(out, i & 0xffffffffL);
                    break;
                case SINT32: {
                    int x = (int) i;
                    writeVarint(out, ((x << 1) ^ (x >> 31)) & 0xffffffffL);
                    break;
                }
                case INT64:
                case UINT64:
                    writeVarint(out, v);
                    break;
                case SINT64:
                    writeVarint(out, (v << 1) ^ (v >> 63));
                    break;
                case FIXED32:
                case SFIXED32:
                    fixed32(out, (int) i);
                    break;
                case FLOAT:
                    fixed32(out, zero ? 0 : floatBits());
                    break;
                case FIXED64:
                case SFIXED64:
                    fixed64(out, v);
                    break;
                case DOUBLE:
                    fixed64(out, zero ? 0 : doubleBits());
                    break;
                case BOOL:
                    writeVarint(out, v == 0 ? 0 : 1);
                    break;
                default:
                    throw new IllegalStateException("not a numeric scalar: " + t);
            }
        }

        /** A varint, sometimes non-minimal (padded to at most 10 bytes, as protobuf-java accepts). */
        private void writeVarint(ByteArrayOutputStream out, long v) {
            if (!chance(0.02)) {
                varint(out, v);
                return;
            }
            int needed = 1;
            for (long x = v >>> 7; x != 0; x >>>= 7) {
                needed++;
            }
            int pad = needed >= 10 ? 0 : 1 + r.nextInt(10 - needed);
            long x = v;
            for (int i = 0; i < needed; i++) {
                int b = (int) (x & 0x7f);
                x >>>= 7;
                out.write(i + 1 < needed || pad > 0 ? b | 0x80 : b);
            }
            for (int i = 0; i < pad; i++) {
                out.write(i + 1 < pad ? 0x80 : 0x00);
            }
        }

        private byte[] stringBytes(FieldDescriptor f) {
            String syntax = f.getFile().toProto().getSyntax();
            boolean checked = !(syntax.isEmpty() || syntax.equals("proto2"));
            byte[] valid = text(false).getBytes(StandardCharsets.UTF_8);
            if (!chance(checked ? 0.003 : 0.06)) {
                return valid;
            }
            byte[] bad = BAD_UTF8[r.nextInt(BAD_UTF8.length)];
            int at = r.nextInt(valid.length + 1);
            // do not split a valid multi-byte sequence: insert at a code point boundary
            while (at < valid.length && (valid[at] & 0xc0) == 0x80) {
                at++;
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(valid, 0, at);
            out.writeBytes(bad);
            out.write(valid, at, valid.length - at);
            return out.toByteArray();
        }

        /** A field whose number {@code d} does not declare, of a random wire type. */
        private byte[] unknownField(Descriptor d, int level) {
            int number;
            do {
                number = new int[] {d.getFields().isEmpty() ? 1 : maxNumber(d) + 1, 19, 20, 31, 100, 1000, 2047, 2048,
                    19000, 19999, 65536, (1 << 29) - 1, 1 + r.nextInt(200)}[r.nextInt(13)];
            } while (d.findFieldByNumber(number) != null);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int wt = new int[] {VARINT, VARINT, I64, I32, LEN, LEN, SGROUP}[r.nextInt(7)];
            if (wt == SGROUP && level > 2) {
                wt = VARINT;
            }
            tag(out, number, wt);
            switch (wt) {
                case VARINT:
                    writeVarint(out, aLong());
                    break;
                case I64:
                    fixed64(out, r.nextLong());
                    break;
                case I32:
                    fixed32(out, r.nextInt());
                    break;
                case LEN:
                    lengthDelimited(out, chance(0.5) ? bytes() : text(false).getBytes(StandardCharsets.UTF_8));
                    break;
                default: {
                    int inner = r.nextInt(3);
                    for (int i = 0; i < inner; i++) {
                        out.writeBytes(unknownField(d, level + 1));
                    }
                    tag(out, number, EGROUP);
                }
            }
            return out.toByteArray();
        }

        private static int maxNumber(Descriptor d) {
            int max = 0;
            for (FieldDescriptor f : d.getFields()) {
                max = Math.max(max, f.getNumber());
            }
            return max;
        }

        /** A declared field number with a wire type that does not match its type. */
        private byte[] wrongWireType(Descriptor d) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            if (d.getFields().isEmpty()) {
                return out.toByteArray();
            }
            FieldDescriptor f = d.getFields().get(r.nextInt(d.getFields().size()));
            int expected = wireType(f);
            int wt;
            do {
                wt = new int[] {VARINT, I64, LEN, I32}[r.nextInt(4)];
            } while (wt == expected);
            tag(out, f.getNumber(), wt);
            switch (wt) {
                case VARINT:
                    varint(out, r.nextInt(300));
                    break;
                case I64:
                    fixed64(out, r.nextLong());
                    break;
                case I32:
                    fixed32(out, r.nextInt());
                    break;
                default:
                    lengthDelimited(out, chance(0.5) ? new byte[] {0x08, 0x01} : bytes());
            }
            return out.toByteArray();
        }

        /** A broken value: a valid message damaged in one of several ways. */
        private byte[] malformed(Descriptor d) {
            byte[] m = message(d, 0);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int kind = r.nextInt(11);
            FieldDescriptor known = d.getFields().isEmpty() ? null : d.getFields().get(r.nextInt(d.getFields().size()));
            switch (kind) {
                case 0: // truncated
                    if (m.length > 1) {
                        return java.util.Arrays.copyOf(m, 1 + r.nextInt(m.length - 1));
                    }
                    out.writeBytes(m);
                    out.write(0x08); // a tag without its value
                    return out.toByteArray();
                case 1: { // one byte changed
                    if (m.length == 0) {
                        return new byte[] {(byte) r.nextInt(256)};
                    }
                    byte[] c = m.clone();
                    c[r.nextInt(c.length)] ^= (byte) (1 + r.nextInt(255));
                    return c;
                }
                case 2: { // one byte inserted
                    int at = r.nextInt(m.length + 1);
                    out.write(m, 0, at);
                    out.write(r.nextInt(256));
                    out.write(m, at, m.length - at);
                    return out.toByteArray();
                }
                case 3: // field number 0, wire types 6 and 7, a stray end-group
                    out.writeBytes(m);
                    out.write(new int[] {0x00, 0x06, 0x07, 0x0e, 0x0f, 0x1f, 0x0c, 0x2c}[r.nextInt(8)]);
                    out.write(0x01);
                    return out.toByteArray();
                case 4: { // a length past the end
                    out.writeBytes(m);
                    tag(out, known != null && chance(0.5) ? known.getNumber() : 500, LEN);
                    varint(out, 5 + r.nextInt(100));
                    out.write(0x61);
                    return out.toByteArray();
                }
                case 5: // a negative length
                    out.writeBytes(m);
                    tag(out, known != null && chance(0.5) ? known.getNumber() : 500, LEN);
                    out.writeBytes(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f});
                    out.write(0x61);
                    return out.toByteArray();
                case 6: // an 11-byte varint
                    out.writeBytes(m);
                    tag(out, known != null && wireType(known) == VARINT ? known.getNumber() : 500, VARINT);
                    for (int i = 0; i < 10; i++) {
                        out.write(0xff);
                    }
                    out.write(0x01);
                    return out.toByteArray();
                case 7: // an unterminated group
                    out.writeBytes(m);
                    tag(out, 500, SGROUP);
                    tag(out, 1, VARINT);
                    out.write(0x01);
                    return out.toByteArray();
                case 8: // a group ended by the wrong number
                    out.writeBytes(m);
                    tag(out, 500, SGROUP);
                    tag(out, 501, EGROUP);
                    return out.toByteArray();
                case 9: { // a nested message whose length is one too long / short
                    out.writeBytes(m);
                    FieldDescriptor msg = null;
                    for (FieldDescriptor f : d.getFields()) {
                        if (f.getType() == FieldDescriptor.Type.MESSAGE && !f.isMapField()) {
                            msg = f;
                        }
                    }
                    byte[] inner = msg == null ? new byte[] {0x08, 0x01} : message(msg.getMessageType(), 1);
                    tag(out, msg == null ? 500 : msg.getNumber(), LEN);
                    varint(out, chance(0.5) ? inner.length + 1 : Math.max(0, inner.length - 1));
                    out.writeBytes(inner);
                    return out.toByteArray();
                }
                default: { // a tag or length varint with bits above 32, a truncated fixed value
                    out.writeBytes(m);
                    if (chance(0.5)) {
                        varint(out, (1L << 35) | (1L << 3)); // field 1 varint, with high bits set
                        out.write(0x01);
                    } else {
                        tag(out, 500, I64);
                        out.writeBytes(new byte[] {1, 2, 3});
                    }
                    return out.toByteArray();
                }
            }
        }
    }

    static void varint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7fL) != 0) {
            out.write((int) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    static void tag(ByteArrayOutputStream out, int number, int wireType) {
        varint(out, ((long) number << 3) | wireType);
    }

    static void fixed32(ByteArrayOutputStream out, int v) {
        for (int i = 0; i < 4; i++) {
            out.write((v >>> (8 * i)) & 0xff);
        }
    }

    static void fixed64(ByteArrayOutputStream out, long v) {
        for (int i = 0; i < 8; i++) {
            out.write((int) ((v >>> (8 * i)) & 0xff));
        }
    }

    static void lengthDelimited(ByteArrayOutputStream out, byte[] b) {
        varint(out, b.length);
        out.writeBytes(b);
    }

    // ------------------------------------------------------------------------------------------
    // Rows
    // ------------------------------------------------------------------------------------------

    /**
     * Writes rows for the encoder: NULLs at every level (top-level columns, nested rows, array
     * elements, map keys and values), empty and multi-entry maps, extreme numbers, unicode strings
     * (rarely with unpaired surrogates), enum columns as valid names (aliases too), unknown names,
     * lower-case names, {@code 'UNRECOGNIZED'}, and valid and unknown numbers. Required proto fields
     * are rarely NULL (an encode error on both sides).
     */
    static final class RowGenerator extends Values {

        RowGenerator(Random r) {
            super(r);
        }

        /** NaNs with odd payloads are rare in rows (Flink's binary arrays normalize them, see the encode suite). */
        @Override
        int floatBits() {
            int bits = super.floatBits();
            return Float.isNaN(Float.intBitsToFloat(bits)) && bits != 0x7fc00000 && !chance(0.1) ? 0x7fc00000 : bits;
        }

        @Override
        long doubleBits() {
            long bits = super.doubleBits();
            return Double.isNaN(Double.longBitsToDouble(bits)) && bits != 0x7ff8000000000000L && !chance(0.1)
                    ? 0x7ff8000000000000L : bits;
        }

        GenericRowData row(RowType type, Descriptor d, boolean top) {
            GenericRowData row = new GenericRowData(type.getFieldCount());
            for (int i = 0; i < type.getFieldCount(); i++) {
                FieldDescriptor f = d.findFieldByName(type.getFieldNames().get(i));
                if (f == null) {
                    throw new IllegalArgumentException("no field " + type.getFieldNames().get(i) + " in " + d.getFullName());
                }
                boolean isNull = f.isRequired() ? chance(0.01) : chance(top ? 0.2 : 0.15);
                row.setField(i, isNull ? null : column(type.getTypeAt(i), f));
            }
            return row;
        }

        /** A non-null value of a column for field {@code f} (repeated / map fields give ARRAY / MAP). */
        private Object column(LogicalType t, FieldDescriptor f) {
            switch (t.getTypeRoot()) {
                case ARRAY: {
                    LogicalType e = ((ArrayType) t).getElementType();
                    int n = size();
                    Object[] items = new Object[n];
                    for (int i = 0; i < n; i++) {
                        items[i] = chance(0.1) && e.isNullable() ? null : element(e, f);
                    }
                    return new GenericArrayData(items);
                }
                case MAP: {
                    MapType mt = (MapType) t;
                    FieldDescriptor key = f.getMessageType().findFieldByName("key");
                    FieldDescriptor value = f.getMessageType().findFieldByName("value");
                    int n = size();
                    Map<Object, Object> m = chance(0.5) ? new HashMap<>() : new LinkedHashMap<>();
                    for (int i = 0; i < n; i++) {
                        Object k = chance(0.05) ? null : element(mt.getKeyType(), key);
                        m.put(k, chance(0.1) ? null : element(mt.getValueType(), value));
                    }
                    return new GenericMapData(m);
                }
                default:
                    return element(t, f);
            }
        }

        private int size() {
            double k = r.nextDouble();
            return k < 0.25 ? 0 : k < 0.5 ? 1 : k < 0.95 ? 2 + r.nextInt(4) : 6 + r.nextInt(12);
        }

        /** A non-null value of one element (or singular field) of {@code f}. */
        private Object element(LogicalType t, FieldDescriptor f) {
            boolean isEnum = f.getJavaType() == FieldDescriptor.JavaType.ENUM;
            switch (t.getTypeRoot()) {
                case ROW:
                    return row((RowType) t, f.getMessageType(), false);
                case BOOLEAN:
                    return r.nextBoolean();
                case INTEGER:
                    return isEnum ? enumNumber(f) : anInt();
                case BIGINT:
                    return isEnum ? (long) enumNumber(f) : aLong();
                case FLOAT:
                    return Float.intBitsToFloat(floatBits());
                case DOUBLE:
                    return Double.longBitsToDouble(doubleBits());
                case CHAR:
                case VARCHAR:
                    return StringData.fromString(isEnum ? enumName(f) : text(chance(0.05)));
                case BINARY:
                case VARBINARY:
                    return bytes();
                default:
                    throw new IllegalArgumentException("no generator for " + t);
            }
        }

        private int enumNumber(FieldDescriptor f) {
            List<EnumValueDescriptor> values = f.getEnumType().getValues();
            if (chance(0.8)) {
                return values.get(r.nextInt(values.size())).getNumber();
            }
            return new int[] {4, 9, 99, -2, Integer.MAX_VALUE, Integer.MIN_VALUE}[r.nextInt(6)];
        }

        private String enumName(FieldDescriptor f) {
            List<EnumValueDescriptor> values = f.getEnumType().getValues();
            double k = r.nextDouble();
            if (k < 0.7) {
                return values.get(r.nextInt(values.size())).getName();
            }
            if (k < 0.8) {
                return values.get(r.nextInt(values.size())).getName().toLowerCase(java.util.Locale.ROOT);
            }
            if (k < 0.9) {
                return "UNRECOGNIZED";
            }
            return new String[] {"", "NOPE", " " + values.get(0).getName(), "1", "é"}[r.nextInt(5)];
        }
    }
}

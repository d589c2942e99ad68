package io.karrow.flink.formats.json;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One JSON parity corpus: a table row type and a seeded generator of Kafka values (JSON bytes) for
 * the decode suites and of rows ({@link GenericRowData}) for the encode suites.
 *
 * <p>The message generator is driven by the row type and writes every value in one of the spellings
 * Flink accepts (spec §1.5: strings into numbers, numbers into strings including literal text such as
 * {@code 1.50} and {@code 1e3}, booleans from odd tokens, base64 with line breaks, both timestamp
 * grammars, impossible days, decimal overflow, ...) and, at a low rate, in spellings Flink rejects
 * (wrong types, bad grammar). Objects get missing, extra, duplicated and re-ordered keys, whitespace,
 * escaped key names; messages are sometimes top-level arrays, tombstones, empty, or invalid
 * (truncated, bad UTF-8, trailing garbage, nesting 2000 deep, ...). Whether a message is valid is not
 * decided here: the oracle (flink-json) decides, and native must agree.
 */
public final class JsonCorpus {

    /** The two values of {@code timestamp-format.standard}. */
    public enum Standard {
        SQL("SQL"),
        ISO_8601("ISO-8601");

        /** The option value. */
        public final String option;

        Standard(String option) {
            this.option = option;
        }
    }

    private final String name;
    private final DataType dataType;
    private final long seed;

    JsonCorpus(String name, DataType dataType, long seed) {
        this.name = name;
        this.dataType = dataType;
        this.seed = seed;
    }

    /** Name of the corpus. */
    public String name() {
        return name;
    }

    /** The table's physical data type (a NOT NULL row, as the planner passes it). */
    public DataType dataType() {
        return dataType;
    }

    /** The table's physical row type. */
    public RowType rowType() {
        return (RowType) dataType.getLogicalType();
    }

    /** Seed of both generators. */
    public long seed() {
        return seed;
    }

    /** {@code count} Kafka values (null = tombstone) whose timestamps mostly follow {@code standard}. */
    public List<byte[]> messages(int count, Standard standard) {
        MessageGenerator g = new MessageGenerator(new Random(seed * 31 + standard.ordinal()), standard);
        List<byte[]> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(g.message(rowType()));
        }
        return out;
    }

    /** {@code count} rows for the encoder, values fitting their declared types. */
    public List<GenericRowData> rows(int count) {
        RowGenerator g = new RowGenerator(new Random(seed * 17 + 5));
        List<GenericRowData> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(g.row(rowType(), 0, true));
        }
        return out;
    }

    @Override
    public String toString() {
        return name;
    }

    // ------------------------------------------------------------------------------------------
    // JSON text
    // ------------------------------------------------------------------------------------------

    /** Writes JSON messages for a row type; see the class comment. */
    static final class MessageGenerator {
        private final Random r;
        private final Standard standard;

        MessageGenerator(Random r, Standard standard) {
            this.r = r;
            this.standard = standard;
        }

        private boolean chance(double p) {
            return r.nextDouble() < p;
        }

        private char pick(String chars) {
            return chars.charAt(r.nextInt(chars.length()));
        }

        /** One Kafka value. */
        byte[] message(RowType type) {
            double k = r.nextDouble();
            if (k < 0.004) {
                return null; // tombstone
            }
            if (k < 0.007) {
                return new byte[0];
            }
            if (k < 0.010) {
                return utf8(ws(true) + ws(true));
            }
            if (k < 0.012) {
                return utf8(ws(false) + "null" + ws(false));
            }
            if (k < 0.030) {
                return utf8(topLevelArray(type));
            }
            if (k < 0.040) {
                return withTrailingText(type);
            }
            if (k < 0.043) {
                byte[] body = utf8(object(type, 0));
                byte[] out = new byte[body.length + 3];
                out[0] = (byte) 0xEF;
                out[1] = (byte) 0xBB;
                out[2] = (byte) 0xBF;
                System.arraycopy(body, 0, out, 3, body.length);
                return out;
            }
            if (k < 0.045) {
                return object(type, 0).getBytes(chance(0.5) ? StandardCharsets.UTF_16LE : StandardCharsets.UTF_16BE);
            }
            if (k < 0.080) {
                return invalid(type);
            }
            return utf8(ws(false) + object(type, 0) + ws(false));
        }

        private String topLevelArray(RowType type) {
            StringBuilder s = new StringBuilder("[");
            int n = r.nextInt(4);
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    s.append(',').append(ws(false));
                }
                double k = r.nextDouble();
                if (k < 0.04) {
                    s.append("null"); // parser decoder: a null record (a karrow divergence); tree decoder: skipped
                } else if (k < 0.07) {
                    s.append(scalarJunk());
                } else {
                    s.append(object(type, 0));
                }
            }
            return ws(false) + s.append(']') + ws(false);
        }

        private byte[] withTrailingText(RowType type) {
            String[] tails = {" xyz", "{\"a\":2}", "]", "\n", " , ", "}", "nul", " 42", "[1,2"};
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(utf8(object(type, 0)));
            if (chance(0.15)) {
                out.writeBytes(new byte[] {' ', (byte) 0xFF, (byte) 0xFE});
            } else {
                out.writeBytes(utf8(tails[r.nextInt(tails.length)]));
            }
            return out.toByteArray();
        }

        private byte[] invalid(RowType type) {
            String good = object(type, 0);
            byte[] bytes = utf8(good);
            switch (r.nextInt(16)) {
                case 0:
                case 1:
                case 2: // truncated
                    return java.util.Arrays.copyOf(bytes, 1 + r.nextInt(Math.max(1, bytes.length - 1)));
                case 3: { // bad UTF-8 at the start of a string value
                    // Not inside keys: Jackson's name table can alias a key holding invalid
                    // UTF-8 to another name depending on the names it has seen before, so
                    // flink-json has no deterministic answer there (docs/parity/json.md;
                    // JsonEdgeCasesParityTest#invalidUtf8KeyAliasesAnEarlierKey pins karrow's).
                    byte[][] bad = {{(byte) 0xFF}, {(byte) 0xC3, 'a'}, {(byte) 0xC0, (byte) 0x80},
                            {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0x80}, {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}};
                    int at = good.indexOf(":\"", r.nextInt(Math.max(1, good.length() - 1)));
                    if (at < 0) {
                        at = good.indexOf(":\"");
                    }
                    if (at < 0) {
                        return withTrailingText(type);
                    }
                    at += 1; // the opening quote of the value
                    byte[] prefix = utf8(good.substring(0, at + 1));
                    byte[] suffix = utf8(good.substring(at + 1));
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    out.writeBytes(prefix);
                    out.writeBytes(bad[r.nextInt(bad.length)]);
                    out.writeBytes(suffix);
                    return out.toByteArray();
                }
                case 4: // top-level scalar
                    return utf8(scalarJunk());
                case 5: { // deep nesting in an extra key (Jackson allows 1000 levels)
                    int depth = chance(0.5) ? 2000 : 990 + r.nextInt(20);
                    String open = chance(0.5) ? "[" : "{\"k\":";
                    String close = open.equals("[") ? "]" : "}";
                    return utf8("{\"deep\":" + open.repeat(depth) + "1" + close.repeat(depth) + ","
                            + good.substring(1));
                }
                case 6:
                    return utf8(good.replaceFirst(":", ":NaN,\"zz\":"));
                case 7:
                    return utf8("{\"x\":007," + good.substring(1));
                case 8:
                    return utf8(good.replace('"', '\''));
                case 9:
                    return utf8(good.length() > 2 ? good.substring(0, good.length() - 1) + ",}" : "{,}");
                case 10:
                    return utf8("/* c */" + good);
                case 11:
                    return utf8(good.substring(0, good.length() - 1) + ",\"u\":\"unterminated}");
                case 12:
                    return utf8("{unquoted:1," + good.substring(1));
                case 13:
                    return utf8("{\"e\":\"bad \\x escape\"," + good.substring(1));
                case 14:
                    return utf8("{\"n\":1" + "0".repeat(1000 + r.nextInt(10)) + "," + good.substring(1));
                default:
                    return utf8("[" + good + "," + good.substring(0, good.length() / 2));
            }
        }

        /** A scalar that is no object. */
        private String scalarJunk() {
            String[] s = {"42", "\"x\"", "true", "-1.5e3", "\"{}\""};
            return s[r.nextInt(s.length)];
        }

        /** JSON whitespace, usually none. */
        private String ws(boolean nonEmpty) {
            if (!nonEmpty && !chance(0.08)) {
                return "";
            }
            String[] w = {" ", "\n", "\t", "\r\n", "  "};
            StringBuilder s = new StringBuilder(w[r.nextInt(w.length)]);
            while (chance(0.2)) {
                s.append(w[r.nextInt(w.length)]);
            }
            return s.toString();
        }

        /** An object for {@code type} with the key-level variations. */
        String object(RowType type, int depth) {
            List<String> members = new ArrayList<>();
            List<String> names = type.getFieldNames();
            for (int i = 0; i < names.size(); i++) {
                if (chance(0.015)) {
                    continue; // missing key
                }
                String key = keyText(names.get(i));
                if (chance(0.003)) {
                    key = quote(names.get(i).toUpperCase()); // case-different key: an extra key, the field is missing
                }
                members.add(key + ws(false) + ":" + ws(false) + value(type.getTypeAt(i), depth + 1));
            }
            if (chance(0.2)) {
                Collections.shuffle(members, r);
            }
            if (chance(0.04)) {
                int n = 1 + r.nextInt(2);
                for (int i = 0; i < n; i++) {
                    members.add(r.nextInt(members.size() + 1), quote("x_" + r.nextInt(100)) + ":" + junk(depth + 1));
                }
            }
            if (chance(0.015) && !names.isEmpty()) {
                int f = r.nextInt(names.size());
                String dup = keyText(names.get(f)) + ":" + value(type.getTypeAt(f), depth + 1);
                members.add(r.nextInt(members.size() + 1), dup);
            }
            StringBuilder s = new StringBuilder("{").append(ws(false));
            for (int i = 0; i < members.size(); i++) {
                if (i > 0) {
                    s.append(ws(false)).append(',').append(ws(false));
                }
                s.append(members.get(i));
            }
            return s.append(ws(false)).append('}').toString();
        }

        /** A field name as a JSON key, sometimes spelled with escapes. */
        private String keyText(String name) {
            if (chance(0.02) && !name.isEmpty()) {
                StringBuilder s = new StringBuilder("\"");
                for (char c : name.toCharArray()) {
                    if (chance(0.5)) {
                        s.append(String.format(chance(0.5) ? "\\u%04x" : "\\u%04X", (int) c));
                    } else {
                        s.append(c);
                    }
                }
                return s.append('"').toString();
            }
            return quote(name);
        }

        /** Any JSON value of any shape (extra keys, STRING from containers). */
        private String junk(int depth) {
            int k = r.nextInt(depth > 4 ? 6 : 9);
            switch (k) {
                case 0:
                    return "null";
                case 1:
                    return chance(0.5) ? "true" : "false";
                case 2:
                    return numberText();
                case 3:
                    return numberText();
                case 4:
                    return stringLiteral(text(8));
                case 5:
                    return "\"" + r.nextInt(1000) + "\"";
                case 6: {
                    StringBuilder s = new StringBuilder("[");
                    int n = r.nextInt(4);
                    for (int i = 0; i < n; i++) {
                        s.append(i > 0 ? "," : "").append(junk(depth + 1));
                    }
                    return s.append(']').toString();
                }
                default: {
                    StringBuilder s = new StringBuilder("{");
                    int n = r.nextInt(4);
                    for (int i = 0; i < n; i++) {
                        // duplicate keys inside a junk object: re-serialisation keeps the last
                        s.append(i > 0 ? "," : "").append(quote(chance(0.2) ? "d" : "k" + i)).append(':')
                                .append(junk(depth + 1));
                    }
                    return s.append('}').toString();
                }
            }
        }

        /** A JSON number in one of many spellings. */
        private String numberText() {
            switch (r.nextInt(10)) {
                case 0:
                    return Integer.toString(r.nextInt(2001) - 1000);
                case 1:
                    return Long.toString(r.nextLong());
                case 2:
                    return "1.50";
                case 3:
                    return "1e3";
                case 4:
                    return Double.toString(r.nextGaussian() * Math.pow(10, r.nextInt(30) - 15));
                case 5:
                    return "-0";
                case 6:
                    return "-0.0";
                case 7:
                    return "2.50E+2";
                case 8:
                    return new BigInteger(80, r).toString();
                default:
                    return BigDecimal.valueOf(r.nextInt(100000), r.nextInt(6)).toPlainString();
            }
        }

        /** One value for {@code type}: usually valid, sometimes null, rarely of the wrong kind. */
        String value(LogicalType type, int depth) {
            if (chance(0.06)) {
                return "null";
            }
            if (chance(0.001)) {
                return wrongKind(type, depth);
            }
            switch (type.getTypeRoot()) {
                case BOOLEAN:
                    return booleanText();
                case TINYINT:
                    return integerText(Byte.MIN_VALUE, Byte.MAX_VALUE, false);
                case SMALLINT:
                    return integerText(Short.MIN_VALUE, Short.MAX_VALUE, false);
                case INTEGER:
                case INTERVAL_YEAR_MONTH:
                    return integerText(Integer.MIN_VALUE, Integer.MAX_VALUE, true);
                case BIGINT:
                case INTERVAL_DAY_TIME:
                    return integerText(Long.MIN_VALUE, Long.MAX_VALUE, true);
                case FLOAT:
                    return floatingText(true);
                case DOUBLE:
                    return floatingText(false);
                case DECIMAL:
                    return decimalText((DecimalType) type);
                case CHAR:
                case VARCHAR:
                    return stringValue(depth);
                case BINARY:
                case VARBINARY:
                    return bytesText();
                case DATE:
                    return dateText();
                case TIME_WITHOUT_TIME_ZONE:
                    return timeText();
                case TIMESTAMP_WITHOUT_TIME_ZONE:
                    return timestampText(false);
                case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                    return timestampText(true);
                case ARRAY:
                    return arrayText(((ArrayType) type).getElementType(), depth);
                case MAP:
                    return mapText(((MapType) type).getValueType(), depth);
                case MULTISET:
                    return multisetText();
                case ROW:
                    return object((RowType) type, depth);
                default:
                    throw new IllegalArgumentException("no generator for " + type);
            }
        }

        /** A value of a kind the type does not accept (usually an error, NULL with ignore-parse-errors). */
        private String wrongKind(LogicalType type, int depth) {
            switch (type.getTypeRoot()) {
                case ARRAY:
                    return chance(0.5) ? "{\"x\":1}" : "\"[1]\"";
                case MAP:
                case MULTISET:
                case ROW:
                    return chance(0.5) ? "[1,2]" : "\"{}\"";
                case CHAR:
                case VARCHAR:
                case BOOLEAN:
                    // every token is accepted; containers are the interesting case
                    return chance(0.5) ? "[true]" : "{\"b\":false}";
                default:
                    String[] w = {"\"abc\"", "true", "[1]", "{\"x\":1}", "\"\"", "\" \"", "{}", "[]"};
                    return w[r.nextInt(w.length)];
            }
        }

        private String booleanText() {
            double k = r.nextDouble();
            if (k < 0.85) {
                return r.nextBoolean() ? "true" : "false";
            }
            String[] odd = {"\"true\"", "\"TRUE\"", "\" True \"", "\"false\"", "\"yes\"", "1", "0", "\"1\"", "1.5",
                    "\"t\"", "\"\"", "-0", "\"tRuE\"", "\"\\ttrue\\n\""};
            return odd[r.nextInt(odd.length)];
        }

        /** An integer of the range; INT/BIGINT also accept floats (truncated). */
        private String integerText(long min, long max, boolean acceptsFloats) {
            double k = r.nextDouble();
            long v;
            double shape = r.nextDouble();
            if (shape < 0.4) {
                v = r.nextInt(201) - 100;
            } else if (shape < 0.5) {
                v = r.nextBoolean() ? min : max;
            } else {
                v = min + (long) (r.nextDouble() * ((double) max - (double) min));
            }
            if (k < 0.84) {
                return Long.toString(v);
            }
            if (k < 0.92) {
                String[] pads = {"", " ", "  ", "\\t", "\\n"};
                String sign = v >= 0 && chance(0.1) ? "+" : "";
                return "\"" + pads[r.nextInt(pads.length)] + sign + v + pads[r.nextInt(pads.length)] + "\"";
            }
            if (k < 0.996) {
                // floats: truncated toward zero for INT/BIGINT, an error for TINYINT/SMALLINT
                String[] f = {v + ".9", v + ".0", "1e2", "1.5E1", "-3.99", "0.5", v / 10 + "e1", "12.7", "-0.0", "1E-2"};
                String s = f[r.nextInt(f.length)];
                if (!acceptsFloats && !chance(0.03)) {
                    return Long.toString(v);
                }
                return s;
            }
            if (k < 0.998) {
                // around and past the range: errors
                BigInteger b = BigInteger.valueOf(r.nextBoolean() ? max : min);
                BigInteger off = BigInteger.valueOf(r.nextInt(3));
                b = b.signum() >= 0 ? b.add(off) : b.subtract(off);
                return chance(0.7) ? b.toString() : "\"" + b + "\"";
            }
            if (acceptsFloats && chance(0.5)) {
                // floats near the range ends (the int/long conversion checks the range on the double)
                String[] f = {"2147483647.5", "-2147483648.9", "2.147483647E9", "2.1474836E9", "9.2233720368547758E18",
                        "-9.223372036854775808E18", "9.3E18", "1e10", "4294967296.0"};
                return f[r.nextInt(f.length)];
            }
            String[] bad = {"\"1.5\"", "\"0x10\"", "\"12a\"", "\"\"", "\"1e2\"", "\"- 1\"", "true", "\"١٢\""};
            return bad[r.nextInt(bad.length)];
        }

        private String floatingText(boolean isFloat) {
            double k = r.nextDouble();
            if (k < 0.35) {
                double d = randomDouble();
                if (!Double.isFinite(d)) {
                    d = 1.5; // a bare NaN / Infinity token is a syntax error (invalid messages have those)
                }
                return isFloat && Float.isFinite((float) d) ? Float.toString((float) d) : Double.toString(d);
            }
            if (k < 0.55) {
                // plain decimals with a few digits
                return BigDecimal.valueOf(r.nextInt(2_000_001) - 1_000_000, r.nextInt(8)).toString();
            }
            if (k < 0.65) {
                // long digit strings: correct rounding, float vs double-then-float (parser vs tree)
                StringBuilder s = new StringBuilder(r.nextBoolean() ? "-" : "");
                s.append(1 + r.nextInt(9)).append('.');
                int digits = 8 + r.nextInt(22);
                for (int i = 0; i < digits; i++) {
                    s.append(r.nextInt(10));
                }
                if (chance(0.5)) {
                    s.append(chance(0.5) ? 'e' : 'E').append(r.nextInt(80) - 40);
                }
                return s.toString();
            }
            if (k < 0.72) {
                // near float midpoints: a float's value plus or minus a hair
                float f = (float) randomDouble();
                if (!Float.isFinite(f)) {
                    f = 1.0f;
                }
                BigDecimal mid = new BigDecimal(f).add(new BigDecimal(Math.ulp(f)).divide(BigDecimal.valueOf(2)));
                BigDecimal hair = new BigDecimal(BigInteger.ONE, 40 + r.nextInt(20));
                BigDecimal v = r.nextBoolean() ? mid.add(hair) : (r.nextBoolean() ? mid.subtract(hair) : mid);
                return v.toString();
            }
            if (k < 0.80) {
                String[] e = {"1e3", "1E+3", "1.5e-7", "-0.0", "0", "-0", "1e400", "-1e400", "1e-400", "4.9e-324",
                        "3.4028235e38", "3.4028236e38", "1.17549435E-38", "1.4e-45", "7e-46", "2.2250738585072014E-308",
                        "1.7976931348623157e308", "1.7976931348623159e308", "123456789", "9007199254740993",
                        "100000000000000000000000", "0.1", "1E1", "1.0e+0"};
                return e[r.nextInt(e.length)];
            }
            if (k < 0.86) {
                String[] s = {"\"NaN\"", "\"Infinity\"", "\"-Infinity\"", "\" 1.5 \"", "\"1.5d\"", "\"1.5f\"", "\"0x1p3\"",
                        "\"1e3\"", "\".5\"", "\"5.\"", "\"+1.5\"", "\"-0\"", "\"1_0\"", "\"0x1.8p1\"", "\"\\t2.5\\n\"",
                        "\"" + Double.toString(randomDouble()) + "\"", "\"1.00000017881393432617187499\"", "\"1.5D\"",
                        "\"Infinityx\"", "\"+NaN\"", "\"-NaN\""};
                return s[r.nextInt(s.length)];
            }
            if (k < 0.998) {
                return Long.toString(r.nextLong() >> r.nextInt(64));
            }
            String[] bad = {"\"abc\"", "true", "\"\"", "\"1,5\"", "\"inf\"", "\"nan\""};
            return bad[r.nextInt(bad.length)];
        }

        private double randomDouble() {
            double k = r.nextDouble();
            if (k < 0.3) {
                return Double.longBitsToDouble(r.nextLong());
            }
            if (k < 0.7) {
                return r.nextGaussian() * Math.pow(10, r.nextInt(40) - 20);
            }
            return (r.nextInt(2_000_001) - 1_000_000) / Math.pow(10, r.nextInt(9));
        }

        private String decimalText(DecimalType type) {
            int p = type.getPrecision();
            int s = type.getScale();
            double k = r.nextDouble();
            // digits: usually fitting, sometimes more fraction digits (HALF_UP), sometimes overflowing (NULL)
            int intDigits = Math.max(0, p - s);
            int useInt = chance(0.06) ? intDigits + 1 + r.nextInt(3) : r.nextInt(intDigits + 1);
            int useFrac = chance(0.2) ? s + 1 + r.nextInt(4) : r.nextInt(s + 1);
            BigDecimal v = randomDecimal(useInt, useFrac);
            if (chance(0.03)) {
                // exactly at a HALF_UP boundary
                v = new BigDecimal(randomDecimal(Math.min(useInt, intDigits), s).toPlainString() + "5");
            }
            if (chance(0.01)) {
                v = new BigDecimal("9".repeat(Math.max(1, intDigits)) + "." + "9".repeat(s + 1)); // rounds up past p
            }
            if (r.nextBoolean()) {
                v = v.negate();
            }
            if (k < 0.55) {
                return v.toPlainString();
            }
            if (k < 0.70) {
                return v.toString(); // scientific when the exponent is small
            }
            if (k < 0.78) {
                // explicit exponent
                BigDecimal unscaled = new BigDecimal(v.unscaledValue());
                return unscaled + (chance(0.5) ? "e" : "E") + (chance(0.3) ? "-" : (chance(0.5) ? "+" : "-")) + v.scale();
            }
            if (k < 0.92) {
                String[] pads = chance(0.97) ? new String[] {""} : new String[] {"", " ", "\\t"};
                return "\"" + pads[r.nextInt(pads.length)] + (chance(0.8) ? v.toPlainString() : v.toString())
                        + pads[r.nextInt(pads.length)] + "\"";
            }
            if (k < 0.995) {
                String[] e = {"0", "-0", "0.000", "1e-30", "\"1e2\"", "12", "1.005", "-1.005", "1.115", "999.999",
                        "12345.6", "0.5", "-0.5", "0.05", "\"+7\"", "\".5\""};
                return e[r.nextInt(e.length)];
            }
            String[] bad = {"\"abc\"", "true", "\"NaN\"", "\"\"", "\"1.2.3\"", "\"Infinity\""};
            return bad[r.nextInt(bad.length)];
        }

        private BigDecimal randomDecimal(int intDigits, int fracDigits) {
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < intDigits; i++) {
                s.append(i == 0 ? 1 + r.nextInt(9) : r.nextInt(10));
            }
            if (s.length() == 0) {
                s.append('0');
            }
            if (fracDigits > 0) {
                s.append('.');
                for (int i = 0; i < fracDigits; i++) {
                    s.append(r.nextInt(10));
                }
            }
            return new BigDecimal(s.toString());
        }

        private String stringValue(int depth) {
            double k = r.nextDouble();
            if (k < 0.80) {
                return stringLiteral(text(r.nextInt(6) == 0 ? 40 : 12));
            }
            if (k < 0.90) {
                return numberText(); // P keeps the literal text, T Jackson's rendering
            }
            if (k < 0.93) {
                return r.nextBoolean() ? "true" : "false";
            }
            return junk(depth + 3); // objects/arrays: re-serialised compactly
        }

        /** Random text with everything a JSON string can carry. */
        String text(int maxLength) {
            int n = r.nextInt(maxLength + 1);
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < n; i++) {
                double k = r.nextDouble();
                if (k < 0.70) {
                    s.append((char) ('a' + r.nextInt(26)));
                } else if (k < 0.78) {
                    s.append(pick(" -_./:0123456789"));
                } else if (k < 0.84) {
                    s.append(pick(DECODE_BMP));
                } else if (k < 0.88) {
                    s.appendCodePoint(0x1F600 + r.nextInt(80)); // outside the BMP
                } else if (k < 0.94) {
                    s.append(pick("\"\\/\b\f\n\r\t"));
                } else {
                    s.append((char) r.nextInt(0x20)); // control characters
                }
            }
            return s.toString();
        }

        /**
         * A JSON string literal for {@code text}: control characters sometimes raw (Flink's parser
         * allows them), characters sometimes as {@code \\u} escapes (non-BMP ones as escaped
         * surrogate pairs), rarely a lone escaped surrogate.
         */
        String stringLiteral(String text) {
            StringBuilder s = new StringBuilder("\"");
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                boolean escapeAll = chance(0.05);
                if (c == '"' || c == '\\') {
                    s.append('\\').append(c);
                } else if (c == '/' && chance(0.3)) {
                    s.append("\\/");
                } else if (c < 0x20) {
                    if (chance(0.2)) {
                        s.append(c); // raw control character (ALLOW_UNESCAPED_CONTROL_CHARS)
                    } else {
                        switch (c) {
                            case '\b': s.append("\\b"); break;
                            case '\f': s.append("\\f"); break;
                            case '\n': s.append("\\n"); break;
                            case '\r': s.append("\\r"); break;
                            case '\t': s.append("\\t"); break;
                            default: s.append(String.format("\\u%04x", (int) c));
                        }
                    }
                } else if (escapeAll) {
                    String hex = chance(0.5) ? "\\u%04X" : "\\u%04x";
                    s.append(String.format(hex, (int) c));
                    if (Character.isHighSurrogate(c) && i + 1 < text.length()) {
                        s.append(String.format(hex, (int) text.charAt(++i))); // the pair stays a pair
                    }
                } else if (Character.isHighSurrogate(c) && i + 1 < text.length()) {
                    s.append(c).append(text.charAt(++i));
                } else {
                    s.append(c);
                }
            }
            if (chance(0.004)) {
                s.append(chance(0.5) ? "\\ud800" : "\\uDC00x"); // lone surrogate: Flink stores '?'
            }
            return s.append('"').toString();
        }

        private String bytesText() {
            byte[] b = new byte[r.nextInt(r.nextInt(8) == 0 ? 120 : 12)];
            r.nextBytes(b);
            String s = Base64.getEncoder().encodeToString(b);
            double k = r.nextDouble();
            if (k < 0.85) {
                return "\"" + s + "\"";
            }
            if (k < 0.92) {
                // line breaks and spaces inside (tolerated by Jackson's MIME-NO-LINEFEEDS variant?)
                StringBuilder t = new StringBuilder();
                String[] breaks = {"\\n", "\\r\\n", " ", "\\t"};
                for (int i = 0; i < s.length(); i++) {
                    t.append(s.charAt(i));
                    // between 4-character quanta Jackson skips whitespace; inside one it is an error
                    if (i % 4 == 3 ? chance(0.15) : chance(0.002)) {
                        t.append(breaks[r.nextInt(breaks.length)]);
                    }
                }
                return "\"" + t + "\"";
            }
            if (k < 0.997) {
                return "\"\"";
            }
            String[] bad = {"\"AAEC/w\"", "\"AA-_\"", "\"@@@@\"", "12", "true", "\"AAE=C\"", "\"A===\"", "\"AAECAw==AA\""};
            String stripped = s.replace("=", "");
            return chance(0.3) && !stripped.equals(s) ? "\"" + stripped + "\"" : bad[r.nextInt(bad.length)];
        }

        private LocalDate randomDate() {
            double k = r.nextDouble();
            long day;
            if (k < 0.8) {
                day = LocalDate.of(1900, 1, 1).toEpochDay() + r.nextInt(200 * 366);
            } else {
                day = LocalDate.of(1, 1, 1).toEpochDay()
                        + (long) (r.nextDouble() * (LocalDate.of(9999, 12, 31).toEpochDay() - LocalDate.of(1, 1, 1).toEpochDay()));
            }
            return LocalDate.ofEpochDay(day);
        }

        private String dateText() {
            double k = r.nextDouble();
            if (k < 0.992) {
                return "\"" + randomDate() + "\"";
            }
            String[] e = {"\"2021-02-29\"", "\"2020-02-29\"", "\"2020-1-01\"", "\"2020-01-01T00:00:00\"", "20200101",
                    "\"2020-13-01\"", "\"2020-04-31\"", "\"0000-01-01\"", "\"+10000-01-01\"", "\"-0001-12-31\"",
                    "\"9999-12-31\"", "\"2020-01-01 \"", "\" 2020-01-01\"", "\"2020/01/01\"", "\"1970-01-01\""};
            return e[r.nextInt(e.length)];
        }

        private String fraction(int digits) {
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < digits; i++) {
                s.append(r.nextInt(10));
            }
            return s.toString();
        }

        private String timeText() {
            double k = r.nextDouble();
            String hms = String.format("%02d:%02d:%02d", r.nextInt(24), r.nextInt(60), r.nextInt(60));
            if (k < 0.6) {
                return "\"" + hms + "\"";
            }
            if (k < 0.993) {
                return "\"" + hms + "." + fraction(1 + r.nextInt(9)) + "\"";
            }
            String[] e = {"\"24:00:00\"", "\"12:34\"", "\"12:34:56.1234567890\"", "\"25:00:00\"", "\"12:60:00\"",
                    "\"12:34:60\"", "\"1:02:03\"", "\"12:34:56.\"", "43200000", "\"12:34:56Z\"", "\"T12:34:56\"",
                    "\"00:00:00.000000000\"", "\"23:59:59.999999999\""};
            return e[r.nextInt(e.length)];
        }

        private String timestampText(boolean ltz) {
            LocalDate date = randomDate();
            String dateText = date.toString();
            double k = r.nextDouble();
            if (k < 0.008) {
                // an impossible day: SQL clamps it, ISO-8601 rejects it
                int[] days = {29, 30, 31};
                int month = r.nextBoolean() ? 2 : new int[] {4, 6, 9, 11}[r.nextInt(4)];
                int day = month == 2 ? days[r.nextInt(3)] : 31;
                dateText = String.format("%04d-%02d-%02d", 1 + r.nextInt(2999), month, day);
            }
            String hm = String.format("%02d:%02d", r.nextInt(24), r.nextInt(60));
            String sec = String.format(":%02d", r.nextInt(60));
            int fractionDigits = chance(0.3) ? 0 : 1 + r.nextInt(9);
            String frac = fractionDigits == 0 ? "" : "." + fraction(fractionDigits);
            String z = ltz ? "Z" : "";
            boolean sql = standard == Standard.SQL;
            if (chance(0.002)) {
                sql = !sql; // the other grammar: an error
            }
            String text;
            if (sql) {
                text = dateText + " " + hm + sec + frac + z;
            } else if (chance(0.1)) {
                text = dateText + "T" + hm + z; // seconds optional in ISO-8601
            } else {
                text = dateText + "T" + hm + sec + frac + z;
            }
            if (chance(0.003)) {
                String[] e = {text.replace("Z", ""), text + (ltz ? "" : "Z"), text + "+01:00", text + " ",
                        "1600000000000", "\"" + text + "\"", text.replace("-", "/"), text.replaceFirst("-\\d\\d-", "-13-"),
                        text.replaceFirst("(\\d\\d\\d\\d-\\d\\d)-\\d\\d", "$1-32"), text.replaceFirst("[ T]\\d\\d", sql ? " 24" : "T24"),
                        "+10000-01-01" + text.substring(text.indexOf(sql ? ' ' : 'T')), text + ".",
                        text.replace(".", ",")};
                String bad = e[r.nextInt(e.length)];
                return bad.matches("-?\\d+") ? bad : stringLiteral(bad);
            }
            return "\"" + text + "\"";
        }

        private String arrayText(LogicalType element, int depth) {
            int n = r.nextInt(depth > 3 ? 3 : 6);
            StringBuilder s = new StringBuilder("[").append(ws(false));
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    s.append(',').append(ws(false));
                }
                s.append(value(element, depth + 1));
            }
            return s.append(ws(false)).append(']').toString();
        }

        private String mapText(LogicalType valueType, int depth) {
            int n = r.nextInt(depth > 3 ? 3 : 5);
            StringBuilder s = new StringBuilder("{");
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String key = chance(0.2) && !keys.isEmpty() ? keys.get(r.nextInt(keys.size())) // duplicate: last wins
                        : (chance(0.05) ? "" : text(6));
                keys.add(key);
                if (i > 0) {
                    s.append(',').append(ws(false));
                }
                s.append(stringLiteral(key)).append(':').append(ws(false)).append(value(valueType, depth + 1));
            }
            return s.append('}').toString();
        }

        private String multisetText() {
            int n = r.nextInt(5);
            StringBuilder s = new StringBuilder("{");
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    s.append(',');
                }
                String count;
                double k = r.nextDouble();
                if (k < 0.8) {
                    count = Integer.toString(1 + r.nextInt(5));
                } else if (k < 0.9) {
                    count = "\"" + (1 + r.nextInt(5)) + "\"";
                } else if (k < 0.95) {
                    count = "2.7";
                } else {
                    count = "0";
                }
                s.append(stringLiteral(chance(0.3) ? "k" + r.nextInt(3) : text(5))).append(':').append(count);
            }
            return s.append('}').toString();
        }
    }

    /** Non-ASCII BMP characters of the messages (raw UTF-8 of 2 and 3 bytes, U+2028, NBSP, DEL). */
    private static final String DECODE_BMP = "éüßñ€中文Ωж\u2028\u00a0\u007f";
    /** Non-ASCII BMP characters of the rows (also U+0080, BOM and U+FFFF). */
    private static final String ENCODE_BMP = "éüßñ€中文Ωж\u2028\u2029\u00a0\u007f\u0080\ufeff\uffff";

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    // ------------------------------------------------------------------------------------------
    // Rows for the encoder
    // ------------------------------------------------------------------------------------------

    /** Generates internal rows whose values fit their declared types (as SQL operators produce them). */
    static final class RowGenerator {
        private final Random r;

        RowGenerator(Random r) {
            this.r = r;
        }

        private boolean chance(double p) {
            return r.nextDouble() < p;
        }

        private char pick(String chars) {
            return chars.charAt(r.nextInt(chars.length()));
        }

        GenericRowData row(RowType type, int depth, boolean topLevel) {
            GenericRowData row = new GenericRowData(type.getFieldCount());
            for (int i = 0; i < type.getFieldCount(); i++) {
                LogicalType t = type.getTypeAt(i);
                row.setField(i, t.isNullable() && chance(0.1) ? null : value(t, depth + 1));
            }
            return row;
        }

        Object value(LogicalType type, int depth) {
            switch (type.getTypeRoot()) {
                case BOOLEAN:
                    return r.nextBoolean();
                case TINYINT:
                    return (byte) r.nextInt();
                case SMALLINT:
                    return (short) r.nextInt();
                case INTEGER:
                case INTERVAL_YEAR_MONTH:
                    return chance(0.5) ? r.nextInt(2001) - 1000 : r.nextInt();
                case BIGINT:
                case INTERVAL_DAY_TIME:
                    return chance(0.5) ? (long) r.nextInt(2001) - 1000 : r.nextLong();
                case FLOAT:
                    return (float) anyDouble(true);
                case DOUBLE:
                    return anyDouble(false);
                case DECIMAL: {
                    DecimalType d = (DecimalType) type;
                    int digits = r.nextInt(d.getPrecision() + 1);
                    BigInteger unscaled = digits == 0 ? BigInteger.ZERO
                            : new BigInteger(1 + (int) Math.ceil(digits * 3.33), r).mod(BigInteger.TEN.pow(digits));
                    if (chance(0.2) && digits > 2) {
                        unscaled = unscaled.divide(BigInteger.valueOf(1000)).multiply(BigInteger.valueOf(1000)); // trailing zeros
                    }
                    if (r.nextBoolean()) {
                        unscaled = unscaled.negate();
                    }
                    return DecimalData.fromBigDecimal(new BigDecimal(unscaled, d.getScale()), d.getPrecision(), d.getScale());
                }
                case CHAR:
                case VARCHAR:
                    return StringData.fromString(text(chance(0.1) ? 60 : 12));
                case BINARY:
                case VARBINARY: {
                    byte[] b = new byte[r.nextInt(chance(0.1) ? 100 : 10)];
                    r.nextBytes(b);
                    return b;
                }
                case DATE:
                    return chance(0.02) ? (r.nextBoolean() ? -719528 : 2932896) // 0000-01-01, 9999-12-31
                            : (int) (LocalDate.of(1, 1, 1).toEpochDay() + r.nextInt(3_652_059));
                case TIME_WITHOUT_TIME_ZONE: {
                    int millis = r.nextInt(86_400_000);
                    return ((org.apache.flink.table.types.logical.TimeType) type).getPrecision() == 0 ? millis / 1000 * 1000 : millis;
                }
                case TIMESTAMP_WITHOUT_TIME_ZONE:
                    return timestamp(((TimestampType) type).getPrecision());
                case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                    return timestamp(((LocalZonedTimestampType) type).getPrecision());
                case ARRAY: {
                    LogicalType e = ((ArrayType) type).getElementType();
                    Object[] items = new Object[r.nextInt(depth > 3 ? 3 : 6)];
                    for (int i = 0; i < items.length; i++) {
                        items[i] = e.isNullable() && chance(0.1) ? null : value(e, depth + 1);
                    }
                    return new GenericArrayData(items);
                }
                case MAP: {
                    MapType m = (MapType) type;
                    Map<Object, Object> entries = new HashMap<>();
                    int n = r.nextInt(depth > 3 ? 3 : 5);
                    for (int i = 0; i < n; i++) {
                        Object key = m.getKeyType().isNullable() && chance(0.006) ? null
                                : StringData.fromString(chance(0.3) ? "k" + r.nextInt(10) : text(6));
                        entries.put(key, m.getValueType().isNullable() && chance(0.1) ? null : value(m.getValueType(), depth + 1));
                    }
                    return new GenericMapData(entries);
                }
                case MULTISET: {
                    Map<Object, Object> entries = new HashMap<>();
                    int n = r.nextInt(5);
                    for (int i = 0; i < n; i++) {
                        entries.put(chance(0.006) ? null : StringData.fromString(text(5)), 1 + r.nextInt(4));
                    }
                    return new GenericMapData(entries);
                }
                case ROW:
                    return row((RowType) type, depth, false);
                default:
                    throw new IllegalArgumentException("no generator for " + type);
            }
        }

        private TimestampData timestamp(int precision) {
            long second;
            if (chance(0.02)) {
                second = r.nextBoolean() ? LocalDateTime.of(0, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC)
                        : LocalDateTime.of(9999, 12, 31, 23, 59, 59).toEpochSecond(ZoneOffset.UTC);
            } else {
                long min = LocalDateTime.of(1, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC);
                long max = LocalDateTime.of(9999, 12, 31, 23, 59, 59).toEpochSecond(ZoneOffset.UTC);
                second = chance(0.7) ? 1_500_000_000L + r.nextInt(500_000_000) : min + (long) (r.nextDouble() * (max - min));
            }
            int nanos = chance(0.3) ? 0 : r.nextInt(1_000_000_000);
            if (chance(0.2)) {
                nanos = nanos / 1_000_000 * 1_000_000; // trailing zeros in the fraction
            }
            // the value a column of this precision holds (what SQL operators produce)
            int keep = (int) Math.pow(10, 9 - Math.min(9, precision));
            nanos = nanos / keep * keep;
            return TimestampData.fromEpochMillis(second * 1000 + nanos / 1_000_000, nanos % 1_000_000);
        }

        private double anyDouble(boolean isFloat) {
            double k = r.nextDouble();
            if (k < 0.03) {
                double[] special = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, 0.0,
                        Double.MIN_VALUE, Double.MAX_VALUE, 1e7, 9999999.0, 1e-3, 0.001, 1e-5, 1e10, 1e-4, 123456789};
                return special[r.nextInt(special.length)];
            }
            if (k < 0.4) {
                return isFloat ? Float.intBitsToFloat(r.nextInt()) : Double.longBitsToDouble(r.nextLong());
            }
            if (k < 0.7) {
                return r.nextGaussian() * Math.pow(10, r.nextInt(30) - 15);
            }
            return (r.nextInt(2_000_001) - 1_000_000) / Math.pow(10, r.nextInt(9));
        }

        private String text(int maxLength) {
            int n = r.nextInt(maxLength + 1);
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < n; i++) {
                double k = r.nextDouble();
                if (k < 0.75) {
                    s.append((char) ('a' + r.nextInt(26)));
                } else if (k < 0.82) {
                    s.append(pick(" -_./:<>&'0123456789"));
                } else if (k < 0.88) {
                    s.append(pick(ENCODE_BMP));
                } else if (k < 0.92) {
                    s.appendCodePoint(0x1F600 + r.nextInt(80)); // outside the BMP
                } else if (k < 0.96) {
                    s.append(pick("\"\\/\b\f\n\r\t"));
                } else {
                    s.append((char) r.nextInt(0x20));
                }
            }
            return s.toString();
        }
    }
}

package io.karrow.flink.formats.json;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The one tolerated difference between flink-json's bytes and json-native's: JVM noise in the digits
 * of FLOAT and DOUBLE values.
 *
 * <p>flink-json writes FLOAT/DOUBLE with {@code Float.toString} / {@code Double.toString} of the JVM
 * it runs on. Before JDK 19 those methods do not always produce the shortest decimal that rounds
 * to the value (JDK-4511638, fixed in JDK 19): on Java 17 {@code 2.0E23} prints as {@code
 * 1.9999999999999998E23} and {@code 8.41E21} as {@code 8.409999999999999E21} (same double, more
 * digits). karrow writes the shortest digits (JDK 19+), which is what flink-json prints on a current
 * JVM.
 *
 * <p>The old algorithm has two symptoms, both seen in the encode corpora: more digits than needed
 * ({@code 1.9999999999999998E23} for {@code 2.0E23}), and, at the same length, a last digit that is
 * not the closest one ({@code Float.toString} of the float nearest 9.5863786E24, exactly
 * 9586378595952278433169408, is {@code 9.5863785E24} on Java 17 and {@code 9.5863786E24} on Java 19+).
 *
 * <p>This class never loosens the comparison in general. It is consulted only when the two byte
 * arrays differ, and it accepts the difference only if, token by token, every differing token is a
 * JSON number for which all of these hold: it parses to exactly the same double as the oracle's text
 * (or, for a FLOAT, the same float); this JVM's {@code Double.toString} (or {@code Float.toString})
 * of that value is exactly the oracle's text (so the oracle's text is the old algorithm's rendering
 * of the very value native wrote); and native's text is either strictly shorter, or as long and
 * strictly closer to the exact binary value. Every other token must be byte-identical. Accepted
 * cases are counted so the test output reports them.
 */
final class JdkDoubleToStringNoise {

    private int acceptedValues;
    private int acceptedTokens;
    private String firstExample;

    /** Number of outputs accepted as noise. */
    int acceptedValues() {
        return acceptedValues;
    }

    /** Number of number tokens accepted as noise. */
    int acceptedTokens() {
        return acceptedTokens;
    }

    /** One accepted example (oracle vs native token), or null. */
    String firstExample() {
        return firstExample;
    }

    /**
     * Returns null when {@code actual} differs from {@code expected} only by JDK Double.toString
     * noise (and counts it), else a description of the first unexplained difference. Must only be
     * called for arrays that differ.
     */
    String explain(byte[] expected, byte[] actual) {
        List<String> e = tokens(expected);
        List<String> a = tokens(actual);
        if (e == null || a == null) {
            return "not tokenizable JSON";
        }
        if (e.size() != a.size()) {
            return "different token count (" + e.size() + " vs " + a.size() + ")";
        }
        int noisy = 0;
        String example = null;
        for (int i = 0; i < e.size(); i++) {
            String x = e.get(i);
            String y = a.get(i);
            if (x.equals(y)) {
                continue;
            }
            if (!isNumber(x) || !isNumber(y)) {
                return "token " + i + ": oracle " + x + " / native " + y;
            }
            if (!isShorterSameValue(x, y)) {
                return "number token " + i + ": oracle " + x + " / native " + y
                        + " (not the same value rendered shorter or, as long, closer)";
            }
            noisy++;
            if (example == null) {
                example = x + " -> " + y;
            }
        }
        if (noisy == 0) {
            return "no token differs, yet the bytes do";
        }
        acceptedValues++;
        acceptedTokens += noisy;
        if (firstExample == null) {
            firstExample = example;
        }
        return null;
    }

    /**
     * Whether native's number text {@code y} renders the value the JVM printed as {@code x} with fewer
     * digits, or with as many digits but closer to the exact value.
     */
    static boolean isShorterSameValue(String x, String y) {
        if (y.length() > x.length()) {
            return false;
        }
        try {
            double dx = Double.parseDouble(x);
            double dy = Double.parseDouble(y);
            if (Double.doubleToRawLongBits(dx) == Double.doubleToRawLongBits(dy) && Double.toString(dy).equals(x)) {
                return y.length() < x.length() || closer(new java.math.BigDecimal(dy), x, y);
            }
            float fx = Float.parseFloat(x);
            float fy = Float.parseFloat(y);
            if (Float.floatToRawIntBits(fx) == Float.floatToRawIntBits(fy) && Float.toString(fy).equals(x)) {
                return y.length() < x.length() || closer(new java.math.BigDecimal(fy), x, y);
            }
            return false;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Whether decimal text {@code y} is strictly closer to {@code exact} than {@code x}. */
    private static boolean closer(java.math.BigDecimal exact, String x, String y) {
        java.math.BigDecimal ex = new java.math.BigDecimal(x).subtract(exact).abs();
        java.math.BigDecimal ey = new java.math.BigDecimal(y).subtract(exact).abs();
        return ey.compareTo(ex) < 0;
    }

    private static boolean isNumber(String token) {
        char c = token.charAt(0);
        return c == '-' || (c >= '0' && c <= '9');
    }

    /** Splits compact JSON into tokens (strings with their quotes and escapes, numbers, literals, punctuation). */
    private static List<String> tokens(byte[] json) {
        String s = new String(json, StandardCharsets.UTF_8);
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            int start = i;
            if (c == '"') {
                i++;
                while (i < s.length() && s.charAt(i) != '"') {
                    i += s.charAt(i) == '\\' ? 2 : 1;
                }
                if (i >= s.length()) {
                    return null;
                }
                i++;
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                while (i < s.length() && "+-.eE0123456789".indexOf(s.charAt(i)) >= 0) {
                    i++;
                }
            } else if (Character.isLetter(c)) {
                while (i < s.length() && Character.isLetter(s.charAt(i))) {
                    i++;
                }
            } else {
                i++;
            }
            out.add(s.substring(start, i));
        }
        return out;
    }
}

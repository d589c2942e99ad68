package io.karrow.flink.formats.avro.corpus;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Random;

/** Deterministic random values with the edge cases a parity corpus needs. */
final class Values {

    private static final int[] EDGE_INTS = {0, 1, -1, 127, 128, -128, -129, 255, 300, 32767, 32768, -32769, 65535,
            Integer.MAX_VALUE, Integer.MIN_VALUE};
    private static final long[] EDGE_LONGS = {0L, 1L, -1L, Integer.MAX_VALUE + 1L, Integer.MIN_VALUE - 1L,
            Long.MAX_VALUE, Long.MIN_VALUE, 1L << 53, -(1L << 53)};
    private static final float[] EDGE_FLOATS = {0f, -0f, 1f, -1.5f, Float.NaN, Float.POSITIVE_INFINITY,
            Float.NEGATIVE_INFINITY, Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE, 1.17549435E-38f};
    private static final double[] EDGE_DOUBLES = {0d, -0d, 1d, -1.5d, Double.NaN, Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE, 0.1d, 1e300};
    private static final String[] EDGE_STRINGS = {"", " ", "a", "héllo wörld", "日本語テキスト", "emoji 😀🎉",
            "tab\tnew\nline", "quote\"back\\slash", "\u0000nul", "Ω≈ç√∫"};

    private Values() {}

    static boolean chance(Random r, int percent) {
        return r.nextInt(100) < percent;
    }

    static int anyInt(Random r) {
        return chance(r, 20) ? EDGE_INTS[r.nextInt(EDGE_INTS.length)] : r.nextInt();
    }

    static int smallInt(Random r) {
        return chance(r, 20) ? EDGE_INTS[r.nextInt(EDGE_INTS.length)] : r.nextInt(2000) - 1000;
    }

    static long anyLong(Random r) {
        return chance(r, 20) ? EDGE_LONGS[r.nextInt(EDGE_LONGS.length)] : r.nextLong() >> r.nextInt(60);
    }

    static float anyFloat(Random r) {
        return chance(r, 20) ? EDGE_FLOATS[r.nextInt(EDGE_FLOATS.length)] : (r.nextFloat() - 0.5f) * (float) Math.pow(10, r.nextInt(20) - 10);
    }

    static double anyDouble(Random r) {
        return chance(r, 20) ? EDGE_DOUBLES[r.nextInt(EDGE_DOUBLES.length)] : (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(40) - 20);
    }

    static String anyString(Random r) {
        if (chance(r, 25)) {
            return EDGE_STRINGS[r.nextInt(EDGE_STRINGS.length)];
        }
        int length = chance(r, 2) ? 200 + r.nextInt(2000) : r.nextInt(24);
        StringBuilder s = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            int kind = r.nextInt(20);
            if (kind == 0) {
                s.append((char) (0xC0 + r.nextInt(0x300)));
            } else if (kind == 1) {
                s.appendCodePoint(0x1F600 + r.nextInt(0x40));
            } else {
                s.append((char) ('a' + r.nextInt(26)));
            }
        }
        return s.toString();
    }

    static String word(Random r, String prefix) {
        return prefix + r.nextInt(1000);
    }

    static ByteBuffer anyBytes(Random r) {
        byte[] bytes = new byte[chance(r, 10) ? 0 : r.nextInt(40)];
        r.nextBytes(bytes);
        return ByteBuffer.wrap(bytes);
    }

    /** A random unscaled value with 1..maxDigits decimal digits, either sign. */
    static BigInteger unscaled(Random r, int maxDigits) {
        int digits = 1 + r.nextInt(maxDigits);
        StringBuilder s = new StringBuilder();
        s.append(1 + r.nextInt(9));
        for (int i = 1; i < digits; i++) {
            s.append(r.nextInt(10));
        }
        BigInteger value = new BigInteger(s.toString());
        if (chance(r, 10)) {
            value = BigInteger.ZERO;
        }
        return r.nextBoolean() ? value.negate() : value;
    }

    /** Two's-complement big-endian bytes, sometimes with redundant sign-extension bytes. */
    static ByteBuffer decimalBytes(Random r, BigInteger unscaled) {
        byte[] minimal = unscaled.toByteArray();
        if (!chance(r, 10)) {
            return ByteBuffer.wrap(minimal);
        }
        int pad = 1 + r.nextInt(3);
        byte[] padded = new byte[minimal.length + pad];
        byte sign = (byte) (unscaled.signum() < 0 ? 0xFF : 0x00);
        for (int i = 0; i < pad; i++) {
            padded[i] = sign;
        }
        System.arraycopy(minimal, 0, padded, pad, minimal.length);
        return ByteBuffer.wrap(padded);
    }

    /** Epoch days between year 1 and 9999, with edge values. */
    static int anyDate(Random r) {
        int[] edges = {0, -1, 1, -719162, 2932896, 18262, 11016};
        return chance(r, 15) ? edges[r.nextInt(edges.length)] : r.nextInt(2932896 + 719162) - 719162;
    }

    static int anyTimeMillis(Random r) {
        int[] edges = {0, 1, 999, 1000, 86_399_999, 43_200_000};
        return chance(r, 15) ? edges[r.nextInt(edges.length)] : r.nextInt(86_400_000);
    }

    /** Epoch millis roughly between years 1 and 9999, with edge values. */
    static long anyTimestampMillis(Random r) {
        long[] edges = {0L, -1L, 1L, 999L, -999L, -1000L, -62135596800000L, 253402300799999L, 1700000000123L};
        if (chance(r, 15)) {
            return edges[r.nextInt(edges.length)];
        }
        return (long) ((r.nextDouble() * (253402300799999.0 + 62135596800000.0)) - 62135596800000.0);
    }
}

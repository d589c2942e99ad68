package io.karrow.flink.formats.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/**
 * FLOAT and DOUBLE digits are those of the JVM running the test: {@code Float.toString} / {@code
 * Double.toString} changed in JDK 19 (JDK-4511638), and json-native picks the algorithm from the JVM
 * its encoder opens on. A generated corpus (random bit patterns, boundaries, subnormals, powers of
 * two and ten, integers, values known to print differently before JDK 19) is encoded by flink-json
 * and by json-native; both must be exactly this JVM's {@code toString} text, and the tree decoder's
 * text of a float literal read into a STRING column must be flink-json's. No tolerance: bytes are
 * compared as they are. Runs on whatever JVM Maven's surefire uses ({@code make test-java-jvms}
 * runs it on the other installed JVMs too).
 */
class JavaFloatTextParityTest {

    private static final int VALUES = Integer.getInteger("karrow.float-text.values", 30_000);
    private static final int FEATURE = Runtime.version().feature();

    @Test
    void theFeatureVersionNamesTheAlgorithmThisJvmRuns() {
        // The one value probe: 2.0E23 is printed with 17 digits before JDK 19.
        boolean shortest = Double.toString(2.0E23).equals("2.0E23");
        assertThat(shortest).as("JDK %d prints 2.0E23 as %s", FEATURE, Double.toString(2.0E23)).isEqualTo(FEATURE >= 19);
        assertThat(Float.toString(123456789f)).isEqualTo(FEATURE >= 19 ? "1.2345679E8" : "1.23456792E8");
    }

    @Test
    void floatsAndDoublesEncodeAsThisJvmPrintsThem() throws Exception {
        RowType rowType = new RowType(List.of(new RowType.RowField("f", new FloatType()), new RowType.RowField("d", new DoubleType())));
        float[] floats = floats();
        double[] doubles = doubles();
        SerializationSchema<RowData> oracle = JsonParityHarness.encoder(JsonParityHarness.ORACLE, rowType, Map.of());
        SerializationSchema<RowData> nat = JsonParityHarness.encoder(JsonParityHarness.NATIVE, rowType, Map.of());
        List<String> problems = new ArrayList<>();
        int n = Math.max(floats.length, doubles.length);
        try {
            for (int i = 0; i < n; i++) {
                float f = floats[i % floats.length];
                double d = doubles[i % doubles.length];
                GenericRowData row = GenericRowData.of(f, d);
                String expected = "{\"f\":" + text(Float.isFinite(f), Float.toString(f)) + ",\"d\":"
                        + text(Double.isFinite(d), Double.toString(d)) + "}";
                String o = new String(oracle.serialize(row), StandardCharsets.UTF_8);
                String k = new String(nat.serialize(row), StandardCharsets.UTF_8);
                if (!o.equals(expected) || !k.equals(o)) {
                    problems.add("float bits " + Integer.toHexString(Float.floatToRawIntBits(f)) + ", double bits "
                            + Long.toHexString(Double.doubleToRawLongBits(d)) + ": toString " + expected
                            + ", flink-json " + o + ", json-native " + k);
                }
            }
        } finally {
            JsonParityHarness.closeQuietly(nat);
        }
        System.out.printf("float text parity (Java %d): %d rows, %d problems%n", FEATURE, n, problems.size());
        assertThat(problems).as("FLOAT/DOUBLE texts that differ on Java %d", FEATURE).isEmpty();
    }

    @Test
    void treeDecoderPrintsFloatLiteralsAsThisJvm() throws Exception {
        RowType rowType = new RowType(List.of(new RowType.RowField("s", new VarCharType(VarCharType.MAX_LENGTH))));
        Map<String, String> tree = Map.of("decode.json-parser.enabled", "false");
        DeserializationSchema<RowData> oracle = JsonParityHarness.decoder(JsonParityHarness.ORACLE, rowType, tree, false);
        DeserializationSchema<RowData> nat = JsonParityHarness.decoder(JsonParityHarness.NATIVE, rowType, tree, false);
        List<String> problems = new ArrayList<>();
        double[] doubles = doubles();
        try {
            for (double d : doubles) {
                if (!Double.isFinite(d)) {
                    continue;
                }
                // A literal with more digits than Double.toString's, so the node's text is re-printed.
                String literal = new java.math.BigDecimal(d).round(new java.math.MathContext(20)).toString();
                for (String json : new String[] {"{\"s\":" + literal + "}", "{\"s\":[" + literal + "]}"}) {
                    byte[] value = json.getBytes(StandardCharsets.UTF_8);
                    String o = strings(JsonParityHarness.decode(oracle, value));
                    String k = strings(JsonParityHarness.decode(nat, value));
                    if (!o.equals(k)) {
                        problems.add(json + ": flink-json " + o + ", json-native " + k);
                    }
                }
            }
        } finally {
            JsonParityHarness.closeQuietly(nat);
        }
        System.out.printf("float literal text parity (Java %d): %d values, %d problems%n", FEATURE, doubles.length,
                problems.size());
        assertThat(problems.subList(0, Math.min(20, problems.size())))
                .as("%d float literals read as text differently on Java %d", problems.size(), FEATURE).isEmpty();
    }

    private static String strings(JsonParityHarness.Outcome outcome) {
        if (outcome.error != null) {
            return "error " + outcome.error;
        }
        StringBuilder out = new StringBuilder();
        for (RowData row : outcome.rows) {
            out.append(row.isNullAt(0) ? "null" : row.getString(0).toString()).append(';');
        }
        return out.toString();
    }

    private static String text(boolean finite, String text) {
        return finite ? text : "\"" + text + "\"";
    }

    /** Boundaries, subnormals, powers of two and ten, integers, known differences, random bit patterns. */
    private static float[] floats() {
        List<Float> out = new ArrayList<>();
        for (float f : new float[] {0f, -0f, Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE, Float.NaN,
                Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 123456789f, 1.17549435E-38f, -7.5454552E18f,
                9.5863786E24f, 1.0E7f, 9999999f, 0.001f, 9.999999E-4f, 0.1f, 1.0f / 3}) {
            out.add(f);
            out.add(Math.nextUp(f));
            out.add(Math.nextDown(f));
        }
        for (int e = -149; e <= 127; e++) {
            out.add(Math.scalb(1.0f, e));
        }
        for (int e = -45; e <= 38; e++) {
            float p = Float.parseFloat("1E" + e);
            out.add(p);
            out.add(Math.nextUp(p));
            out.add(Math.nextDown(p));
        }
        for (int bits = 1; bits < 1 << 23; bits = bits * 3 + 1) {
            out.add(Float.intBitsToFloat(bits));
        }
        SplittableRandom random = new SplittableRandom(19);
        while (out.size() < VALUES) {
            out.add(Float.intBitsToFloat(random.nextInt()));
            out.add((float) random.nextLong(1L << 40));
            out.add(Float.intBitsToFloat(random.nextInt(1 << 23)));
        }
        float[] result = new float[out.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = out.get(i);
        }
        return result;
    }

    /** As {@link #floats()}, for doubles. */
    private static double[] doubles() {
        List<Double> out = new ArrayList<>();
        for (double d : new double[] {0d, -0d, Double.MIN_VALUE, 2 * Double.MIN_VALUE, Double.MIN_NORMAL,
                Double.MAX_VALUE, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 2.0E23, 8.41E21,
                1.0E23, -1.0528375552417797E18, 1.4113167577299955E18, 123456789.0, 1.0E7, 9999999.0, 0.001,
                1.0E-5, 0.1, 1.0 / 3}) {
            out.add(d);
            out.add(Math.nextUp(d));
            out.add(Math.nextDown(d));
        }
        for (int e = -1074; e <= 1023; e++) {
            out.add(Math.scalb(1.0, e));
        }
        for (int e = -324; e <= 308; e++) {
            double p = Double.parseDouble("1E" + e);
            out.add(p);
            out.add(Math.nextUp(p));
            out.add(Math.nextDown(p));
        }
        for (long bits = 1; bits < 1L << 52; bits = bits * 3 + 1) {
            out.add(Double.longBitsToDouble(bits));
        }
        SplittableRandom random = new SplittableRandom(23);
        while (out.size() < VALUES) {
            out.add(Double.longBitsToDouble(random.nextLong()));
            out.add((double) random.nextLong());
            out.add(Double.longBitsToDouble(random.nextLong(1L << 52)));
        }
        double[] result = new double[out.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = out.get(i);
        }
        return result;
    }
}

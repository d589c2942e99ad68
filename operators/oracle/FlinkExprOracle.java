import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Evaluates SQL expressions with Flink 2.2's own planner and generated code, to produce the
 * expected values of the Rust operator tests (operators/src/expr tests). Not part of any build.
 *
 * <p>Input file: lines {@code zone <id>}, {@code table <col TYPE, ...>}, {@code row <sql literals>}
 * and {@code expr <sql>}. The rows are first evaluated by a VALUES query, then fed back as a
 * DataStream, so the expressions run over a real source and are never constant-folded.
 * Output: per expression {@code expr \t type \t value | value | ...}; a value is {@code NULL},
 * a Java toString (doubles: Double.toString; decimals: toPlainString; strings quoted) or
 * {@code ERROR(class: message)} when the query fails for that row.
 *
 * <p>Run: {@code java -cp <connector-java test classpath> operators/oracle/FlinkExprOracle.java FILE}
 */
public class FlinkExprOracle {
    public static void main(String[] args) throws Exception {
        List<String> lines = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
        String zone = "UTC";
        String table = null;
        List<String> rows = new ArrayList<>();
        List<String> exprs = new ArrayList<>();
        // One MiniCluster for every query: a cluster per job would cost seconds each.
        org.apache.flink.test.util.MiniClusterWithClientResource cluster =
                new org.apache.flink.test.util.MiniClusterWithClientResource(
                        new org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration.Builder()
                                .setNumberTaskManagers(1)
                                .setNumberSlotsPerTaskManager(1)
                                .build());
        cluster.before();
        org.apache.flink.streaming.util.TestStreamEnvironment.setAsContext(cluster.getMiniCluster(), 1);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setRuntimeMode(RuntimeExecutionMode.STREAMING);
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        for (String raw : lines) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int sp = line.indexOf(' ');
            String kind = sp < 0 ? line : line.substring(0, sp);
            String rest = sp < 0 ? "" : line.substring(sp + 1).strip();
            switch (kind) {
                case "zone":
                    if (table != null) {
                        run(tEnv, env, zone, table, rows, exprs);
                    }
                    zone = rest;
                    exprs.clear();
                    break;
                case "table":
                    if (table != null) {
                        run(tEnv, env, zone, table, rows, exprs);
                    }
                    table = rest;
                    rows.clear();
                    exprs.clear();
                    break;
                case "row":
                    rows.add(rest);
                    break;
                case "expr":
                    exprs.add(rest);
                    break;
                default:
                    throw new IllegalArgumentException("unknown line: " + line);
            }
        }
        if (table != null) {
            run(tEnv, env, zone, table, rows, exprs);
        }
        cluster.after();
        System.exit(0);
    }

    private static void run(
            StreamTableEnvironment tEnv,
            StreamExecutionEnvironment env,
            String zone,
            String table,
            List<String> rows,
            List<String> exprs)
            throws Exception {
        if (exprs.isEmpty()) {
            return;
        }
        tEnv.getConfig().setLocalTimeZone(ZoneId.of(zone));
        List<String> cols = splitTop(table);
        StringBuilder names = new StringBuilder("id");
        StringBuilder casts = new StringBuilder("id");
        List<org.apache.flink.table.api.DataTypes.Field> fields = new ArrayList<>();
        fields.add(org.apache.flink.table.api.DataTypes.FIELD("id", org.apache.flink.table.api.DataTypes.INT()));
        List<String> approximate = new ArrayList<>();
        for (String c : cols) {
            String[] parts = c.strip().split("\\s+", 2);
            names.append(", ").append(parts[0]);
            // FLOAT/DOUBLE columns travel as strings (NaN and infinities cannot be SQL
            // literals: the planner folds them into BigDecimal) and are parsed here.
            boolean approx = parts[1].equals("FLOAT") || parts[1].equals("DOUBLE");
            approximate.add(approx ? parts[1] : null);
            casts.append(", CAST(").append(parts[0]).append(" AS ").append(approx ? "STRING" : parts[1]).append(") AS ").append(parts[0]);
            fields.add(
                    org.apache.flink.table.api.DataTypes.FIELD(
                            parts[0],
                            org.apache.flink.table.types.utils.TypeConversions.fromLogicalToDataType(
                                    org.apache.flink.table.types.logical.utils.LogicalTypeParser.parse(
                                            parts[1], FlinkExprOracle.class.getClassLoader()))));
        }
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < rows.size(); i++) {
            List<String> cells = splitTop(rows.get(i));
            for (int c = 0; c < cells.size() && c < approximate.size(); c++) {
                String cell = cells.get(c).strip();
                if (approximate.get(c) != null && !cell.startsWith("'") && !cell.startsWith("CAST")) {
                    cells.set(c, "'" + cell + "'");
                }
            }
            values.append(i == 0 ? "" : ", ").append("(").append(i).append(", ").append(String.join(", ", cells)).append(")");
        }
        Table literal =
                tEnv.sqlQuery(
                        "SELECT " + casts + " FROM (VALUES " + values + ") AS v(" + names + ")");
        DataType type = org.apache.flink.table.api.DataTypes.ROW(fields);
        List<Row> data = collect(literal);
        for (Row r : data) {
            for (int c = 0; c < approximate.size(); c++) {
                Object v = r.getField(c + 1);
                if (approximate.get(c) != null && v != null) {
                    double d = Double.parseDouble((String) v);
                    r.setField(c + 1, approximate.get(c).equals("FLOAT") ? (Object) (float) d : (Object) d);
                }
            }
        }
        data.sort((a, b) -> Integer.compare((Integer) a.getField(0), (Integer) b.getField(0)));
        DataStream<Row> stream = env.fromData(data, ExternalTypeInfo.of(type));
        tEnv.createTemporaryView("t", tEnv.fromDataStream(stream));
        String[][] results = new String[exprs.size()][];
        String[] types = new String[exprs.size()];
        evaluate(tEnv, exprs, 0, exprs.size(), rows.size(), results, types);
        for (int e = 0; e < exprs.size(); e++) {
            System.out.println(exprs.get(e) + "\t" + types[e] + "\t" + String.join(" | ", results[e]));
        }
        tEnv.dropTemporaryView("t");
    }

    /**
     * Evaluates expressions [from, to) in one query; when it fails, halves the range, and for a
     * single failing expression evaluates it row by row.
     */
    private static void evaluate(
            StreamTableEnvironment tEnv,
            List<String> exprs,
            int from,
            int to,
            int rowCount,
            String[][] results,
            String[] types) {
        StringBuilder select = new StringBuilder("SELECT id");
        for (int e = from; e < to; e++) {
            select.append(", ").append(exprs.get(e));
        }
        Table q;
        try {
            q = tEnv.sqlQuery(select + " FROM t");
        } catch (Exception planError) {
            if (to - from == 1) {
                types[from] = "PLAN-ERROR";
                results[from] = new String[] {error(planError)};
                return;
            }
            int mid = (from + to) / 2;
            evaluate(tEnv, exprs, from, mid, rowCount, results, types);
            evaluate(tEnv, exprs, mid, to, rowCount, results, types);
            return;
        }
        for (int e = from; e < to; e++) {
            types[e] = q.getResolvedSchema().getColumnDataTypes().get(1 + e - from).toString();
            results[e] = new String[rowCount];
        }
        try {
            for (Row r : collect(q)) {
                for (int e = from; e < to; e++) {
                    results[e][(Integer) r.getField(0)] = render(r.getField(1 + e - from));
                }
            }
        } catch (Exception runError) {
            if (to - from > 1) {
                int mid = (from + to) / 2;
                evaluate(tEnv, exprs, from, mid, rowCount, results, types);
                evaluate(tEnv, exprs, mid, to, rowCount, results, types);
                return;
            }
            for (int i = 0; i < rowCount; i++) {
                try {
                    List<Row> one = collect(tEnv.sqlQuery("SELECT id, " + exprs.get(from) + " FROM t WHERE id = " + i));
                    results[from][i] = render(one.get(0).getField(1));
                } catch (Exception inner) {
                    results[from][i] = error(inner);
                }
            }
        }
    }

    /** Splits at commas outside parentheses and quotes. */
    static List<String> splitTop(String text) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (ch == '\'') {
                quoted = !quoted;
            } else if (!quoted && (ch == '(' || ch == '<')) {
                depth++;
            } else if (!quoted && (ch == ')' || ch == '>')) {
                depth--;
            } else if (!quoted && depth == 0 && ch == ',') {
                out.add(text.substring(start, i));
                start = i + 1;
            }
        }
        out.add(text.substring(start));
        return out;
    }

    private static List<Row> collect(Table t) throws Exception {
        List<Row> out = new ArrayList<>();
        try (CloseableIterator<Row> it = t.execute().collect()) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    private static String error(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        String msg = String.valueOf(root.getMessage()).replace('\n', ' ');
        if (msg.length() > 160) {
            msg = msg.substring(0, 160);
        }
        return "ERROR(" + root.getClass().getSimpleName() + ": " + msg + ")";
    }

    static String render(Object v) {
        if (v == null) {
            return "NULL";
        }
        if (v instanceof java.math.BigDecimal) {
            return ((java.math.BigDecimal) v).toPlainString();
        }
        if (v instanceof String) {
            return "'" + ((String) v).replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'";
        }
        if (v instanceof byte[]) {
            StringBuilder b = new StringBuilder("x'");
            for (byte x : (byte[]) v) {
                b.append(String.format("%02x", x));
            }
            return b.append("'").toString();
        }
        return v.toString();
    }
}

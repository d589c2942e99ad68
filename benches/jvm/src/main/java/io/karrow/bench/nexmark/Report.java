package io.karrow.bench.nexmark;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The HTML report ({@code index.html}): per family, inline SVG bar charts (no script, no external
 * resource, so it reads offline; the look of {@code karrow bench --report}: stock in orange, karrow
 * in blue) of throughput, of the karrow/stock ratio and of CPU per event, then the table with what
 * was compared and which karrow paths ran.
 */
final class Report {

    private static final String KARROW = "#2b6cb0";
    private static final String STOCK = "#c05621";

    private Report() {}

    private record Bar(String label, double value, String color, String note) {}

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** A horizontal bar chart; {@code marker} draws a dashed line at that value (e.g. 1x), or NaN. */
    private static String hbar(String title, List<Bar> bars, double marker) {
        double w = 820;
        double labelW = 150;
        double rowH = 22;
        double top = 34;
        double plotW = w - labelW - 160;
        double h = top + rowH * Math.max(bars.size(), 1) + 12;
        double max = bars.stream().mapToDouble(b -> Double.isFinite(b.value()) ? b.value() : 0).max().orElse(0);
        if (Double.isFinite(marker)) {
            max = Math.max(max, marker);
        }
        max = Math.max(max, Double.MIN_VALUE);
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                + "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"%s\"><title>%s</title>"
                + "<text x=\"0\" y=\"20\" font-size=\"15\" font-weight=\"bold\">%s</text>", w, h, w, h, esc(title),
                esc(title), esc(title)));
        if (bars.isEmpty()) {
            s.append(String.format(Locale.ROOT, "<text x=\"0\" y=\"%.0f\" font-size=\"13\">no figures</text>", top + 16));
        }
        for (int i = 0; i < bars.size(); i++) {
            Bar b = bars.get(i);
            double y = top + rowH * i;
            double bw = Double.isFinite(b.value()) ? Math.max(b.value() / max * plotW, 1) : 0;
            s.append(String.format(Locale.ROOT, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" text-anchor=\"end\">%s</text>"
                    + "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\"/>"
                    + "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\">%s</text>", labelW - 8, y + 14, esc(b.label()), labelW, y,
                    bw, rowH - 6, b.color(), labelW + bw + 6, y + 14, esc(b.note())));
        }
        if (Double.isFinite(marker)) {
            double x = labelW + marker / max * plotW;
            s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#222\" "
                    + "stroke-dasharray=\"4 3\"/>", x, top - 4, x, h - 8));
        }
        return s.append("</svg>").toString();
    }

    private static String si(double v) {
        if (!Double.isFinite(v)) {
            return "-";
        }
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.2f M", v / 1e6);
        }
        if (v >= 1e3) {
            return String.format(Locale.ROOT, "%.1f k", v / 1e3);
        }
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String html(Results r) {
        StringBuilder b = new StringBuilder();
        SuiteOptions o = r.options;
        b.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>karrow Nexmark over Kafka</title>"
                + "<style>body{font-family:sans-serif;margin:24px;max-width:1100px}table{border-collapse:collapse;"
                + "font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}td.l,th.l{text-align:left}"
                + ".bad{color:#b00;font-weight:bold}</style></head><body>");
        b.append("<h1>Nexmark over Kafka: stock Flink against karrow</h1>");
        b.append(String.format(Locale.ROOT, "<p>%,d events per format, %d partitions, parallelism %d, checkpoints every %d"
                        + " ms, exactly-once sinks; %s. Throughput is input events per second to completion (events over"
                        + " the job's net runtime); CPU is process CPU per input event.</p>", o.events, o.partitions,
                o.parallelism, o.checkpointMillis, o.checkOnly ? "correctness run (no figures)"
                        : "median of " + o.rounds + " rounds after " + o.warmup + " warm-up, stock and karrow alternating"));
        b.append(r.failed() ? "<p class=\"bad\">FAILED: an output differed, a job failed or the stock side ran a karrow path.</p>"
                : "<p>Every output equal between the two sides.</p>");
        for (Family family : r.written.keySet()) {
            List<Results.Row> rows = r.rows(family);
            b.append("<h2>").append(esc(family.label())).append("</h2>");
            b.append("<p>stock: <code>kafka</code> + <code>").append(esc(family.sourceFormat(Side.STOCK)))
                    .append("</code>, sinks <code>").append(esc(family.sinkFormat(Side.STOCK)))
                    .append("</code>; karrow: <code>kafka-native</code> (native fetch) + <code>")
                    .append(esc(family.sourceFormat(Side.KARROW))).append("</code>, sinks <code>")
                    .append(esc(family.sinkFormat(Side.KARROW))).append("</code>.</p>");
            if (!o.checkOnly) {
                List<Bar> rate = new ArrayList<>();
                List<Bar> ratio = new ArrayList<>();
                List<Bar> cpu = new ArrayList<>();
                for (Results.Row row : rows) {
                    String q = row.query().name();
                    rate.add(new Bar(q + " stock", row.stockRate(), STOCK, si(row.stockRate()) + " ev/s"));
                    rate.add(new Bar(q + " karrow", row.karrowRate(), KARROW, si(row.karrowRate()) + " ev/s"));
                    ratio.add(new Bar(q, row.ratio(), KARROW, String.format(Locale.ROOT, "%.2fx", row.ratio())));
                    cpu.add(new Bar(q + " stock", row.stockCpuPerEvent(), STOCK,
                            String.format(Locale.ROOT, "%.2f µs", row.stockCpuPerEvent())));
                    cpu.add(new Bar(q + " karrow", row.karrowCpuPerEvent(), KARROW,
                            String.format(Locale.ROOT, "%.2f µs", row.karrowCpuPerEvent())));
                }
                b.append("<p>").append(String.format(Locale.ROOT, "Geomean: throughput %.2fx, CPU per event %.2fx.",
                        Results.geomean(rows, false), Results.geomean(rows, true))).append("</p>");
                b.append(hbar(family.label() + ": karrow / stock throughput", ratio, 1.0)).append("<br>");
                b.append(hbar(family.label() + ": input events per second", rate, Double.NaN)).append("<br>");
                b.append(hbar(family.label() + ": CPU per input event (µs)", cpu, Double.NaN)).append("<br>");
            }
            b.append("<table><tr><th class=\"l\">query</th><th class=\"l\">sink</th>");
            if (!o.checkOnly) {
                b.append("<th>stock ev/s</th><th>karrow ev/s</th><th>ratio</th><th>stock µs/ev</th><th>karrow µs/ev</th>");
            }
            b.append("<th class=\"l\">compared</th><th class=\"l\">output</th><th class=\"l\">karrow paths</th></tr>");
            for (Results.Row row : rows) {
                b.append("<tr><td class=\"l\">").append(row.query().name()).append("</td><td class=\"l\">")
                        .append(row.query().updating() ? "upsert" : "append").append("</td>");
                if (!o.checkOnly) {
                    b.append(String.format(Locale.ROOT, "<td>%,.0f</td><td>%,.0f</td><td>%.2fx</td><td>%.2f</td><td>%.2f</td>",
                            row.stockRate(), row.karrowRate(), row.ratio(), row.stockCpuPerEvent(), row.karrowCpuPerEvent()));
                }
                boolean bad = row.verdict().equals("DIFFERENT") || row.verdict().equals("not compared");
                b.append("<td class=\"l").append(bad ? " bad" : "").append("\">").append(esc(row.verdict()))
                        .append("</td><td class=\"l\">").append(esc(row.output())).append("</td><td class=\"l")
                        .append(row.karrowPaths().isEmpty() ? " bad" : "").append("\">")
                        .append(esc(row.karrowPaths().isEmpty() ? "none" : String.join(" ", row.karrowPaths())));
                if (row.error() != null) {
                    b.append("<br><span class=\"bad\">").append(esc(row.error())).append("</span>");
                }
                b.append("</td></tr>");
            }
            b.append("</table>");
        }
        return b.append("</body></html>\n").toString();
    }
}

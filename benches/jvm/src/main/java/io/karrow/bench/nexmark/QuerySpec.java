package io.karrow.bench.nexmark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One query of the suite, read from {@code benches/nexmark/sql/queries/qN.sql}: its statements (the
 * sink table {@code nexmark_qN}, whose {@code ${WITH}} the side fills in, any helper table, view or
 * function, and the {@code INSERT}), whether its output is updating (the sink declares a primary
 * key: written with {@code upsert-kafka}, compared as the changelog collapsed per key) and how its
 * outputs are compared ({@code -- compare:} line, default {@code exact}).
 */
record QuerySpec(String name, List<String> statements, String sinkTable, List<String> keyColumns, String compare) {

    private static final Pattern PRIMARY_KEY = Pattern.compile("PRIMARY KEY \\(([^)]*)\\) NOT ENFORCED");
    private static final Pattern COMPARE = Pattern.compile("^-- compare: (.*)$", Pattern.MULTILINE);

    /** Whether the sink is an upsert sink. */
    boolean updating() {
        return !keyColumns.isEmpty();
    }

    /** The query number (q13 -> 13), for ordering. */
    int number() {
        return Integer.parseInt(name.substring(1));
    }

    static QuerySpec load(Path file) throws IOException {
        String name = file.getFileName().toString().replaceFirst("\\.sql$", "").toLowerCase(Locale.ROOT);
        String text = Files.readString(file, StandardCharsets.UTF_8);
        Matcher compare = COMPARE.matcher(text);
        String mode = compare.find() ? compare.group(1).trim() : "exact";
        List<String> statements = statements(text);
        String sinkTable = "nexmark_" + name;
        List<String> keys = new ArrayList<>();
        boolean sinkFound = false;
        for (String s : statements) {
            if (s.startsWith("CREATE TABLE " + sinkTable + " ")) {
                sinkFound = true;
                Matcher pk = PRIMARY_KEY.matcher(s);
                if (pk.find()) {
                    for (String column : pk.group(1).split(",")) {
                        keys.add(column.trim().replace("`", ""));
                    }
                }
            }
        }
        if (!sinkFound) {
            throw new IOException(file + ": no CREATE TABLE " + sinkTable);
        }
        if (!statements.get(statements.size() - 1).startsWith("INSERT INTO " + sinkTable)) {
            throw new IOException(file + ": the last statement must be INSERT INTO " + sinkTable);
        }
        return new QuerySpec(name, statements, sinkTable, List.copyOf(keys), mode);
    }

    /** The statements of a script: comment lines dropped, split at a {@code ;} that ends a line. */
    static List<String> statements(String text) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : text.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.startsWith("--") || trimmed.isEmpty()) {
                continue;
            }
            current.append(line).append('\n');
            if (trimmed.endsWith(";")) {
                String s = current.toString().strip();
                out.add(s.substring(0, s.length() - 1).strip());
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            out.add(current.toString().strip());
        }
        return out;
    }
}

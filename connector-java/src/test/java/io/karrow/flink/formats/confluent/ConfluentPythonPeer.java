package io.karrow.flink.formats.confluent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.types.Row;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Confluent's own Python client ({@code confluent-kafka}, pinned in {@code
 * tests/confluent-python/requirements.txt}) as a peer process: {@code tests/confluent-python/kafka_peer.py}
 * produces with Confluent's serializers and consumes with its deserializers on the real broker and
 * the dev registry. Rows cross in the peer's rendering (its module comment), which {@link #render}
 * gives for Flink rows, so that every field is compared by value.
 *
 * <p>The interpreter is {@code -Dkarrow.python}, else {@code python3}; it must have the pinned
 * package ({@code tests/run-java-tests.sh} installs it). A missing package fails the test.
 */
final class ConfluentPythonPeer {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ConfluentPythonPeer() {}

    private static Path script() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("tests/confluent-python/kafka_peer.py");
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("tests/confluent-python/kafka_peer.py not found above " + Path.of("").toAbsolutePath());
    }

    private static List<String> run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(System.getProperty("karrow.python", "python3"));
        command.add(script().toString());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.PIPE).start();
        process.getOutputStream().close();
        // Both pipes are drained at once, so neither fills while the other is read.
        var stderr = new java.util.concurrent.CompletableFuture<String>();
        Thread pump = new Thread(() -> {
            try {
                stderr.complete(new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                stderr.complete("(stderr unreadable: " + e + ")");
            }
        }, "confluent-peer-stderr");
        pump.setDaemon(true);
        pump.start();
        String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IOException("the Confluent peer did not end: " + command);
        }
        if (process.exitValue() != 0) {
            throw new IOException("the Confluent peer failed (" + command + "), exit " + process.exitValue()
                    + ":\n" + stderr.join());
        }
        return stdout.lines().filter(l -> !l.isBlank()).toList();
    }

    /** Fails with what to do when the interpreter lacks Confluent's client. */
    static void requireClient() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(System.getProperty("karrow.python", "python3"), "-c",
                "import confluent_kafka.schema_registry.protobuf, fastavro, jsonschema")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("Confluent's Python client is not installed for "
                    + System.getProperty("karrow.python", "python3")
                    + ": python3 -m pip install -r tests/confluent-python/requirements.txt\n" + out);
        }
    }

    /** Confluent's serializers write {@code kase}'s values to {@code topic}; the rows a reader must see. */
    static List<JsonNode> produce(String bootstrap, String registry, String kase, String topic)
            throws IOException, InterruptedException {
        List<JsonNode> rows = new ArrayList<>();
        for (String line : run("produce", bootstrap, registry, kase, topic)) {
            rows.add(JSON.readTree(line));
        }
        return rows;
    }

    /**
     * Confluent's deserializers read {@code count} values of {@code topic}: the rows per variant
     * ({@code with-registry}, and {@code without-registry} where the deserializer runs without a
     * registry client).
     */
    static Map<String, List<JsonNode>> consume(String bootstrap, String registry, String format, String topic,
            int count) throws IOException, InterruptedException {
        Map<String, List<JsonNode>> rows = new LinkedHashMap<>();
        for (String line : run("consume", bootstrap, registry, format, topic, Integer.toString(count))) {
            int space = line.indexOf(' ');
            rows.computeIfAbsent(line.substring(0, space), k -> new ArrayList<>())
                    .add(JSON.readTree(line.substring(space + 1)));
        }
        return rows;
    }

    /** A Flink row in the peer's rendering (read back from text, so numbers compare as the peer's do). */
    static JsonNode render(Row row) {
        try {
            return JSON.readTree(JSON.writeValueAsString(value(row)));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Rows as a multiset. */
    static Map<JsonNode, Integer> multiset(Iterable<JsonNode> rows) {
        Map<JsonNode, Integer> multiset = new HashMap<>();
        rows.forEach(r -> multiset.merge(r, 1, Integer::sum));
        return multiset;
    }

    private static JsonNode value(Object v) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        if (v == null) {
            return f.nullNode();
        } else if (v instanceof Row r) {
            ArrayNode a = f.arrayNode();
            for (int i = 0; i < r.getArity(); i++) {
                a.add(value(r.getField(i)));
            }
            return a;
        } else if (v instanceof byte[] b) {
            return f.textNode(HexFormat.of().formatHex(b));
        } else if (v instanceof Object[] items) {
            ArrayNode a = f.arrayNode();
            for (Object item : items) {
                a.add(value(item));
            }
            return a;
        } else if (v instanceof Map<?, ?> m) {
            ObjectNode o = f.objectNode();
            m.forEach((k, x) -> o.set(String.valueOf(k), value(x)));
            return o;
        } else if (v instanceof BigDecimal d) {
            return f.textNode(d.toPlainString());
        } else if (v instanceof LocalDate d) {
            return f.numberNode(d.toEpochDay());
        } else if (v instanceof LocalTime t) {
            return f.numberNode(t.toNanoOfDay() / 1_000_000);
        } else if (v instanceof LocalDateTime t) {
            return f.numberNode(t.toInstant(ZoneOffset.UTC).toEpochMilli());
        } else if (v instanceof Double d) {
            return d.isNaN() || d.isInfinite() ? f.textNode(d.toString()) : f.numberNode(d);
        } else if (v instanceof Float x) {
            return x.isNaN() || x.isInfinite() ? f.textNode(x.toString()) : f.numberNode(x);
        }
        return JSON.valueToTree(v);
    }
}

package io.karrow.bench.nexmark;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A format family of the suite: how its event topic is written and read, and which formats the two
 * sides use, for the source and for the sinks.
 *
 * <table>
 *   <tr><th>family</th><th>stock source</th><th>karrow source</th><th>stock sinks</th><th>karrow sinks</th></tr>
 *   <tr><td>json</td><td>{@code json}</td><td>{@code json-native}</td><td>{@code json}</td><td>{@code json-native}</td></tr>
 *   <tr><td>avro</td><td>{@code avro-confluent-reference}</td><td>{@code avro-confluent-native}</td>
 *       <td>{@code avro-confluent-reference}</td><td>{@code avro-confluent-native}</td></tr>
 *   <tr><td>protobuf</td><td>{@code protobuf-confluent-reference}</td><td>{@code protobuf-confluent-native}</td>
 *       <td>{@code json}</td><td>{@code json-native}</td></tr>
 * </table>
 *
 * <p>{@code avro-confluent-reference} (connector-java's test-jar) is flink-avro's registry-aware
 * (de)serialization, what Flink's {@code avro-confluent} runs; {@code protobuf-confluent-reference} is
 * Flink's {@code protobuf} format behind the Confluent header. The Protobuf family writes its query
 * outputs as JSON: neither Flink's {@code protobuf} format nor {@code protobuf-confluent-native} writes
 * TIMESTAMP or DECIMAL columns, which most outputs have, and Flink's needs a generated class per output.
 */
enum Family {
    JSON("source.sql", "views.sql", "json", "json-native", "json", "json-native"),
    AVRO("source.sql", "views.sql", "avro-confluent-reference", "avro-confluent-native",
            "avro-confluent-reference", "avro-confluent-native"),
    PROTOBUF("source-protobuf.sql", "views-protobuf.sql", "protobuf-confluent-reference", "protobuf-confluent-native",
            "json", "json-native");

    /** The generated message class of {@code nexmark.proto} that Flink's protobuf format reads with. */
    static final String PROTOBUF_MESSAGE_CLASS = "io.karrow.bench.nexmark.proto.Event";

    final String sourceDdl;
    final String viewsDdl;
    private final String stockSource;
    private final String karrowSource;
    private final String stockSink;
    private final String karrowSink;

    Family(String sourceDdl, String viewsDdl, String stockSource, String karrowSource, String stockSink,
            String karrowSink) {
        this.sourceDdl = sourceDdl;
        this.viewsDdl = viewsDdl;
        this.stockSource = stockSource;
        this.karrowSource = karrowSource;
        this.stockSink = stockSink;
        this.karrowSink = karrowSink;
    }

    /** The lower-case name ({@code json}, {@code avro}, {@code protobuf}). */
    String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Family parse(String name) {
        return Family.valueOf(name.trim().toUpperCase(Locale.ROOT));
    }

    /** Whether the event timestamps are BIGINT epoch milliseconds in this family's topic. */
    boolean millis() {
        return this == PROTOBUF;
    }

    String sourceFormat(Side side) {
        return side == Side.STOCK ? stockSource : karrowSource;
    }

    String sinkFormat(Side side) {
        return side == Side.STOCK ? stockSink : karrowSink;
    }

    /** The options of the source format (without prefix). */
    Map<String, String> sourceFormatOptions(Side side, String registry) {
        Map<String, String> o = new LinkedHashMap<>();
        String format = sourceFormat(side);
        if (format.equals("protobuf-confluent-reference")) {
            o.put("message-class-name", PROTOBUF_MESSAGE_CLASS);
        } else if (format.startsWith("avro-confluent") || format.startsWith("protobuf-confluent")) {
            o.put("url", registry);
        }
        return o;
    }

    /** The options of a sink format (without prefix) for the key or value of {@code query}'s output. */
    Map<String, String> sinkFormatOptions(Side side, String registry, String query, boolean key) {
        Map<String, String> o = new LinkedHashMap<>();
        if (sinkFormat(side).startsWith("avro-confluent")) {
            o.put("url", registry);
            // One subject per query for both sides: the same writer schema gets the same id, so the
            // outputs can be byte-identical.
            o.put("subject", "nexmark-" + query + (key ? "-key" : "-value"));
        }
        return o;
    }

    /** The text of {@code nexmark.proto} (registered for the Protobuf topic; the class is compiled from it). */
    static String protobufSchemaText() {
        try (InputStream in = Family.class.getClassLoader().getResourceAsStream("nexmark.proto")) {
            if (in == null) {
                throw new IllegalStateException("nexmark.proto is not on the classpath (build benches/jvm)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.karrow.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.karrow.bench.nexmark.ProtobufConfluentReferenceFormatFactory;
import io.karrow.flink.formats.avro.reference.ReferenceDeserializers;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.formats.avro.AvroRowDataSerializationSchema;
import org.apache.flink.formats.avro.RegistryAvroSerializationSchema;
import org.apache.flink.formats.avro.RowDataToAvroConverters;
import org.apache.flink.formats.avro.SchemaCoder;
import org.apache.flink.formats.avro.typeutils.AvroSchemaConverter;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema;
import org.apache.flink.formats.json.JsonRowDataSerializationSchema;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;
import org.apache.flink.util.Collector;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The stock side of {@code karrow bench}: decodes and encodes the CLI's message file with exactly
 * what Flink 2.2's format runs, and prints one JSON object on stdout. {@code --format
 * avro-confluent} (the default): the flink-avro oracle of the connector test-jar for decode, {@code
 * AvroRowDataSerializationSchema} over {@code RegistryAvroSerializationSchema} with the derived
 * writer schema for encode. {@code --format json}: flink-json with the format's default options,
 * {@code JsonParserRowDataDeserializationSchema} (what {@code decode.json-parser.enabled = true}
 * runs) and {@code JsonRowDataSerializationSchema}; a message is read through the collector, as the
 * Kafka source reads it, and one that gives more than one row (a top-level array) is a failure (the
 * bench compares one row per message). {@code --format json-confluent}: open-source Flink has no
 * Confluent JSON Schema format, so the stock side is what a Flink job does without karrow: the
 * 5-byte Confluent header checked and cut off, then flink-json as for {@code json}; encode
 * writes {@code 0x00}, the {@code --encode-schema-id} and flink-json's bytes. {@code --format
 * protobuf}: flink-protobuf's {@code protobuf} format created as a SQL table gets it, its {@code
 * message-class-name} the class protoc generated for {@code --proto-message} (the CLI generates and
 * compiles it at bench time into {@code --proto-classes}, which is on the classpath; the class is
 * found there by its descriptor's full name). {@code --format protobuf-confluent}: again no such
 * format in open-source Flink, so the stock side is the Confluent header and message indexes
 * checked and cut off, then flink-protobuf as for {@code protobuf}; encode writes {@code 0x00}, the
 * {@code --encode-schema-id}, the message's index path (Confluent's encoding) and
 * flink-protobuf's bytes.
 *
 * <p>Verification output: {@code --sample-out} gets the first {@code --sample} messages' rows as
 * canonical text (one line per message, {@code -} for a null value; the format is documented in the
 * CLI's {@code cli/src/commands/bench/render.rs}, keep both in step), {@code --encoded-out} the hex
 * of those rows encoded again. Timing: like the CLI, {@code --threads} threads each with its own
 * (de)serializer over a contiguous share, warm-up for at least {@code --warmup-ms}, then {@code
 * --trials} trials of enough passes to last {@code --min-trial-ms}.
 *
 * <p>Encode registers nothing: the CLI registered the derived schema and passes its id; the coder
 * writes {@code 0x00} and that id (Confluent's client caches the id after the first registration,
 * so the per-record work is the same).
 *
 * <p>Exit code 0 with {@code "ok": true} or {@code "ok": false} and an {@code error}; 2 on bad
 * arguments.
 */
public final class StockSerdeHarness {

    private static final ObjectMapper JSON = new ObjectMapper();

    private StockSerdeHarness() {}

    /** Entry point; see the class comment for the arguments. */
    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new HashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            if (!argv[i].startsWith("--")) {
                System.err.println("StockSerdeHarness: unexpected argument " + argv[i]);
                System.exit(2);
            }
            args.put(argv[i].substring(2), argv[i + 1]);
        }
        ObjectNode out = JSON.createObjectNode();
        try {
            run(args, out);
            out.put("ok", true);
        } catch (HarnessFailure e) {
            out.put("ok", false);
            out.put("error", e.getMessage());
            if (e.index >= 0) {
                out.put("index", e.index);
            }
        }
        System.out.println(JSON.writeValueAsString(out));
        System.out.flush();
        System.exit(0);
    }

    /** A failure reported in the JSON (not a crash): a message that does not decode, and so on. */
    private static final class HarnessFailure extends Exception {
        final long index;

        HarnessFailure(String message, long index, Throwable cause) {
            super(message, cause);
            this.index = index;
        }
    }

    private static String need(Map<String, String> args, String key) {
        String v = args.get(key);
        if (v == null) {
            System.err.println("StockSerdeHarness: missing --" + key);
            System.exit(2);
        }
        return v;
    }

    private static int intArg(Map<String, String> args, String key, int dflt) {
        String v = args.get(key);
        return v == null ? dflt : Integer.parseInt(v);
    }

    private static void run(Map<String, String> args, ObjectNode out) throws Exception {
        byte[][] messages = readMessages(Path.of(need(args, "messages")));
        RowType rowType = (RowType) LogicalTypeParser.parse(need(args, "row-type"), StockSerdeHarness.class.getClassLoader());
        String format = args.getOrDefault("format", "avro-confluent");
        boolean confluentJson = format.equals("json-confluent");
        boolean json = format.equals("json") || confluentJson;
        boolean confluentProto = format.equals("protobuf-confluent");
        boolean proto = format.equals("protobuf") || confluentProto;
        if (!json && !proto && !format.equals("avro-confluent")) {
            System.err.println("StockSerdeHarness: unknown --format " + format);
            System.exit(2);
        }
        String registry = json || proto ? null : need(args, "registry");
        Class<?> messageClass = proto
                ? messageClass(Path.of(need(args, "proto-classes")), need(args, "proto-message"))
                : null;
        String readerSchema = args.containsKey("reader-schema-file")
                ? Files.readString(Path.of(args.get("reader-schema-file")), StandardCharsets.UTF_8)
                : null;
        int encodeId = intArg(args, "encode-schema-id", format.equals("json") || format.equals("protobuf") ? 0 : -1);
        byte[] header = ByteBuffer.allocate(5).put((byte) 0).putInt(encodeId).array();
        byte[] prefix = confluentProto ? concat(header, messageIndexes(messageClass)) : header;
        int threads = Math.max(1, intArg(args, "threads", 1));
        int trials = Math.max(1, intArg(args, "trials", 5));
        long warmupMs = intArg(args, "warmup-ms", 2000);
        long minTrialNs = intArg(args, "min-trial-ms", 200) * 1_000_000L;
        int sample = intArg(args, "sample", 1000);
        boolean encode = encodeId >= 0;
        InternalTypeInfo<RowData> typeInfo = InternalTypeInfo.of(rowType);

        Factory<Decoder> deserializers = () -> {
            DeserializationSchema<RowData> d;
            if (proto) {
                try {
                    d = ProtobufMessages.decoder(ProtobufMessages.FLINK, rowType, messageClass.getName());
                } catch (Exception e) {
                    throw new HarnessFailure("stock " + format + " deserializer: " + e, -1, e);
                }
                DeserializationSchema<RowData> pb = d;
                if (!confluentProto) {
                    return pb::deserialize;
                }
                return m -> pb.deserialize(Arrays.copyOfRange(
                        m, ProtobufConfluentReferenceFormatFactory.headerLength(m), m.length));
            }
            try {
                d = json
                        ? new JsonParserRowDataDeserializationSchema(rowType, typeInfo, false, false, TimestampFormat.SQL)
                        : ReferenceDeserializers.create(rowType, typeInfo, registry, readerSchema);
                d.open(null);
            } catch (Exception e) {
                throw new HarnessFailure("stock " + format + " deserializer: " + e, -1, e);
            }
            if (!json) {
                return d::deserialize;
            }
            OneRow collector = new OneRow();
            return m -> {
                collector.row = null;
                collector.rows = 0;
                if (confluentJson) {
                    if (m.length < 5 || m[0] != 0) {
                        throw new IOException("Unknown data format. Magic number does not match");
                    }
                    m = Arrays.copyOfRange(m, 5, m.length);
                }
                d.deserialize(m, collector);
                if (collector.rows > 1) {
                    throw new IOException("the message gives " + collector.rows
                            + " rows (a top-level JSON array); karrow bench compares one row per message");
                }
                return collector.row;
            };
        };
        Factory<SerializationSchema<RowData>> serializers = () -> {
            try {
                if (proto) {
                    SerializationSchema<RowData> s = ProtobufMessages.encoder(ProtobufMessages.FLINK, rowType, messageClass.getName());
                    return confluentProto ? row -> concat(prefix, s.serialize(row)) : s;
                }
                if (json) {
                    SerializationSchema<RowData> s = new JsonRowDataSerializationSchema(
                            rowType, TimestampFormat.SQL, JsonFormatOptions.MapNullKeyMode.FAIL, "null", false, false);
                    s.open(null);
                    if (!confluentJson) {
                        return s;
                    }
                    return row -> {
                        byte[] body = s.serialize(row);
                        byte[] framed = Arrays.copyOf(header, header.length + body.length);
                        System.arraycopy(body, 0, framed, header.length, body.length);
                        return framed;
                    };
                }
                Schema writer = AvroSchemaConverter.convertToSchema(rowType);
                SerializationSchema<RowData> s = new AvroRowDataSerializationSchema(
                        rowType,
                        new RegistryAvroSerializationSchema<GenericRecord>(GenericRecord.class, writer, new FixedIdCoderProvider(encodeId)),
                        RowDataToAvroConverters.createConverter(rowType));
                s.open(null);
                return s;
            } catch (Exception e) {
                throw new HarnessFailure("stock " + format + " serializer: " + e, -1, e);
            }
        };

        // Decode everything once: the rows to encode, the sample to verify, and the first failure.
        Decoder first = deserializers.make();
        List<RowData> rows = new ArrayList<>();
        StringBuilder sampleText = new StringBuilder();
        for (int i = 0; i < messages.length; i++) {
            RowData row = null;
            if (messages[i] != null) {
                try {
                    row = first.decode(messages[i]);
                } catch (Exception e) {
                    throw new HarnessFailure("stock Flink fails to decode message " + i + ": " + rootMessage(e), i, e);
                }
            }
            if (row != null) {
                rows.add(row);
            }
            if (i < sample) {
                sampleText.append(row == null ? "-" : render(row, rowType)).append('\n');
            }
        }
        if (args.containsKey("sample-out")) {
            Files.writeString(Path.of(args.get("sample-out")), sampleText.toString(), StandardCharsets.UTF_8);
        }
        long messageBytes = 0;
        for (byte[] m : messages) {
            messageBytes += m == null ? 0 : m.length;
        }

        out.set("decode", measure("decode", threads, trials, warmupMs, minTrialNs, messages.length, messageBytes, (t, n) -> {
            Decoder d = deserializers.make();
            int from = (int) ((long) messages.length * t / n);
            int to = (int) ((long) messages.length * (t + 1) / n);
            return () -> {
                long sink = 0;
                for (int i = from; i < to; i++) {
                    if (messages[i] != null) {
                        RowData r = d.decode(messages[i]);
                        sink += r == null ? 0 : r.getArity();
                    }
                }
                return sink;
            };
        }));

        if (encode) {
            StringBuilder encodedText = new StringBuilder();
            SerializationSchema<RowData> s0 = serializers.make();
            long encodedBytes = 0;
            int sampled = 0;
            for (int i = 0; i < rows.size(); i++) {
                byte[] bytes;
                try {
                    bytes = s0.serialize(rows.get(i));
                } catch (Exception e) {
                    throw new HarnessFailure("stock Flink fails to encode row " + i + ": " + rootMessage(e), i, e);
                }
                encodedBytes += bytes.length;
                if (sampled < sample) {
                    encodedText.append(hex(bytes)).append('\n');
                    sampled++;
                }
            }
            if (args.containsKey("encoded-out")) {
                Files.writeString(Path.of(args.get("encoded-out")), encodedText.toString(), StandardCharsets.UTF_8);
            }
            out.set("encode", measure("encode", threads, trials, warmupMs, minTrialNs, rows.size(), encodedBytes, (t, n) -> {
                SerializationSchema<RowData> s = serializers.make();
                int from = (int) ((long) rows.size() * t / n);
                int to = (int) ((long) rows.size() * (t + 1) / n);
                return () -> {
                    long sink = 0;
                    for (int i = from; i < to; i++) {
                        sink += s.serialize(rows.get(i)).length;
                    }
                    return sink;
                };
            }));
        }
        out.put("peak_rss_kib", peakRssKib());
        out.put("java_version", System.getProperty("java.version"));
    }

    /**
     * The generated message class under {@code classes} whose descriptor is {@code fullName} (a
     * nested message is {@code Outer$Inner}, whatever the file's java options made of it).
     */
    private static Class<?> messageClass(Path classes, String fullName) throws Exception {
        List<Path> files;
        try (java.util.stream.Stream<Path> walk = Files.walk(classes)) {
            files = walk.filter(p -> p.toString().endsWith(".class")).sorted().collect(java.util.stream.Collectors.toList());
        }
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        for (Path file : files) {
            String relative = classes.relativize(file).toString();
            String name = relative.substring(0, relative.length() - ".class".length()).replace('/', '.');
            Class<?> c = Class.forName(name, false, loader);
            if (!com.google.protobuf.Message.class.isAssignableFrom(c)
                    || java.lang.reflect.Modifier.isAbstract(c.getModifiers())) {
                continue;
            }
            Object descriptor = c.getMethod("getDescriptor").invoke(null);
            if (((com.google.protobuf.Descriptors.Descriptor) descriptor).getFullName().equals(fullName)) {
                return c;
            }
        }
        throw new HarnessFailure("no generated class of message " + fullName + " under " + classes, -1, null);
    }

    /**
     * Confluent's message-index array of {@code messageClass}'s message: {@code 0} for the first
     * top-level message, else the zig-zag count and indexes from the top-level message down.
     */
    private static byte[] messageIndexes(Class<?> messageClass) throws Exception {
        com.google.protobuf.Descriptors.Descriptor d =
                (com.google.protobuf.Descriptors.Descriptor) messageClass.getMethod("getDescriptor").invoke(null);
        List<Integer> path = new ArrayList<>();
        for (com.google.protobuf.Descriptors.Descriptor at = d; at != null; at = at.getContainingType()) {
            path.add(0, at.getIndex());
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        if (path.size() == 1 && path.get(0) == 0) {
            out.write(0);
        } else {
            zigZag(path.size(), out);
            for (int i : path) {
                zigZag(i, out);
            }
        }
        return out.toByteArray();
    }

    private static void zigZag(int v, java.io.ByteArrayOutputStream out) {
        int z = (v << 1) ^ (v >> 31);
        while ((z & ~0x7f) != 0) {
            out.write((z & 0x7f) | 0x80);
            z >>>= 7;
        }
        out.write(z);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private interface Factory<T> {
        T make() throws HarnessFailure;
    }

    /** One message to its row ({@code null}: none), as the format hands it to the source. */
    private interface Decoder {
        RowData decode(byte[] message) throws Exception;
    }

    /** Keeps the first row a JSON message gives and counts them. */
    private static final class OneRow implements Collector<RowData> {
        RowData row;
        int rows;

        @Override
        public void collect(RowData record) {
            if (rows++ == 0) {
                row = record;
            }
        }

        @Override
        public void close() {}
    }

    private interface Pass {
        long run() throws Exception;
    }

    private interface PassFactory {
        Pass make(int thread, int threads) throws HarnessFailure;
    }

    private static ObjectNode measure(
            String what, int threads, int trials, long warmupMs, long minTrialNs, long records, long bytes, PassFactory factory)
            throws Exception {
        Pass[] passes = new Pass[threads];
        for (int t = 0; t < threads; t++) {
            passes[t] = factory.make(t, threads);
        }
        System.err.println("progress: stock " + what + ": warming up");
        long once = trial(passes, 1);
        long warmEnd = System.nanoTime() + warmupMs * 1_000_000L;
        while (System.nanoTime() < warmEnd) {
            once = Math.min(once, trial(passes, 1));
        }
        long reps = Math.min(1_000_000L, minTrialNs / Math.max(1, once) + 1);
        ArrayNode times = JSON.createArrayNode();
        for (int i = 0; i < trials; i++) {
            System.err.println("progress: stock " + what + ": trial " + (i + 1) + "/" + trials + " (" + reps + " passes)");
            times.add(trial(passes, reps));
        }
        // One single-threaded pass for the allocated bytes.
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Pass single = factory.make(0, 1);
        single.run();
        long before = mx.getCurrentThreadAllocatedBytes();
        single.run();
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;

        ObjectNode node = JSON.createObjectNode();
        node.put("records", records);
        node.put("bytes", bytes);
        node.put("reps", reps);
        node.set("trial_ns", times);
        node.put("alloc_bytes_per_record", records == 0 ? 0.0 : (double) allocated / records);
        return node;
    }

    private static long trial(Pass[] passes, long reps) throws Exception {
        if (passes.length == 1) {
            long start = System.nanoTime();
            for (long r = 0; r < reps; r++) {
                passes[0].run();
            }
            return System.nanoTime() - start;
        }
        Thread[] threads = new Thread[passes.length];
        Exception[] failure = new Exception[1];
        long start = System.nanoTime();
        for (int t = 0; t < passes.length; t++) {
            Pass p = passes[t];
            threads[t] = new Thread(() -> {
                try {
                    for (long r = 0; r < reps; r++) {
                        p.run();
                    }
                } catch (Exception e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        long elapsed = System.nanoTime() - start;
        if (failure[0] != null) {
            throw failure[0];
        }
        return elapsed;
    }

    /** Writes {@code 0x00} and a fixed schema id: what Confluent's coder writes once the id is cached. */
    private static final class FixedIdCoderProvider implements SchemaCoder.SchemaCoderProvider {
        private static final long serialVersionUID = 1L;
        private final int id;

        FixedIdCoderProvider(int id) {
            this.id = id;
        }

        @Override
        public SchemaCoder get() {
            byte[] header = ByteBuffer.allocate(5).put((byte) 0).putInt(id).array();
            return new SchemaCoder() {
                @Override
                public Schema readSchema(InputStream in) throws IOException {
                    throw new IOException("the bench encoder does not read");
                }

                @Override
                public void writeSchema(Schema schema, OutputStream out) throws IOException {
                    out.write(header);
                }
            };
        }
    }

    private static byte[][] readMessages(Path path) throws IOException {
        List<byte[]> out = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(path)))) {
            while (true) {
                int first = in.read();
                if (first < 0) {
                    break;
                }
                int len = (first << 24) | (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
                if (len == -1) {
                    out.add(null);
                } else {
                    byte[] m = new byte[len];
                    in.readFully(m);
                    out.add(m);
                }
            }
        }
        return out.toArray(new byte[0][]);
    }

    private static long peakRssKib() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.substring(6).replace("kB", "").trim());
                }
            }
        } catch (IOException | NumberFormatException e) {
            // Not Linux: no figure.
        }
        return -1;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        StringBuilder sb = new StringBuilder(String.valueOf(e.getMessage()));
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
            sb.append(": ").append(t.getMessage());
        }
        return sb.toString().replace('\n', ' ');
    }

    private static String hex(byte[] bytes) {
        StringBuilder sb = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) {
            sb.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
        }
        return sb.toString();
    }

    /** A row as the canonical text of {@code cli/src/commands/bench/render.rs}. */
    static String render(RowData row, RowType type) {
        StringBuilder sb = new StringBuilder();
        renderRow(row, type, sb);
        return sb.toString();
    }

    private static void renderRow(RowData row, RowType type, StringBuilder sb) {
        sb.append('(');
        List<LogicalType> fields = type.getChildren();
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            Object v = row.isNullAt(i) ? null : RowData.createFieldGetter(fields.get(i), i).getFieldOrNull(row);
            renderValue(v, fields.get(i), sb);
        }
        sb.append(')');
    }

    private static void renderValue(Object v, LogicalType type, StringBuilder sb) {
        if (v == null) {
            sb.append("null");
            return;
        }
        switch (type.getTypeRoot()) {
            case NULL:
                sb.append("null");
                break;
            case BOOLEAN:
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
            case INTERVAL_YEAR_MONTH:
            case INTERVAL_DAY_TIME:
                sb.append(v);
                break;
            case FLOAT:
                sb.append(String.format("f:%08x", Float.floatToRawIntBits((Float) v)));
                break;
            case DOUBLE:
                sb.append(String.format("d:%016x", Double.doubleToRawLongBits((Double) v)));
                break;
            case CHAR:
            case VARCHAR:
                renderString(((StringData) v).toString(), sb);
                break;
            case BINARY:
            case VARBINARY:
                sb.append("x'").append(hex((byte[]) v)).append('\'');
                break;
            case DECIMAL:
                sb.append(((DecimalData) v).toBigDecimal().toPlainString());
                break;
            case DATE:
                sb.append("date:").append(v);
                break;
            case TIME_WITHOUT_TIME_ZONE:
                sb.append("time:").append(v);
                break;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                TimestampData ts = (TimestampData) v;
                sb.append("ts:").append(ts.getMillisecond()).append(':').append(ts.getNanoOfMillisecond());
                break;
            case ARRAY: {
                LogicalType element = ((ArrayType) type).getElementType();
                ArrayData array = (ArrayData) v;
                ArrayData.ElementGetter getter = ArrayData.createElementGetter(element);
                sb.append('[');
                for (int i = 0; i < array.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    renderValue(array.isNullAt(i) ? null : getter.getElementOrNull(array, i), element, sb);
                }
                sb.append(']');
                break;
            }
            case MAP:
            case MULTISET: {
                LogicalType keyType;
                LogicalType valueType;
                if (type instanceof MapType) {
                    keyType = ((MapType) type).getKeyType();
                    valueType = ((MapType) type).getValueType();
                } else {
                    keyType = ((MultisetType) type).getElementType();
                    valueType = new org.apache.flink.table.types.logical.IntType(false);
                }
                MapData map = (MapData) v;
                ArrayData keys = map.keyArray();
                ArrayData values = map.valueArray();
                ArrayData.ElementGetter kg = ArrayData.createElementGetter(keyType);
                ArrayData.ElementGetter vg = ArrayData.createElementGetter(valueType);
                String[][] entries = new String[map.size()][];
                for (int i = 0; i < map.size(); i++) {
                    StringBuilder k = new StringBuilder();
                    StringBuilder val = new StringBuilder();
                    renderValue(keys.isNullAt(i) ? null : kg.getElementOrNull(keys, i), keyType, k);
                    renderValue(values.isNullAt(i) ? null : vg.getElementOrNull(values, i), valueType, val);
                    entries[i] = new String[] {k.toString(), val.toString()};
                }
                Arrays.sort(entries, (a, b) -> Arrays.compareUnsigned(
                        a[0].getBytes(StandardCharsets.UTF_8), b[0].getBytes(StandardCharsets.UTF_8)));
                sb.append('{');
                for (int i = 0; i < entries.length; i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    sb.append(entries[i][0]).append('=').append(entries[i][1]);
                }
                sb.append('}');
                break;
            }
            case ROW:
                renderRow((RowData) v, (RowType) type, sb);
                break;
            default:
                sb.append("<unrendered ").append(type.asSummaryString()).append('>');
        }
    }

    private static void renderString(String s, StringBuilder sb) {
        sb.append('"');
        s.codePoints().forEach(cp -> {
            if (cp == '"') {
                sb.append("\\\"");
            } else if (cp == '\\') {
                sb.append("\\\\");
            } else if (cp < 0x20) {
                sb.append(String.format("\\u%04x", cp));
            } else {
                sb.appendCodePoint(cp);
            }
        });
        sb.append('"');
    }
}

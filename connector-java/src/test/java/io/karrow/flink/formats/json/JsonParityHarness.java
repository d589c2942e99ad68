package io.karrow.flink.formats.json;

import io.karrow.flink.testutils.TestInitContext;
import io.karrow.flink.formats.BatchDeserializationSchema;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.testutils.BatchDecoding;
import io.karrow.flink.testutils.RowDataDiff;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.SerializationFormatFactory;
import org.apache.flink.table.runtime.connector.sink.SinkRuntimeProviderContext;
import org.apache.flink.table.runtime.connector.source.ScanRuntimeProviderContext;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Runs Flink's {@code json} format (the oracle, flink-json 2.2.0) and karrow's {@code json-native}
 * side by side. Both are created exactly as a SQL table gets them: discovered by identifier through
 * {@link FactoryUtil}, {@code createDecodingFormat(context, options)} / {@code
 * createEncodingFormat(...)}, then {@code createRuntimeDecoder(...)} / {@code
 * createRuntimeEncoder(...)} for the table's physical row type.
 *
 * <p>Rows are compared with {@link RowDataDiff} after the oracle's rows have been converted to
 * {@link BinaryRowData} of the declared type (see {@link #asStored}).
 */
final class JsonParityHarness {

    /** Identifier of the oracle format. */
    static final String ORACLE = "json";
    /** Identifier of the format under test. */
    static final String NATIVE = "json-native";

    /**
     * With {@code -Dkarrow.json.oracle-only=true} the suites run the oracle alone (checking the
     * fixtures' expectations against Flink), for when json-native is not built yet.
     */
    static final boolean ORACLE_ONLY = Boolean.getBoolean("karrow.json.oracle-only");

    private JsonParityHarness() {}

    // ------------------------------------------------------------------------------------------
    // Options
    // ------------------------------------------------------------------------------------------

    /** One combination of the decode-side options. */
    record DecodeOptions(boolean jsonParser, boolean ignoreParseErrors, boolean failOnMissingField,
                         JsonCorpus.Standard standard) {

        /** The format options (keys without the format prefix, as the factory receives them). */
        Map<String, String> toMap() {
            Map<String, String> m = new LinkedHashMap<>();
            m.put("decode.json-parser.enabled", Boolean.toString(jsonParser));
            m.put("ignore-parse-errors", Boolean.toString(ignoreParseErrors));
            m.put("fail-on-missing-field", Boolean.toString(failOnMissingField));
            m.put("timestamp-format.standard", standard.option);
            return m;
        }

        /** Defaults of Flink, with the given timestamp standard. */
        static DecodeOptions defaults(JsonCorpus.Standard standard) {
            return new DecodeOptions(true, false, false, standard);
        }

        /** Every valid combination (fail-on-missing-field and ignore-parse-errors exclude each other): 12. */
        static List<DecodeOptions> all() {
            List<DecodeOptions> out = new ArrayList<>();
            for (JsonCorpus.Standard standard : JsonCorpus.Standard.values()) {
                for (boolean parser : new boolean[] {true, false}) {
                    out.add(new DecodeOptions(parser, false, false, standard));
                    out.add(new DecodeOptions(parser, true, false, standard));
                    out.add(new DecodeOptions(parser, false, true, standard));
                }
            }
            return out;
        }

        @Override
        public String toString() {
            return (jsonParser ? "parser" : "tree") + (ignoreParseErrors ? "+ignore-parse-errors" : "")
                    + (failOnMissingField ? "+fail-on-missing-field" : "") + "/" + standard.option;
        }
    }

    /** One combination of the encode-side options; {@code literal} null means the option is not set. */
    record EncodeOptions(String mapNullKeyMode, String literal, boolean decimalPlain, boolean ignoreNullFields,
                         JsonCorpus.Standard standard) {

        Map<String, String> toMap() {
            Map<String, String> m = new LinkedHashMap<>();
            m.put("map-null-key.mode", mapNullKeyMode);
            if (literal != null) {
                m.put("map-null-key.literal", literal);
            }
            m.put("encode.decimal-as-plain-number", Boolean.toString(decimalPlain));
            m.put("encode.ignore-null-fields", Boolean.toString(ignoreNullFields));
            m.put("timestamp-format.standard", standard.option);
            return m;
        }

        static EncodeOptions defaults() {
            return new EncodeOptions("FAIL", null, false, false, JsonCorpus.Standard.SQL);
        }

        /**
         * Every combination: map-null-key FAIL / DROP / LITERAL (default literal) / LITERAL (a
         * literal needing escapes) x decimal-as-plain-number x ignore-null-fields x both standards.
         */
        static List<EncodeOptions> all() {
            List<EncodeOptions> out = new ArrayList<>();
            String[][] modes = {{"FAIL", null}, {"DROP", null}, {"LITERAL", null}, {"literal", "nüll \"key\"\u0001😀"}};
            for (String[] mode : modes) {
                for (boolean plain : new boolean[] {false, true}) {
                    for (boolean ignoreNull : new boolean[] {false, true}) {
                        for (JsonCorpus.Standard standard : JsonCorpus.Standard.values()) {
                            out.add(new EncodeOptions(mode[0], mode[1], plain, ignoreNull, standard));
                        }
                    }
                }
            }
            return out;
        }

        @Override
        public String toString() {
            return "map-null-key=" + mapNullKeyMode + (literal == null ? "" : "(" + literal + ")")
                    + (decimalPlain ? "+decimal-as-plain-number" : "") + (ignoreNullFields ? "+ignore-null-fields" : "")
                    + "/" + standard.option;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Creating the formats as a SQL table does
    // ------------------------------------------------------------------------------------------

    /**
     * The factory context of a table whose physical columns are the fields of {@code rowType}; with
     * {@code metadataColumn} the table also declares a metadata column (so native formats must
     * produce {@code GenericRowData}, as Flink's Kafka connector casts to it).
     */
    static DynamicTableFactory.Context context(RowType rowType, boolean metadataColumn) {
        List<Column> columns = new ArrayList<>();
        for (RowType.RowField f : rowType.getFields()) {
            columns.add(Column.physical(f.getName(), TypeConversions.fromLogicalToDataType(f.getType())));
        }
        if (metadataColumn) {
            columns.add(Column.metadata("kafka_offset", DataTypes.BIGINT(), "offset", true));
        }
        ResolvedSchema schema = ResolvedSchema.of(columns);
        CatalogTable table = CatalogTable.newBuilder()
                .schema(org.apache.flink.table.api.Schema.newBuilder().fromResolvedSchema(schema).build())
                .options(Map.of("connector", "kafka"))
                .build();
        return new FactoryUtil.DefaultDynamicTableContext(
                ObjectIdentifier.of("default_catalog", "default_database", "t"), new ResolvedCatalogTable(table, schema),
                Map.of(), new Configuration(), Thread.currentThread().getContextClassLoader(), false);
    }

    /** The opened runtime decoder of format {@code identifier} for {@code rowType}. */
    static DeserializationSchema<RowData> decoder(String identifier, RowType rowType, Map<String, String> options,
                                                  boolean metadataColumn) throws Exception {
        DeserializationFormatFactory factory = FactoryUtil.discoverFactory(
                Thread.currentThread().getContextClassLoader(), DeserializationFormatFactory.class, identifier);
        DataType physical = TypeConversions.fromLogicalToDataType(rowType);
        DeserializationSchema<RowData> schema = factory
                .createDecodingFormat(context(rowType, metadataColumn), Configuration.fromMap(options))
                .createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, physical);
        schema.open(TestInitContext.INSTANCE);
        return schema;
    }

    /** The opened runtime encoder of format {@code identifier} for {@code rowType}. */
    static SerializationSchema<RowData> encoder(String identifier, RowType rowType, Map<String, String> options)
            throws Exception {
        SerializationFormatFactory factory = FactoryUtil.discoverFactory(
                Thread.currentThread().getContextClassLoader(), SerializationFormatFactory.class, identifier);
        DataType physical = TypeConversions.fromLogicalToDataType(rowType);
        SerializationSchema<RowData> schema = factory
                .createEncodingFormat(context(rowType, false), Configuration.fromMap(options))
                .createRuntimeEncoder(new SinkRuntimeProviderContext(false), physical);
        schema.open(TestInitContext.INSTANCE);
        return schema;
    }

    /** Releases a native schema's resources when it has a {@code close()} (Flink's interfaces have none). */
    static void closeQuietly(Object schema) {
        if (schema instanceof AutoCloseable) {
            try {
                ((AutoCloseable) schema).close();
            } catch (Exception ignored) {
                // best effort
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Decoding
    // ------------------------------------------------------------------------------------------

    /** What a decoder did with one Kafka value: the rows it emitted (possibly null rows), or an error. */
    static final class Outcome {
        final List<RowData> rows;
        final Throwable error;
        /** The decoder emitted rows without end (see {@link BoundedCollector}); only the oracle does. */
        final boolean runaway;
        /** The decoder did not return (see {@link OracleDecoder}); only the oracle does. */
        final boolean hung;

        Outcome(List<RowData> rows, Throwable error) {
            this(rows, error, false, false);
        }

        private Outcome(List<RowData> rows, Throwable error, boolean runaway, boolean hung) {
            this.rows = rows;
            this.error = error;
            this.runaway = runaway;
            this.hung = hung;
        }

        static Outcome runaway(List<RowData> rowsSoFar) {
            return new Outcome(rowsSoFar, null, true, false);
        }

        static Outcome hung() {
            return new Outcome(List.of(), null, false, true);
        }

        /** Flink gave no usable outcome: endless null records, or no return at all. */
        boolean endless() {
            return runaway || hung;
        }

        boolean failed() {
            return error != null;
        }

        boolean hasNullRow() {
            return rows.stream().anyMatch(r -> r == null);
        }

        String describe() {
            return describe(null);
        }

        /** The outcome, rows rendered field by field when {@code rowType} is given. */
        String describe(RowType rowType) {
            if (hung) {
                return "no outcome: flink-json never returns (it kept reading past the end of the input)";
            }
            if (runaway) {
                return "no outcome: flink-json emitted more than " + MAX_ROWS_PER_VALUE + " rows ("
                        + rows.stream().filter(r -> r == null).count() + " of the first ones null)";
            }
            String rowsText = rows.stream().map(r -> rowType == null || r == null ? String.valueOf(r) : show(rowType, r))
                    .collect(Collectors.joining(", ", "[", "]"));
            return error == null ? "rows " + rowsText
                    : "error (after rows " + rowsText + ") " + error.getClass().getSimpleName() + ": " + messages(error);
        }
    }

    /** Decodes one value record by record, through {@code deserialize(byte[], Collector)}. */
    static Outcome decode(DeserializationSchema<RowData> schema, byte[] value) {
        BoundedCollector rows = new BoundedCollector();
        MemoryGuard.current = value;
        try {
            schema.deserialize(value, rows);
            return rows.runaway ? Outcome.runaway(rows.rows) : new Outcome(rows.rows, null);
        } catch (Throwable t) {
            return rows.runaway ? Outcome.runaway(rows.rows) : new Outcome(rows.rows, t);
        }
    }

    /**
     * A safety net for the machine: native code that runs away allocating (as json-native once did
     * on a value where flink-json loops forever) would grow the process until the kernel's OOM
     * killer ends it, or another process. A daemon thread watches the resident size of this JVM and,
     * past the heap limit plus {@link #HEADROOM_BYTES}, prints the value being decoded and halts the
     * JVM (the test run then fails as a crashed fork, with that message in its output).
     */
    static final class MemoryGuard {
        static final long HEADROOM_BYTES = 4L << 30;
        /** The value most recently handed to a decoder. */
        static volatile byte[] current;

        static {
            Thread t = new Thread(MemoryGuard::watch, "json-parity-memory-guard");
            t.setDaemon(true);
            t.start();
        }

        static void ensureStarted() {}

        private static void watch() {
            long limit = Runtime.getRuntime().maxMemory() + HEADROOM_BYTES;
            java.nio.file.Path statm = java.nio.file.Paths.get("/proc/self/statm");
            if (!java.nio.file.Files.exists(statm)) {
                return;
            }
            while (true) {
                try {
                    Thread.sleep(20);
                    String[] fields = new String(java.nio.file.Files.readAllBytes(statm), StandardCharsets.US_ASCII).trim().split(" ");
                    long rss = Long.parseLong(fields[1]) * 4096L;
                    if (rss > limit) {
                        System.out.println("JSON PARITY: the process grew to " + (rss >> 20) + " MiB (limit " + (limit >> 20)
                                + " MiB) while decoding " + render(current) + "; halting before the machine runs out of memory");
                        System.out.flush();
                        System.err.println("JSON PARITY: memory runaway while decoding " + render(current));
                        System.err.flush();
                        Runtime.getRuntime().halt(97);
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    // keep watching
                }
            }
        }
    }

    static {
        MemoryGuard.ensureStarted();
    }

    /**
     * Native decoding of a value on which flink-json never finishes ({@link Outcome#endless()}), run
     * in a child JVM with an address-space limit and a time limit: a native decoder that loops
     * or allocates without end there (as json-native once did) fails that one check instead of
     * taking the test JVM, or the machine, down (the child has 1.5 GiB of address space). Few values are endless, so the JVM start-up cost is
     * small. The child prints the outcome as text lines; the parent compares them with the oracle's
     * rendered rows.
     */
    static final class Isolated {
        static final long TIMEOUT_SECONDS = 60;

        /**
         * The outcomes of json-native on {@code value}: element 0 per record, element 1 as a batch of
         * one (the child runs both in turn; when it dies during the first, both report that).
         */
        static Outcome[] decode(RowType rowType, Map<String, String> options, boolean generic, byte[] value)
                throws Exception {
            List<String> command = new ArrayList<>();
            command.add("/bin/sh");
            command.add("-c");
            command.add("ulimit -v 1572864; exec \"$0\" \"$@\"");
            command.add(java.nio.file.Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx192m");
            command.add("-XX:CompressedClassSpaceSize=64m");
            command.add("-XX:ReservedCodeCacheSize=48m");
            command.add("-XX:TieredStopAtLevel=1");
            command.add("-XX:+UseSerialGC");
            command.add("-Dkarrow.native.library=" + System.getProperty("karrow.native.library", ""));
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(Isolated.class.getName());
            command.add(rowType.asSerializableString());
            command.add(Boolean.toString(generic));
            command.add(value == null ? "null" : HexFormat.of().formatHex(value));
            options.forEach((k, v) -> command.add(k + "=" + v));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out;
            try (java.io.InputStream in = p.getInputStream()) {
                java.util.concurrent.CompletableFuture<byte[]> read =
                        java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                            try {
                                return in.readAllBytes();
                            } catch (java.io.IOException e) {
                                return new byte[0];
                            }
                        });
                if (!p.waitFor(TIMEOUT_SECONDS, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor();
                    Outcome timedOut = new Outcome(List.of(), new IllegalStateException(
                            "json-native did not return within " + TIMEOUT_SECONDS + " s (child JVM killed)"));
                    return new Outcome[] {timedOut, timedOut};
                }
                out = read.get(10, java.util.concurrent.TimeUnit.SECONDS);
            }
            String text = new String(out, StandardCharsets.UTF_8);
            Outcome[] outcomes = new Outcome[2];
            int path = -1;
            List<RowData> rows = new ArrayList<>();
            Throwable error = null;
            for (String line : text.split("\n")) {
                if (line.startsWith("BEGIN ")) {
                    path = line.equals("BEGIN batch") ? 1 : 0;
                    rows = new ArrayList<>();
                    error = null;
                } else if (line.startsWith("ROW ")) {
                    rows.add(ShownRow.of(line.substring(4)));
                } else if (line.startsWith("NULLROW")) {
                    rows.add(null);
                } else if (line.startsWith("ERROR ")) {
                    error = new java.io.IOException(line.substring(6));
                } else if (line.startsWith("END") && path >= 0) {
                    outcomes[path] = new Outcome(rows, error);
                }
            }
            boolean diedInFirst = outcomes[0] == null;
            for (int i = 0; i < 2; i++) {
                if (outcomes[i] == null) {
                    outcomes[i] = new Outcome(List.of(), new IllegalStateException("json-native crashed in the child JVM "
                            + "(exit " + p.exitValue() + (i == 1 && diedInFirst ? ", in the per-record path, before the batch "
                            + "path ran" : "") + "): " + (text.length() > 600 ? text.substring(0, 600) + "..." : text)
                            .replace('\n', ' ')));
                }
            }
            return outcomes;
        }

        /** Child entry point: decodes one value with json-native per record, then as a batch, printing the outcomes. */
        public static void main(String[] args) throws Exception {
            RowType rowType = (RowType) org.apache.flink.table.types.logical.utils.LogicalTypeParser.parse(
                    args[0], Isolated.class.getClassLoader());
            boolean generic = Boolean.parseBoolean(args[1]);
            byte[] value = args[2].equals("null") ? null : HexFormat.of().parseHex(args[2]);
            Map<String, String> options = new LinkedHashMap<>();
            for (int i = 3; i < args.length; i++) {
                String[] kv = args[i].split("=", 2);
                options.put(kv[0], kv[1]);
            }
            DeserializationSchema<RowData> schema = decoder(NATIVE, rowType, options, generic);
            for (boolean batch : new boolean[] {false, true}) {
                System.out.println(batch ? "BEGIN batch" : "BEGIN per-record");
                System.out.flush();
                Outcome o = batch ? decodeBatch(schema, rowType, java.util.Collections.singletonList(value)).get(0)
                        : JsonParityHarness.decode(schema, value);
                StringBuilder s = new StringBuilder();
                for (RowData r : o.rows) {
                    s.append(r == null ? "NULLROW\n" : "ROW " + show(rowType, r) + "\n");
                }
                if (o.error != null) {
                    s.append("ERROR ").append(messages(o.error).replace('\n', ' ')).append('\n');
                }
                s.append("END\n");
                System.out.print(s);
                System.out.flush();
            }
            Runtime.getRuntime().halt(0);
        }
    }

    /** A row known only by its rendering ({@link #show}), as a child JVM reported it. */
    interface ShownRow {
        /** The rendering. */
        String shown();

        /** A {@link RowData} that is only its rendering (any field access fails). */
        static RowData of(String shown) {
            return (RowData) java.lang.reflect.Proxy.newProxyInstance(ShownRow.class.getClassLoader(),
                    new Class<?>[] {RowData.class, ShownRow.class}, (proxy, method, args) -> {
                        switch (method.getName()) {
                            case "shown":
                            case "toString":
                                return shown;
                            case "hashCode":
                                return shown.hashCode();
                            case "equals":
                                return proxy == args[0];
                            default:
                                throw new UnsupportedOperationException("a row reported by the child JVM as text: " + shown);
                        }
                    });
        }
    }

    /** Most rows one Kafka value may yield before the decoder is considered to be running away. */
    static final int MAX_ROWS_PER_VALUE = 10_000;

    /** Collects rows; past {@link #MAX_ROWS_PER_VALUE} it flags a runaway and throws. */
    private static final class BoundedCollector implements org.apache.flink.util.Collector<RowData> {
        final List<RowData> rows = new ArrayList<>();
        boolean runaway;

        @Override
        public void collect(RowData row) {
            if (rows.size() >= MAX_ROWS_PER_VALUE) {
                runaway = true;
                throw new IllegalStateException("more than " + MAX_ROWS_PER_VALUE + " rows from one value");
            }
            rows.add(row);
        }

        @Override
        public void close() {}
    }

    /**
     * The oracle's decoder, guarded against flink-json never returning. The parser decoder with
     * ignore-parse-errors loops forever on some broken values: once Jackson has failed at the end of
     * the input, {@code nextToken()} returns null, and the loops of the MAP and ARRAY converters (and
     * of the top-level array) wait for an END token that never comes while the swallowed errors turn
     * every turn into a NULL entry (a MAP spins in place, an ARRAY or the top-level array grows until
     * the heap is gone). A SQL job would hang there. Every loop of those converters calls {@code
     * nextToken()} on each turn, and a decode that ends calls it at the end of the input a few times
     * at most; so the oracle's parsers are wrapped ({@link EndlessInputGuard}) and, after {@link
     * EndlessInputGuard#NULL_TOKENS} null tokens in a row, every further {@code nextToken()} throws.
     * flink-json swallows that too ({@code catch Throwable} under ignore-parse-errors) but each of its
     * loops then ends at its next turn, so the call returns; such values get a {@link Outcome#hung}
     * outcome. No thread is stopped (Thread.stop throws on Java 20+), so this works on every JVM.
     * The tree decoder reads a finite tree and is left unwrapped.
     */
    static final class OracleDecoder {
        private final RowType rowType;
        private final DeserializationSchema<RowData> schema;
        private final EndlessInputGuard guard;

        OracleDecoder(RowType rowType, Map<String, String> options) throws Exception {
            this.rowType = rowType;
            this.schema = decoder(ORACLE, rowType, options, false);
            this.guard = EndlessInputGuard.install(schema);
        }

        /** The oracle's outcome for {@code value}, as Flink stores rows ({@link #asStored}). */
        Outcome decode(byte[] value) throws Exception {
            if (guard != null) {
                guard.tripped = false;
            }
            Outcome outcome = JsonParityHarness.decode(schema, value);
            if (guard != null && guard.tripped) {
                return Outcome.hung();
            }
            return outcome.runaway ? outcome : asStored(rowType, outcome);
        }
    }

    /**
     * The JSON factory of a flink-json streaming decoder, replaced by a copy (same features and
     * limits) whose parsers forward everything to Jackson's and only count {@code nextToken()} calls
     * that return null in a row: past {@link #NULL_TOKENS} the input is known to be exhausted inside
     * a loop that never ends, and every further call throws {@link EndlessInput}.
     */
    static final class EndlessInputGuard
            extends org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonFactory {
        private static final long serialVersionUID = 1L;
        /** Far above {@link #MAX_ROWS_PER_VALUE}, so a top-level array of null rows is still a runaway. */
        static final int NULL_TOKENS = 1_000_000;

        /** Whether a parser of this factory gave up since the flag was last cleared. */
        transient volatile boolean tripped;

        private EndlessInputGuard(org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonFactory source) {
            super(source, source.getCodec());
        }

        /** Installs the guard in {@code schema}'s mapper if it is flink-json's streaming decoder; null otherwise. */
        static EndlessInputGuard install(DeserializationSchema<RowData> schema) throws ReflectiveOperationException {
            if (!(schema instanceof org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema)) {
                return null;
            }
            java.lang.reflect.Field mapperField =
                    org.apache.flink.formats.json.AbstractJsonDeserializationSchema.class.getDeclaredField("objectMapper");
            mapperField.setAccessible(true);
            org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper mapper =
                    (org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper) mapperField.get(schema);
            EndlessInputGuard guard = new EndlessInputGuard(mapper.getFactory());
            java.lang.reflect.Field factoryField =
                    org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper.class
                            .getDeclaredField("_jsonFactory");
            factoryField.setAccessible(true);
            factoryField.set(mapper, guard);
            guard.setCodec(mapper);
            if (mapper.getFactory() != guard) {
                throw new IllegalStateException("the oracle's JSON factory could not be replaced");
            }
            return guard;
        }

        @Override
        public org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser createParser(byte[] data)
                throws java.io.IOException {
            return new Counting(super.createParser(data));
        }

        @Override
        public org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser createParser(
                byte[] data, int offset, int length) throws java.io.IOException {
            return new Counting(super.createParser(data, offset, length));
        }

        /** Thrown by every {@code nextToken()} once a parser has given up. */
        static final class EndlessInput extends Error {
            private static final long serialVersionUID = 1L;

            EndlessInput() {
                super("flink-json kept reading past the end of the input (" + NULL_TOKENS + " null tokens)");
            }
        }

        private final class Counting
                extends org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.util.JsonParserDelegate {
            private int nulls;

            Counting(org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser parser) {
                super(parser);
            }

            @Override
            public org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken nextToken()
                    throws java.io.IOException {
                if (nulls >= NULL_TOKENS) {
                    tripped = true;
                    throw new EndlessInput();
                }
                org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken token = super.nextToken();
                nulls = token == null ? nulls + 1 : 0;
                return token;
            }
        }
    }

    /** Values per native batch call in the batch path. */
    static final int BATCH_SIZE = 257;

    /**
     * Decodes {@code values} through the batch API ({@code BatchDeserializationSchema
     * .createBatchDecoder()} over a {@link DirectValueBuffer}), {@link #BATCH_SIZE} values per call,
     * and gives one outcome per value. A batch that fails at value k (the exception's record index)
     * yields an error for k; values before k are decoded again as a batch of their own, as the
     * kafka-native source does, and decoding continues after k. Rows are deep-copied.
     */
    static List<Outcome> decodeBatch(DeserializationSchema<RowData> schema, RowType rowType, List<byte[]> values)
            throws Exception {
        RowDataSerializer copier = new RowDataSerializer(nullable(rowType));
        List<Outcome> out = new ArrayList<>(values.size());
        BatchDecoding.decodeAll(schema, values, BATCH_SIZE, new BatchDecoding.ValueResults() {
            @Override
            public void rows(List<RowData> rows) {
                List<RowData> copies = new ArrayList<>(rows.size());
                for (RowData row : rows) {
                    copies.add(row == null ? null : copier.copy(row));
                }
                out.add(new Outcome(copies, null));
            }

            @Override
            public void failed(Throwable error) {
                out.add(new Outcome(List.of(), error));
            }

            @Override
            public void beforeBatch(int start, int end) {
                MemoryGuard.current = ("<batch of values " + start + ".." + (end - 1) + ">").getBytes(StandardCharsets.UTF_8);
            }
        });
        return out;
    }

    // ------------------------------------------------------------------------------------------
    // Comparing
    // ------------------------------------------------------------------------------------------

    /**
     * {@code rowType} with every nested type nullable. The binary layout does not depend on
     * nullability; the copy lets {@link RowDataSerializer} and {@link RowDataDiff} read the NULLs that
     * flink-json puts into NOT NULL columns (the format does not enforce nullability).
     */
    static RowType nullable(RowType rowType) {
        synchronized (NULLABLE) {
            return NULLABLE.computeIfAbsent(rowType, t -> (RowType) nullableType(t));
        }
    }

    private static final Map<RowType, RowType> NULLABLE = new java.util.HashMap<>();
    private static final Map<RowType, RowDataSerializer> SERIALIZERS = new java.util.HashMap<>();

    /** A (cached, single-threaded use) serializer writing rows of {@code rowType} as Flink stores them. */
    static RowDataSerializer serializer(RowType rowType) {
        synchronized (SERIALIZERS) {
            return SERIALIZERS.computeIfAbsent(rowType, t -> new RowDataSerializer(nullable(t)));
        }
    }

    private static LogicalType nullableType(LogicalType t) {
        switch (t.getTypeRoot()) {
            case ROW:
                return new RowType(true, ((RowType) t).getFields().stream()
                        .map(f -> new RowType.RowField(f.getName(), nullableType(f.getType()), f.getDescription().orElse(null)))
                        .collect(Collectors.toList()));
            case ARRAY:
                return new ArrayType(true, nullableType(((ArrayType) t).getElementType()));
            case MAP:
                return new MapType(true, nullableType(((MapType) t).getKeyType()), nullableType(((MapType) t).getValueType()));
            case MULTISET:
                return new MultisetType(true, nullableType(((MultisetType) t).getElementType()));
            default:
                return t.copy(true);
        }
    }

    /**
     * The oracle's rows as Flink stores them. flink-json's rows are {@code GenericRowData} holding
     * whatever its converters produced, e.g. a TIMESTAMP(3) value with all 9 parsed fraction digits
     * (spec E1). Flink does not keep such a row as is: as soon as a row crosses an operator boundary,
     * a network shuffle or state, Flink writes it with {@link RowDataSerializer} as a {@link
     * BinaryRowData} of the declared type, which keeps only epoch millis for TIMESTAMP(p &lt;= 3)
     * (truncating), millis + nano-of-milli for p &gt; 3 (all 9 digits, whatever p is), milliseconds
     * for TIME, and DECIMAL at its declared precision. That binary row is what SQL operators see, so
     * it is the reference: native rows must equal it field by field (nothing is loosened; a native
     * value that differs from the stored form in any digit is a mismatch).
     */
    static Outcome asStored(RowType rowType, Outcome oracle) {
        RowDataSerializer serializer = serializer(rowType);
        List<RowData> rows = new ArrayList<>();
        for (RowData row : oracle.rows) {
            rows.add(row == null ? null : serializer.toBinaryRow(row).copy());
        }
        return new Outcome(rows, oracle.error);
    }

    /**
     * Compares the oracle's outcome (already {@link #asStored}) with native's for one value; null if
     * they agree. Agreement: both fail; or neither fails and the same rows come out in the same order
     * (no rows = the value was skipped). The deliberate divergences are handled by {@link
     * #nullRecordDivergence}.
     */
    static String compare(RowType rowType, boolean ignoreParseErrors, Outcome oracle, Outcome actual, byte[] value) {
        if (oracle.endless() || oracle.hasNullRow()) {
            return nullRecordDivergence(rowType, ignoreParseErrors, oracle, actual, value);
        }
        if (actual.hasNullRow()) {
            return "native emitted a null row: " + actual.describe(rowType);
        }
        if (oracle.failed() != actual.failed()) {
            return "oracle " + oracle.describe(rowType) + " / native " + actual.describe(rowType);
        }
        if (oracle.failed()) {
            if (actual.error instanceof UnsatisfiedLinkError || actual.error instanceof IllegalStateException
                    || actual.error instanceof NullPointerException || actual.error instanceof ClassCastException) {
                return "native broke instead of rejecting the value: " + actual.describe();
            }
            return null;
        }
        return sameRows(rowType, oracle.rows, actual, "oracle " + oracle.describe(rowType));
    }

    private static String sameRows(RowType rowType, List<RowData> expected, Outcome actual, String context) {
        if (expected.size() != actual.rows.size()) {
            return expected.size() + " rows expected / native " + actual.rows.size() + " rows: " + context + " / native "
                    + actual.describe(rowType);
        }
        RowType type = nullable(rowType);
        for (int i = 0; i < expected.size(); i++) {
            if (actual.rows.get(i) instanceof ShownRow) {
                String e = show(rowType, expected.get(i));
                String a = ((ShownRow) actual.rows.get(i)).shown();
                if (!e.equals(a)) {
                    return "row " + i + ": expected " + e + " but got " + a + " (" + context + ")";
                }
                continue;
            }
            String d = RowDataDiff.diffInOrder(type, expected.get(i), actual.rows.get(i));
            if (d != null) {
                return "row " + i + d + " (" + context + " / native " + actual.describe(rowType) + ")";
            }
        }
        return null;
    }

    /**
     * The documented divergences (docs/parity/json.md, "Decisions where karrow differs"). flink-json's
     * parser decoder emits a null {@code RowData} for a {@code null} element of a top-level array
     * (§1.3, E30) and, under ignore-parse-errors, for every message or array element that fails
     * (E51, {@code {"a":1} truncated}); a null row can only fail downstream. karrow never emits one:
     * <ul>
     *   <li>without ignore-parse-errors the value fails;
     *   <li>with ignore-parse-errors native emits exactly the oracle's rows without the nulls; when
     *       the value is not even syntactically valid JSON, karrow stops at the syntax error, so the
     *       oracle's rows before its first null are accepted too (Jackson sometimes resumes after a
     *       bad byte and fills more rows).
     * </ul>
     * Where flink-json never finishes a value (see {@link OracleDecoder}, {@link BoundedCollector})
     * native must return: without ignore-parse-errors it fails; with it, it emits the non-null rows
     * the oracle had emitted before it ran away (none when it hung) or stops earlier. Returns null
     * when native did that.
     */
    static String nullRecordDivergence(RowType rowType, boolean ignoreParseErrors, Outcome oracle, Outcome actual,
                                       byte[] value) {
        if (actual.hasNullRow()) {
            return "native emitted a null row: " + actual.describe(rowType);
        }
        String flink = "flink-json " + oracle.describe(rowType);
        if (!ignoreParseErrors) {
            return actual.failed() ? null : flink + " (divergence: native must fail) / native " + actual.describe(rowType);
        }
        if (actual.failed()) {
            return flink + " (divergence: with ignore-parse-errors native must not fail) / native " + actual.describe(rowType);
        }
        List<RowData> withoutNulls = oracle.rows.stream().filter(r -> r != null).collect(Collectors.toList());
        List<RowData> beforeFirstNull = new ArrayList<>();
        for (RowData r : oracle.rows) {
            if (r == null) {
                break;
            }
            beforeFirstNull.add(r);
        }
        if (oracle.endless()) {
            // accept the non-null rows seen, or any shorter prefix of them
            if (actual.rows.size() <= withoutNulls.size()
                    && sameRows(rowType, withoutNulls.subList(0, actual.rows.size()), actual, flink) == null) {
                return null;
            }
            return flink + " / native " + actual.describe(rowType) + " (divergence: native must emit a prefix of the "
                    + "non-null rows)";
        }
        String d = sameRows(rowType, withoutNulls, actual, flink + " without its null rows");
        if (d == null) {
            return null;
        }
        if (!isValidJson(value) && isPrefix(rowType, beforeFirstNull, actual)) {
            return null;
        }
        return "divergence rule broken: " + d;
    }

    /**
     * The second documented decision (docs/parity/json.md): under ignore-parse-errors, after a syntax
     * error karrow drops the rest of the message, keeping rows already read from a top-level array,
     * where Jackson sometimes resumes after the offending byte and fills more rows. True when
     * {@code value} is not valid JSON, ignore-parse-errors is on, native did not fail and emitted a
     * strict prefix of the oracle's rows (those before any null row).
     */
    static boolean stoppedAtSyntaxError(RowType rowType, boolean ignoreParseErrors, Outcome oracle, Outcome actual,
                                        byte[] value) {
        if (!ignoreParseErrors || oracle.failed() || actual.failed() || actual.hasNullRow() || isValidJson(value)) {
            return false;
        }
        List<RowData> beforeFirstNull = new ArrayList<>();
        for (RowData r : oracle.rows) {
            if (r == null) {
                break;
            }
            beforeFirstNull.add(r);
        }
        return actual.rows.size() < beforeFirstNull.size() && isPrefix(rowType, beforeFirstNull, actual);
    }

    private static boolean isPrefix(RowType rowType, List<RowData> rows, Outcome actual) {
        return actual.rows.size() <= rows.size()
                && sameRows(rowType, rows.subList(0, actual.rows.size()), actual, "") == null;
    }

    private static final org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper STRICT =
            org.apache.flink.util.jackson.JacksonMapperFactory.createObjectMapper().configure(
                    org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.json.JsonReadFeature
                            .ALLOW_UNESCAPED_CONTROL_CHARS.mappedFeature(), true);

    /** Whether {@code value} starts with one complete, syntactically valid JSON value (Flink's parser set-up). */
    static boolean isValidJson(byte[] value) {
        if (value == null || value.length == 0) {
            return false;
        }
        try {
            return STRICT.readTree(value) != null;
        } catch (Exception e) {
            return false;
        }
    }

    /** A row (any class) as text, field by field: {@code (a=1, s="x", ts=...)}. */
    static String show(RowType rowType, RowData row) {
        return show(nullable(rowType), (Object) row);
    }

    private static String show(LogicalType type, Object value) {
        if (value == null) {
            return "NULL";
        }
        if (value instanceof ShownRow) {
            return ((ShownRow) value).shown();
        }
        switch (type.getTypeRoot()) {
            case ROW: {
                RowType rt = (RowType) type;
                RowData row = (RowData) value;
                StringBuilder s = new StringBuilder("(");
                for (int i = 0; i < rt.getFieldCount(); i++) {
                    Object f = RowData.createFieldGetter(rt.getTypeAt(i), i).getFieldOrNull(row);
                    s.append(i > 0 ? ", " : "").append(rt.getFieldNames().get(i)).append('=').append(show(rt.getTypeAt(i), f));
                }
                return s.append(')').toString();
            }
            case ARRAY: {
                LogicalType e = ((ArrayType) type).getElementType();
                org.apache.flink.table.data.ArrayData a = (org.apache.flink.table.data.ArrayData) value;
                org.apache.flink.table.data.ArrayData.ElementGetter g = org.apache.flink.table.data.ArrayData.createElementGetter(e);
                StringBuilder s = new StringBuilder("[");
                for (int i = 0; i < a.size(); i++) {
                    s.append(i > 0 ? ", " : "").append(show(e, g.getElementOrNull(a, i)));
                }
                return s.append(']').toString();
            }
            case MAP:
            case MULTISET: {
                LogicalType k = type instanceof MapType ? ((MapType) type).getKeyType() : ((MultisetType) type).getElementType();
                LogicalType v = type instanceof MapType ? ((MapType) type).getValueType()
                        : new org.apache.flink.table.types.logical.IntType();
                org.apache.flink.table.data.MapData m = (org.apache.flink.table.data.MapData) value;
                org.apache.flink.table.data.ArrayData.ElementGetter kg = org.apache.flink.table.data.ArrayData.createElementGetter(k);
                org.apache.flink.table.data.ArrayData.ElementGetter vg = org.apache.flink.table.data.ArrayData.createElementGetter(v);
                StringBuilder s = new StringBuilder("{");
                for (int i = 0; i < m.size(); i++) {
                    s.append(i > 0 ? ", " : "").append(show(k, kg.getElementOrNull(m.keyArray(), i))).append(": ")
                            .append(show(v, vg.getElementOrNull(m.valueArray(), i)));
                }
                return s.append('}').toString();
            }
            case CHAR:
            case VARCHAR: {
                StringBuilder s = new StringBuilder("\"");
                value.toString().codePoints().forEach(cp -> {
                    if (cp < 0x20 || cp == '"' || cp == '\\' || cp == 0x7f || (cp >= 0xd800 && cp <= 0xdfff)) {
                        s.append(String.format("\\u%04x", cp));
                    } else {
                        s.appendCodePoint(cp);
                    }
                });
                return s.append('"').toString();
            }
            case BINARY:
            case VARBINARY:
                return "x'" + HexFormat.of().formatHex((byte[]) value) + "'";
            case DECIMAL: {
                org.apache.flink.table.data.DecimalData d = (org.apache.flink.table.data.DecimalData) value;
                return d.toBigDecimal().toPlainString() + "(p" + d.precision() + ",s" + d.scale() + ")";
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                org.apache.flink.table.data.TimestampData t = (org.apache.flink.table.data.TimestampData) value;
                return t.toLocalDateTime() + (t.getNanoOfMillisecond() == 0 ? "" : "[+" + t.getNanoOfMillisecond() + "ns]")
                        + (type.getTypeRoot() == org.apache.flink.table.types.logical.LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE ? "Z" : "");
            }
            case DATE:
                return java.time.LocalDate.ofEpochDay((Integer) value).toString();
            case TIME_WITHOUT_TIME_ZONE:
                return java.time.LocalTime.ofNanoOfDay((Integer) value * 1_000_000L).toString();
            case FLOAT:
                return value + "f";
            default:
                return String.valueOf(value);
        }
    }

    /** With {@code -Dkarrow.json.full-input=true} mismatch reports show whole values (text and hex). */
    private static final int RENDER_LIMIT = Boolean.getBoolean("karrow.json.full-input") ? Integer.MAX_VALUE / 4 : 400;

    /** The value as readable text (escaped) and, when short, as hex. */
    static String render(byte[] value) {
        if (value == null) {
            return "<null value (tombstone)>";
        }
        String text = new String(value, 0, Math.min(value.length, RENDER_LIMIT), StandardCharsets.UTF_8);
        StringBuilder s = new StringBuilder("text '");
        text.codePoints().forEach(cp -> {
            if (cp < 0x20 || cp == 0x7f || cp == 0xfffd) {
                s.append(String.format("\\u%04x", cp));
            } else {
                s.appendCodePoint(cp);
            }
        });
        s.append(value.length > RENDER_LIMIT ? "...' (" + value.length + " bytes)" : "'");
        int hexLimit = RENDER_LIMIT == 400 ? 160 : RENDER_LIMIT;
        s.append(" hex ").append(HexFormat.of().formatHex(value, 0, Math.min(value.length, hexLimit)));
        if (value.length > hexLimit) {
            s.append("...");
        }
        return s.toString();
    }

    /** Messages of an exception and its causes. */
    static String messages(Throwable t) {
        StringBuilder s = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            String m = String.valueOf(c.getMessage());
            s.append(c.getClass().getSimpleName()).append(": ").append(m.length() > 300 ? m.substring(0, 300) + "..." : m)
                    .append(" | ");
        }
        return s.toString();
    }
}

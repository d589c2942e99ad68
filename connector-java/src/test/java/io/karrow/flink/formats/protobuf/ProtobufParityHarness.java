package io.karrow.flink.formats.protobuf;

import io.karrow.flink.testutils.TestInitContext;
import io.karrow.flink.formats.BatchDeserializationSchema;
import io.karrow.flink.formats.BatchSerializationSchema;
import io.karrow.flink.formats.ValueBatchEncoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.rows.BinaryRowImages;
import io.karrow.flink.testutils.BatchDecoding;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.SerializationFormatFactory;
import org.apache.flink.table.runtime.connector.sink.SinkRuntimeProviderContext;
import org.apache.flink.table.runtime.connector.source.ScanRuntimeProviderContext;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.util.Collector;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs Flink's {@code protobuf} format (the oracle, flink-protobuf 2.2.0) and karrow's {@code
 * protobuf-native} side by side. Both are created as a SQL table gets them: discovered by identifier
 * through {@link FactoryUtil}, {@code createDecodingFormat(context, options)} / {@code
 * createEncodingFormat(...)}, then {@code createRuntimeDecoder(...)} / {@code createRuntimeEncoder(...)}
 * for the table's physical row type, and opened.
 *
 * <p>Rows are compared through a canonical tree ({@link #canonical}), built from any row class
 * (Flink's {@code GenericRowData} holding whatever its generated code stored, native's {@code
 * BinaryRowData}): rows and arrays as lists, maps as maps (entry order is not compared; duplicate
 * keys are), strings by their UTF-8 bytes, floats by their raw bits, every value tagged with its
 * Java class when it is not the class the column's type calls for. Nothing is loosened beyond the
 * one decision docs/parity/protobuf.md documents, applied by name: {@link #oracleRow} (enum into
 * BIGINT).
 */
final class ProtobufParityHarness {

    /** Identifier of the oracle format. */
    static final String ORACLE = "protobuf";

    /**
     * Identifier of the format under test; {@code -Dkarrow.protobuf.native=protobuf} runs the suites
     * oracle against oracle (to validate the harness itself; the batch paths are then skipped).
     */
    static final String NATIVE = System.getProperty("karrow.protobuf.native", "protobuf-native");

    /** Whether the format under test is the oracle itself (harness self-check). */
    static boolean selfCheck() {
        return NATIVE.equals(ORACLE);
    }

    /** The text every decode failure of Flink carries (top-level IOException). */
    static final String DECODE_ERROR = "Failed to deserialize PB object.";

    private ProtobufParityHarness() {}

    // ------------------------------------------------------------------------------------------
    // Options
    // ------------------------------------------------------------------------------------------

    /** One combination of the decode-side options. */
    record DecodeOptions(boolean readDefaultValues, boolean ignoreParseErrors) {

        Map<String, String> toMap(String messageClass) {
            Map<String, String> m = new LinkedHashMap<>();
            m.put("message-class-name", messageClass);
            m.put("read-default-values", Boolean.toString(readDefaultValues));
            m.put("ignore-parse-errors", Boolean.toString(ignoreParseErrors));
            return m;
        }

        /** The four combinations, Flink's defaults first. */
        static List<DecodeOptions> all() {
            return List.of(new DecodeOptions(false, false), new DecodeOptions(true, false), new DecodeOptions(false, true),
                    new DecodeOptions(true, true));
        }

        @Override
        public String toString() {
            return "rdv=" + readDefaultValues + (ignoreParseErrors ? "+ignore-parse-errors" : "");
        }
    }

    /** The encode-side options; {@code literal} null means write-null-string-literal is not set. */
    static Map<String, String> encodeOptions(String messageClass, String literal) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("message-class-name", messageClass);
        if (literal != null) {
            m.put("write-null-string-literal", literal);
        }
        return m;
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
            columns.add(Column.metadata("kafka_offset", org.apache.flink.table.api.DataTypes.BIGINT(), "offset", true));
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

    /** CPU seconds this JVM has used (all threads). */
    static double processCpuSeconds() {
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean
                ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime() / 1e9 : -1;
    }

    /** Nanoseconds spent creating and opening schemas, per identifier (for the timing lines of the suites). */
    static final Map<String, Long> OPEN_NANOS = new java.util.concurrent.ConcurrentHashMap<>();

    /** The opened runtime decoder of format {@code identifier} for {@code rowType}. */
    static DeserializationSchema<RowData> decoder(String identifier, RowType rowType, Map<String, String> options)
            throws Exception {
        return decoder(identifier, rowType, options, false);
    }

    /** The opened runtime decoder for a table with ({@code metadataColumn}) or without a metadata column. */
    static DeserializationSchema<RowData> decoder(String identifier, RowType rowType, Map<String, String> options,
                                                  boolean metadataColumn) throws Exception {
        long started = System.nanoTime();
        try {
            return openDecoder(identifier, rowType, options, metadataColumn);
        } finally {
            OPEN_NANOS.merge(identifier, System.nanoTime() - started, Long::sum);
        }
    }

    private static DeserializationSchema<RowData> openDecoder(String identifier, RowType rowType,
                                                              Map<String, String> options, boolean metadataColumn)
            throws Exception {
        DeserializationFormatFactory factory = FactoryUtil.discoverFactory(
                Thread.currentThread().getContextClassLoader(), DeserializationFormatFactory.class, identifier);
        DataType physical = TypeConversions.fromLogicalToDataType(rowType);
        DeserializationSchema<RowData> schema = factory
                .createDecodingFormat(context(rowType, metadataColumn), Configuration.fromMap(options))
                .createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, physical);
        try {
            schema.open(TestInitContext.INSTANCE);
        } catch (Exception | Error e) {
            closeQuietly(schema);
            throw e;
        }
        return schema;
    }

    /** The opened runtime encoder of format {@code identifier} for {@code rowType}. */
    static SerializationSchema<RowData> encoder(String identifier, RowType rowType, Map<String, String> options)
            throws Exception {
        long started = System.nanoTime();
        try {
            return openEncoder(identifier, rowType, options);
        } finally {
            OPEN_NANOS.merge(identifier, System.nanoTime() - started, Long::sum);
        }
    }

    private static SerializationSchema<RowData> openEncoder(String identifier, RowType rowType,
                                                            Map<String, String> options) throws Exception {
        SerializationFormatFactory factory = FactoryUtil.discoverFactory(
                Thread.currentThread().getContextClassLoader(), SerializationFormatFactory.class, identifier);
        DataType physical = TypeConversions.fromLogicalToDataType(rowType);
        SerializationSchema<RowData> schema = factory
                .createEncodingFormat(context(rowType, false), Configuration.fromMap(options))
                .createRuntimeEncoder(new SinkRuntimeProviderContext(false), physical);
        try {
            schema.open(TestInitContext.INSTANCE);
        } catch (Exception | Error e) {
            closeQuietly(schema);
            throw e;
        }
        return schema;
    }

    /** Releases a native schema's resources when it has a {@code close()}. */
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

    /** What a decoder did with one value: its rows (canonical, see {@link #canonical}) or an error. */
    static final class Outcome {
        final List<Object> rows;
        final Throwable error;

        /** The classes of the emitted rows (per-record path), or null. */
        final List<Class<?>> rowClasses;

        Outcome(List<Object> rows, Throwable error) {
            this(rows, error, null);
        }

        Outcome(List<Object> rows, Throwable error, List<Class<?>> rowClasses) {
            this.rows = rows;
            this.error = error;
            this.rowClasses = rowClasses;
        }

        boolean failed() {
            return error != null;
        }

        String describe() {
            return error == null ? "rows " + rows : "error (after rows " + rows + ") " + messages(error);
        }
    }

    /** Decodes one value through {@code deserialize(byte[], Collector)}, canonicalizing each row as it comes. */
    static Outcome decode(DeserializationSchema<RowData> schema, RowType rowType, byte[] value) {
        List<Object> rows = new ArrayList<>();
        List<Class<?>> classes = new ArrayList<>();
        boolean oracle = isOracle(schema);
        Collector<RowData> collector = new Collector<>() {
            @Override
            public void collect(RowData row) {
                rows.add(oracle ? oracleRow(rowType, row) : canonicalRow(rowType, row));
                classes.add(row == null ? null : row.getClass());
            }

            @Override
            public void close() {}
        };
        try {
            schema.deserialize(value, collector);
            return new Outcome(rows, null, classes);
        } catch (Throwable t) {
            return new Outcome(rows, t, classes);
        }
    }

    /** Values per native batch call. */
    static final int BATCH_SIZE = 257;

    /**
     * Decodes {@code values} through {@code BatchDeserializationSchema.createBatchDecoder()} over a
     * {@link DirectValueBuffer}, {@link #BATCH_SIZE} values per call, one outcome per value. A batch
     * failing at value k (the exception's record index) gives an error for k; the values before k are
     * decoded again as a batch of their own, as the kafka-native source does, and decoding continues
     * after k.
     */
    static List<Outcome> decodeBatch(DeserializationSchema<RowData> schema, RowType rowType, List<byte[]> values)
            throws Exception {
        List<Outcome> out = new ArrayList<>(values.size());
        BatchDecoding.decodeAll(schema, values, BATCH_SIZE, new BatchDecoding.ValueResults() {
            @Override
            public void rows(List<RowData> rows) {
                List<Object> canonical = new ArrayList<>(rows.size());
                for (RowData row : rows) {
                    canonical.add(canonicalRow(rowType, row));
                }
                out.add(new Outcome(canonical, null));
            }

            @Override
            public void failed(Throwable error) {
                out.add(new Outcome(List.of(), error));
            }
        });
        return out;
    }

    /**
     * Compares the oracle's outcome with native's for one value; null if they agree: both fail (and
     * native's error chain names {@link #DECODE_ERROR} when {@code checkMessage}), or neither fails
     * and the same canonical rows come out (no row = skipped).
     */
    static String compare(Outcome oracle, Outcome actual, boolean checkMessage) {
        if (agree(oracle, actual, checkMessage)) {
            return null;
        }
        return describeDifference(oracle, actual, checkMessage);
    }

    /** Whether the outcomes agree (see {@link #compare}); builds no text. */
    static boolean agree(Outcome oracle, Outcome actual, boolean checkMessage) {
        if (oracle.failed() != actual.failed()) {
            return false;
        }
        if (oracle.failed()) {
            return !(actual.error instanceof UnsatisfiedLinkError || actual.error instanceof IllegalStateException
                    || actual.error instanceof NullPointerException || actual.error instanceof ClassCastException
                    || actual.error instanceof AssertionError)
                    && (!checkMessage || messages(actual.error).contains(DECODE_ERROR));
        }
        return oracle.rows.equals(actual.rows);
    }

    private static String describeDifference(Outcome oracle, Outcome actual, boolean checkMessage) {
        if (oracle.failed() != actual.failed()) {
            return "flink " + oracle.describe() + " / native " + actual.describe();
        }
        if (oracle.failed()) {
            if (actual.error instanceof UnsatisfiedLinkError || actual.error instanceof IllegalStateException
                    || actual.error instanceof NullPointerException || actual.error instanceof ClassCastException
                    || actual.error instanceof AssertionError) {
                return "native broke instead of rejecting the value: " + actual.describe();
            }
            if (checkMessage && !messages(actual.error).contains(DECODE_ERROR)) {
                return "native error does not say '" + DECODE_ERROR + "': " + messages(actual.error) + " (flink: "
                        + messages(oracle.error) + ")";
            }
            return null;
        }
        if (!oracle.rows.equals(actual.rows)) {
            String where = oracle.rows.size() == actual.rows.size() && oracle.rows.size() == 1
                    ? " first difference at " + firstDifference("", oracle.rows.get(0), actual.rows.get(0)) : "";
            return "rows differ" + where + ": flink " + oracle.describe() + " / native " + actual.describe();
        }
        return null;
    }

    // ------------------------------------------------------------------------------------------
    // Canonical form
    // ------------------------------------------------------------------------------------------

    /** A row: its kind and its fields. */
    record CRow(String kind, List<Object> fields) {
        @Override
        public String toString() {
            return (kind.equals("+I") ? "" : kind) + "(" + String.join(", ", fields.stream().map(String::valueOf).toList())
                    + ")";
        }
    }

    /** An array. */
    record CArray(List<Object> items) {
        @Override
        public String toString() {
            return items.toString();
        }
    }

    /**
     * A map: entries keyed by canonical key; {@code entries} counts duplicates too; {@code order} is
     * the keys in the map's own order (the order every encoder downstream writes), so maps compare in
     * order: flink-protobuf builds a {@code HashMap}, whose order native decoders reproduce.
     */
    record CMap(Map<Object, Object> map, int entries, List<Object> order) {
        @Override
        public String toString() {
            Map<String, Object> sorted = new TreeMap<>();
            map.forEach((k, v) -> sorted.put(String.valueOf(k), v));
            return sorted + (entries != map.size() ? "<" + entries + " entries: duplicate keys>" : "");
        }
    }

    /** Bytes compared by content (a byte[] wrapper with value equality). */
    abstract static class Blob {
        final byte[] bytes;
        private final int hash;

        Blob(byte[] bytes) {
            this.bytes = bytes;
            this.hash = Arrays.hashCode(bytes) * 31 + getClass().hashCode();
        }

        @Override
        public boolean equals(Object o) {
            return o != null && o.getClass() == getClass() && Arrays.equals(bytes, ((Blob) o).bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** A string by its UTF-8 bytes. */
    static final class CString extends Blob {
        CString(byte[] utf8) {
            super(utf8);
        }

        @Override
        public String toString() {
            String s = new String(bytes, StandardCharsets.UTF_8);
            if (!Arrays.equals(s.getBytes(StandardCharsets.UTF_8), bytes)) {
                return "'<invalid UTF-8 " + HexFormat.of().formatHex(bytes) + ">'";
            }
            StringBuilder out = new StringBuilder("'");
            s.codePoints().forEach(cp -> {
                if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) || cp == 0xfffd || cp == 0xfeff || cp == 0xffff) {
                    out.append(String.format("\\u%04x", cp));
                } else {
                    out.appendCodePoint(cp);
                }
            });
            return out.append('\'').toString();
        }
    }

    /** Bytes. */
    static final class CBytes extends Blob {
        CBytes(byte[] bytes) {
            super(bytes.clone());
        }

        @Override
        public String toString() {
            return "x'" + HexFormat.of().formatHex(bytes) + "'";
        }
    }

    /** A FLOAT by its raw bits. */
    record CFloat(int bits) {
        @Override
        public String toString() {
            float f = Float.intBitsToFloat(bits);
            return (Float.isNaN(f) ? "NaN[" + Integer.toHexString(bits) + "]" : f) + "f";
        }
    }

    /** A DOUBLE by its raw bits. */
    record CDouble(long bits) {
        @Override
        public String toString() {
            double d = Double.longBitsToDouble(bits);
            return Double.isNaN(d) ? "NaN[" + Long.toHexString(bits) + "]" : Double.toString(d);
        }
    }

    /** A value whose Java class is not the one the column type calls for. */
    record COdd(String javaClass, String value) {
        @Override
        public String toString() {
            return value + "<" + javaClass + ">";
        }
    }

    /** Whether a decoder is Flink's own (its rows get {@link #oracleRow}). */
    static boolean isOracle(Object schema) {
        return schema.getClass().getName().startsWith("org.apache.flink.formats.protobuf.");
    }

    /** The canonical form of a top-level row. */
    static Object canonicalRow(RowType rowType, RowData row) {
        return row == null ? null : converter(rowType, false).apply(row);
    }

    /**
     * The canonical form of a row Flink decoded, with the one documented decision applied
     * (docs/parity/protobuf.md, "What karrow does", <b>Enum into BIGINT</b>): Flink stores an
     * enum's number in a BIGINT column as a Java {@code Integer} (which fails downstream with a
     * ClassCastException); karrow gives the number as a BIGINT, so such an {@code Integer} is
     * expected as the {@code Long} of the same value. Only enum fields can put an {@code Integer}
     * into a BIGINT column; every occurrence is counted in {@link #ENUM_BIGINT_DECISIONS}.
     */
    static Object oracleRow(RowType rowType, RowData row) {
        return row == null ? null : converter(rowType, true).apply(row);
    }

    /** How many Flink values the enum-into-BIGINT decision turned from Integer to Long. */
    static final java.util.concurrent.atomic.AtomicLong ENUM_BIGINT_DECISIONS = new java.util.concurrent.atomic.AtomicLong();

    /** The canonical form of an internal value of type {@code t} (null stays null). */
    static Object canonical(LogicalType t, Object v) {
        return v == null ? null : converter(t, false).apply(v);
    }

    /** Converters per type instance (the corpora's row types are long-lived objects), plain and for Flink's rows. */
    private static final List<Map<LogicalType, java.util.function.Function<Object, Object>>> CONVERTERS = List.of(
            java.util.Collections.synchronizedMap(new java.util.IdentityHashMap<>()),
            java.util.Collections.synchronizedMap(new java.util.IdentityHashMap<>()));

    private static java.util.function.Function<Object, Object> converter(LogicalType t, boolean oracle) {
        Map<LogicalType, java.util.function.Function<Object, Object>> cache = CONVERTERS.get(oracle ? 1 : 0);
        java.util.function.Function<Object, Object> c = cache.get(t);
        if (c == null) {
            c = build(t, oracle);
            cache.put(t, c);
        }
        return c;
    }

    /** A converter of non-null internal values of type {@code t} to their canonical form. */
    private static java.util.function.Function<Object, Object> build(LogicalType t, boolean oracle) {
        switch (t.getTypeRoot()) {
            case ROW: {
                RowType rt = (RowType) t;
                int n = rt.getFieldCount();
                RowData.FieldGetter[] getters = new RowData.FieldGetter[n];
                List<java.util.function.Function<Object, Object>> fields = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    getters[i] = RowData.createFieldGetter(rt.getTypeAt(i), i);
                    fields.add(build(rt.getTypeAt(i), oracle));
                }
                return v -> {
                    if (!(v instanceof RowData)) {
                        return odd(v);
                    }
                    RowData row = (RowData) v;
                    if (row.getArity() != n) {
                        return new COdd(v.getClass().getSimpleName(), "row of arity " + row.getArity());
                    }
                    boolean generic = row instanceof GenericRowData;
                    List<Object> out = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        // generic rows: the stored object as is (no getter casts), so odd classes show
                        Object f = row.isNullAt(i) ? null
                                : generic ? ((GenericRowData) row).getField(i) : getters[i].getFieldOrNull(row);
                        out.add(f == null ? null : fields.get(i).apply(f));
                    }
                    return new CRow(row.getRowKind().shortString(), out);
                };
            }
            case ARRAY: {
                LogicalType e = ((ArrayType) t).getElementType();
                ArrayData.ElementGetter getter = ArrayData.createElementGetter(e);
                java.util.function.Function<Object, Object> element = build(e, oracle);
                return v -> {
                    if (!(v instanceof ArrayData)) {
                        return odd(v);
                    }
                    ArrayData a = (ArrayData) v;
                    List<Object> items = new ArrayList<>(a.size());
                    for (int i = 0; i < a.size(); i++) {
                        Object x = elementOf(a, i, getter);
                        items.add(x == null ? null : element.apply(x));
                    }
                    return new CArray(items);
                };
            }
            case MAP: {
                MapType mt = (MapType) t;
                ArrayData.ElementGetter kg = ArrayData.createElementGetter(mt.getKeyType());
                ArrayData.ElementGetter vg = ArrayData.createElementGetter(mt.getValueType());
                java.util.function.Function<Object, Object> key = build(mt.getKeyType(), oracle);
                java.util.function.Function<Object, Object> value = build(mt.getValueType(), oracle);
                return v -> {
                    if (!(v instanceof MapData)) {
                        return odd(v);
                    }
                    MapData m = (MapData) v;
                    ArrayData keys = m.keyArray();
                    ArrayData values = m.valueArray();
                    Map<Object, Object> out = new HashMap<>();
                    List<Object> order = new ArrayList<>();
                    for (int i = 0; i < m.size(); i++) {
                        Object k = elementOf(keys, i, kg);
                        Object x = elementOf(values, i, vg);
                        Object ck = k == null ? null : key.apply(k);
                        out.put(ck, x == null ? null : value.apply(x));
                        order.add(ck);
                    }
                    return new CMap(out, m.size(), order);
                };
            }
            case BOOLEAN:
                return v -> v instanceof Boolean ? v : odd(v);
            case INTEGER:
                return v -> v instanceof Integer ? v : odd(v);
            case BIGINT:
                if (oracle) {
                    return v -> {
                        if (v instanceof Integer) {
                            ENUM_BIGINT_DECISIONS.incrementAndGet();
                            return Long.valueOf((Integer) v);
                        }
                        return v instanceof Long ? v : odd(v);
                    };
                }
                return v -> v instanceof Long ? v : odd(v);
            case FLOAT:
                return v -> v instanceof Float ? new CFloat(Float.floatToRawIntBits((Float) v)) : odd(v);
            case DOUBLE:
                return v -> v instanceof Double ? new CDouble(Double.doubleToRawLongBits((Double) v)) : odd(v);
            case CHAR:
            case VARCHAR:
                return v -> v instanceof StringData ? new CString(((StringData) v).toBytes()) : odd(v);
            case BINARY:
            case VARBINARY:
                return v -> v instanceof byte[] ? new CBytes((byte[]) v) : odd(v);
            default:
                return ProtobufParityHarness::odd;
        }
    }

    private static COdd odd(Object v) {
        return new COdd(v.getClass().getName(), String.valueOf(v));
    }

    /** Element {@code i} as its stored object: raw for generic object arrays (no cast), else through a getter. */
    private static Object elementOf(ArrayData a, int i, ArrayData.ElementGetter getter) {
        if (a.isNullAt(i)) {
            return null;
        }
        if (a instanceof GenericArrayData && !((GenericArrayData) a).isPrimitiveArray()) {
            return ((GenericArrayData) a).toObjectArray()[i];
        }
        return getter.getElementOrNull(a, i);
    }

    /** The path of the first difference between two canonical values. */
    static String firstDifference(String path, Object e, Object a) {
        if (e == null || a == null || !e.getClass().equals(a.getClass())) {
            return (path.isEmpty() ? "<top>" : path) + ": " + e + " vs " + a;
        }
        if (e instanceof CRow) {
            List<Object> ef = ((CRow) e).fields;
            List<Object> af = ((CRow) a).fields;
            if (!((CRow) e).kind.equals(((CRow) a).kind) || ef.size() != af.size()) {
                return path + ": " + e + " vs " + a;
            }
            for (int i = 0; i < ef.size(); i++) {
                if (!java.util.Objects.equals(ef.get(i), af.get(i))) {
                    return firstDifference(path + "." + i, ef.get(i), af.get(i));
                }
            }
        } else if (e instanceof CArray) {
            List<Object> ei = ((CArray) e).items;
            List<Object> ai = ((CArray) a).items;
            if (ei.size() != ai.size()) {
                return path + ": size " + ei.size() + " vs " + ai.size() + ": " + e + " vs " + a;
            }
            for (int i = 0; i < ei.size(); i++) {
                if (!java.util.Objects.equals(ei.get(i), ai.get(i))) {
                    return firstDifference(path + "[" + i + "]", ei.get(i), ai.get(i));
                }
            }
        } else if (e instanceof CMap) {
            CMap em = (CMap) e;
            CMap am = (CMap) a;
            if (em.entries != am.entries || !em.map.keySet().equals(am.map.keySet())) {
                return path + ": " + e + " vs " + a;
            }
            if (!em.order.equals(am.order)) {
                return path + ": entry order " + em.order + " vs " + am.order;
            }
            for (Map.Entry<Object, Object> entry : em.map.entrySet()) {
                if (!java.util.Objects.equals(entry.getValue(), am.map.get(entry.getKey()))) {
                    return firstDifference(path + "{" + entry.getKey() + "}", entry.getValue(), am.map.get(entry.getKey()));
                }
            }
        }
        return (path.isEmpty() ? "<top>" : path) + ": " + e + " vs " + a;
    }

    // ------------------------------------------------------------------------------------------
    // Encoding
    // ------------------------------------------------------------------------------------------

    /** What one serializer did with one row. */
    record Encoded(byte[] bytes, Throwable error) {
        static Encoded of(SerializationSchema<RowData> schema, RowData row) {
            try {
                return new Encoded(schema.serialize(row), null);
            } catch (Throwable t) {
                return new Encoded(null, t);
            }
        }

        String describe() {
            return error != null ? "error " + messages(error) : "bytes " + hex(bytes);
        }
    }

    /**
     * Encodes {@code rows} through {@code BatchSerializationSchema.createBatchEncoder()}: {@link
     * BinaryRowImages} in a {@link DirectValueBuffer}, {@link #BATCH_SIZE} rows per call. A batch
     * failing at row k gives an error for k, the rows before it are encoded again, and encoding
     * continues after k. A row that cannot be imaged (NULL map key when the encoder does not accept
     * them) gives an error for that row.
     */
    static List<Encoded> encodeBatch(SerializationSchema<RowData> schema, List<? extends RowData> rows) throws Exception {
        if (!(schema instanceof BatchSerializationSchema)) {
            throw new AssertionError(schema.getClass() + " does not implement BatchSerializationSchema");
        }
        List<Encoded> out = new ArrayList<>(rows.size());
        try (ValueBatchEncoder encoder = ((BatchSerializationSchema) schema).createBatchEncoder();
             DirectValueBuffer images = new DirectValueBuffer()) {
            BinaryRowImages imager =
                    new BinaryRowImages(encoder.rowType(), !encoder.acceptsNullMapKeys(), encoder.keepsJavaDetail());
            int start = 0;
            while (start < rows.size()) {
                int end = Math.min(rows.size(), start + BATCH_SIZE);
                images.clear();
                List<Integer> batch = new ArrayList<>();
                Map<Integer, Throwable> unimageable = new HashMap<>();
                for (int i = start; i < end; i++) {
                    try {
                        images.add(imager.image(rows.get(i)).clone());
                        batch.add(i);
                    } catch (RuntimeException e) {
                        unimageable.put(i, new IllegalArgumentException("not imaged for the batch encoder: " + e, e));
                    }
                }
                Encoded[] results = new Encoded[end - start];
                for (Map.Entry<Integer, Throwable> u : unimageable.entrySet()) {
                    results[u.getKey() - start] = new Encoded(null, u.getValue());
                }
                int done = 0;
                while (done < batch.size()) {
                    int count = batch.size() - done;
                    DirectValueBuffer part = images;
                    if (done > 0) {
                        part = new DirectValueBuffer();
                        for (int k = done; k < batch.size(); k++) {
                            part.add(imager.image(rows.get(batch.get(k))).clone());
                        }
                    }
                    int[] offsets = new int[count + 1];
                    try {
                        byte[] all = encoder.encode(part, count, offsets);
                        for (int k = 0; k < count; k++) {
                            results[batch.get(done + k) - start] = new Encoded(Arrays.copyOfRange(all, offsets[k], offsets[k + 1]),
                                    null);
                        }
                        done = batch.size();
                    } catch (Throwable t) {
                        int index = t instanceof KarrowNativeException ? ((KarrowNativeException) t).getRecordIndex() : -1;
                        if (index < 0 || index >= count) {
                            throw new AssertionError("batch encode failed without a valid record index (" + index + "): "
                                    + messages(t), t);
                        }
                        if (index > 0) {
                            DirectValueBuffer prefix = new DirectValueBuffer();
                            for (int k = done; k < done + index; k++) {
                                prefix.add(imager.image(rows.get(batch.get(k))).clone());
                            }
                            int[] o = new int[index + 1];
                            byte[] all = encoder.encode(prefix, index, o);
                            for (int k = 0; k < index; k++) {
                                results[batch.get(done + k) - start] = new Encoded(Arrays.copyOfRange(all, o[k], o[k + 1]), null);
                            }
                            prefix.close();
                        }
                        results[batch.get(done + index) - start] = new Encoded(null, t);
                        done += index + 1;
                    } finally {
                        if (part != images) {
                            part.close();
                        }
                    }
                }
                out.addAll(Arrays.asList(results));
                start = end;
            }
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------
    // Minimizing a mismatching value
    // ------------------------------------------------------------------------------------------

    /** Most predicate calls one {@link #minimize} makes. */
    static final int MINIMIZE_BUDGET = 600;

    /**
     * A smaller value on which {@code predicate} still holds (within {@link #MINIMIZE_BUDGET} calls): greedily drops top-level field records,
     * then field records inside length-delimited fields that parse as messages (fixing the lengths),
     * then trailing bytes, until nothing more can go. For the mismatch reports only.
     */
    static byte[] minimize(byte[] value, java.util.function.Predicate<byte[]> predicate) {
        int[] budget = {MINIMIZE_BUDGET};
        java.util.function.Predicate<byte[]> mismatch = v -> budget[0]-- > 0 && predicate.test(v);
        if (value == null || !mismatch.test(value)) {
            return value;
        }
        byte[] current = value;
        boolean changed = true;
        int rounds = 0;
        while (changed && rounds++ < 20) {
            changed = false;
            byte[] smaller = dropFields(current, mismatch, 0);
            if (smaller.length < current.length) {
                current = smaller;
                changed = true;
            }
            for (int cut = current.length - 1; cut >= 0 && current.length > 0; cut--) {
                byte[] shorter = Arrays.copyOf(current, cut);
                if (mismatch.test(shorter)) {
                    current = shorter;
                    changed = true;
                } else {
                    break;
                }
            }
        }
        return current;
    }

    /** {@code bytes} with field records removed (recursively) while {@code mismatch} holds for the whole value. */
    private static byte[] dropFields(byte[] bytes, java.util.function.Predicate<byte[]> mismatch, int depth) {
        List<int[]> records = records(bytes);
        if (records == null) {
            return bytes;
        }
        byte[] current = bytes;
        for (int i = records.size() - 1; i >= 0; i--) {
            List<int[]> now = records(current);
            if (now == null || i >= now.size()) {
                continue;
            }
            int[] rec = now.get(i);
            byte[] without = concat(Arrays.copyOfRange(current, 0, rec[0]),
                    Arrays.copyOfRange(current, rec[1], current.length));
            if (mismatch.test(without)) {
                current = without;
                continue;
            }
            if (rec[2] == 2 && depth < 6) {
                // a length-delimited record: try to shrink the message inside it
                byte[] payload = Arrays.copyOfRange(current, rec[3], rec[1]);
                byte[] head = Arrays.copyOfRange(current, rec[0], rec[4]);
                byte[] before = Arrays.copyOfRange(current, 0, rec[0]);
                byte[] after = Arrays.copyOfRange(current, rec[1], current.length);
                byte[] inner = dropFields(payload, p -> mismatch.test(withPayload(before, head, p, after)), depth + 1);
                if (inner.length < payload.length) {
                    current = withPayload(before, head, inner, after);
                }
            }
        }
        return current;
    }

    private static byte[] withPayload(byte[] before, byte[] tag, byte[] payload, byte[] after) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.writeBytes(before);
        out.writeBytes(tag);
        ProtobufCorpus.varint(out, payload.length);
        out.writeBytes(payload);
        out.writeBytes(after);
        return out.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /**
     * The field records of a message: {start, end, wire type, payload start, tag end}; null when the
     * bytes do not split into well-formed records.
     */
    private static List<int[]> records(byte[] b) {
        List<int[]> out = new ArrayList<>();
        int[] pos = {0};
        while (pos[0] < b.length) {
            int start = pos[0];
            long tag = readVarint(b, pos);
            if (tag < 0 || (tag >>> 3) == 0) {
                return null;
            }
            int tagEnd = pos[0];
            int wt = (int) (tag & 7);
            int payloadStart = tagEnd;
            switch (wt) {
                case 0:
                    if (readVarint(b, pos) < 0 && pos[0] < 0) {
                        return null;
                    }
                    break;
                case 1:
                    pos[0] += 8;
                    break;
                case 5:
                    pos[0] += 4;
                    break;
                case 2: {
                    long len = readVarint(b, pos);
                    if (pos[0] < 0 || len < 0 || len > b.length) {
                        return null;
                    }
                    payloadStart = pos[0];
                    pos[0] += (int) len;
                    break;
                }
                case 3: {
                    int depth = 1;
                    while (depth > 0) {
                        if (pos[0] >= b.length) {
                            return null;
                        }
                        long t = readVarint(b, pos);
                        if (pos[0] < 0) {
                            return null;
                        }
                        int w = (int) (t & 7);
                        if (w == 3) {
                            depth++;
                        } else if (w == 4) {
                            depth--;
                        } else if (w == 0) {
                            readVarint(b, pos);
                        } else if (w == 1) {
                            pos[0] += 8;
                        } else if (w == 5) {
                            pos[0] += 4;
                        } else if (w == 2) {
                            long len = readVarint(b, pos);
                            if (pos[0] < 0 || len < 0 || len > b.length) {
                                return null;
                            }
                            pos[0] += (int) len;
                        } else {
                            return null;
                        }
                        if (pos[0] < 0 || pos[0] > b.length) {
                            return null;
                        }
                    }
                    break;
                }
                default:
                    return null;
            }
            if (pos[0] < 0 || pos[0] > b.length) {
                return null;
            }
            out.add(new int[] {start, pos[0], wt, payloadStart, tagEnd});
        }
        return out;
    }

    /** Reads a varint at {@code pos[0]}, advancing it; sets {@code pos[0] = -1} when malformed. */
    private static long readVarint(byte[] b, int[] pos) {
        long v = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (pos[0] < 0 || pos[0] >= b.length) {
                pos[0] = -1;
                return -1;
            }
            int x = b[pos[0]++] & 0xff;
            if (shift < 64) {
                v |= (long) (x & 0x7f) << shift;
            }
            if ((x & 0x80) == 0) {
                return v & Long.MAX_VALUE;
            }
        }
        pos[0] = -1;
        return -1;
    }

    // ------------------------------------------------------------------------------------------
    // Rendering
    // ------------------------------------------------------------------------------------------

    static String hex(byte[] value) {
        if (value == null) {
            return "<null value (tombstone)>";
        }
        return value.length <= 400 ? HexFormat.of().formatHex(value)
                : HexFormat.of().formatHex(value, 0, 400) + "... (" + value.length + " bytes)";
    }

    /** Messages of an exception and its causes. */
    static String messages(Throwable t) {
        StringBuilder s = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            String m = String.valueOf(c.getMessage());
            s.append(c.getClass().getSimpleName()).append(": ").append(m.length() > 300 ? m.substring(0, 300) + "..." : m)
                    .append(" | ");
            if (c.getCause() == c) {
                break;
            }
        }
        return s.toString();
    }

    /** A row (any class) rendered through the canonical form. */
    static String show(RowType rowType, RowData row) {
        return String.valueOf(canonicalRow(rowType, row));
    }
}

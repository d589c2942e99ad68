package io.karrow.flink.formats.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.karrow.flink.formats.ValueBatchDecoder;
import io.karrow.flink.formats.avro.corpus.AvroCorpora;
import io.karrow.flink.formats.avro.corpus.AvroCorpus;
import io.karrow.flink.formats.avro.corpus.ConfluentAvroEncoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.testutils.DevRegistry;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Parity of {@code avro-confluent-native} with Flink's {@code avro-confluent} (the oracle) at the
 * deserializer level: the same Confluent-framed bytes go to both, every row is compared field by
 * field, and for malformed input the outcomes are compared (both fail, native naming the schema
 * id). Needs the native library ({@code -Dkarrow.native.library}) and the dev registry binary.
 */
class AvroConfluentNativeParityTest {

    private static final int RECORDS = Integer.getInteger("karrow.corpus.records", 10_000);

    @RegisterExtension
    static final DevRegistry registry = DevRegistry.perClass();

    static List<AvroCorpus> corpora() {
        return AvroCorpora.all();
    }

    private static int[] register(AvroCorpus corpus) throws Exception {
        int[] ids = new int[corpus.writers().size()];
        for (int k = 0; k < ids.length; k++) {
            ids[k] = registry.register(corpus.name() + "-w" + k, corpus.writers().get(k).toString());
        }
        return ids;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpora")
    void corpusDecodesIdentically(AvroCorpus corpus) throws Exception {
        int[] ids = register(corpus);
        List<byte[]> messages = ConfluentAvroEncoder.encodeCorpus(corpus, ids, RECORDS);
        List<String> mismatches = new ArrayList<>();
        int failures = 0;
        try (ParityHarness harness = new ParityHarness(corpus.rowType(), registry.url())) {
            for (int i = 0; i < messages.size(); i++) {
                byte[] message = messages.get(i);
                if (ParityHarness.run(harness.oracle, message).failed()) {
                    failures++;
                }
                String diff = harness.compare(message, -1);
                if (diff != null && mismatches.size() < 20) {
                    mismatches.add("record " + i + ": " + diff);
                }
            }
        }
        assertThat(mismatches).as("mismatches in corpus %s", corpus.name()).isEmpty();
        // A corpus is valid data: the oracle must decode all of it, or the corpus is wrong.
        assertThat(failures).as("oracle failures in corpus %s", corpus.name()).isZero();
        assertThat(messages).hasSize(RECORDS);
    }

    @Test
    void tombstoneGivesNoRow() throws Exception {
        AvroCorpus bids = AvroCorpora.bids();
        try (ParityHarness harness = new ParityHarness(bids.rowType(), registry.url())) {
            assertThat(harness.oracle.deserialize(null)).isNull();
            assertThat(harness.nativeBinary.deserialize(null)).isNull();
            assertThat(harness.nativeGeneric.deserialize(null)).isNull();
        }
    }

    /**
     * Documents a Flink quirk (see docs/parity/avro.md): Flink's Avro decoder is buffered and reused,
     * so bytes left after one datum are read as the start of the next message's datum. Native
     * decoding is stateless and ignores trailing bytes; this test pins the oracle's behaviour.
     */
    @Test
    void oracleCarriesTrailingBytesIntoTheNextMessage() throws Exception {
        AvroCorpus bids = AvroCorpora.bids();
        int id = register(bids)[0];
        Schema w = bids.writers().get(0);
        byte[] first = ConfluentAvroEncoder.encode(id, w, AvroCorpora.bid(new Random(5), 0, w));
        byte[] second = ConfluentAvroEncoder.encode(id, w, AvroCorpora.bid(new Random(6), 1, w));
        byte[] withTrailing = Arrays.copyOf(first, first.length + 2);
        withTrailing[first.length] = 0x02;
        withTrailing[first.length + 1] = 0x04;
        try (ParityHarness harness = new ParityHarness(bids.rowType(), registry.url())) {
            var expectedSecond = harness.oracle.deserialize(second);
            harness.oracle.deserialize(withTrailing);
            ParityHarness.Outcome after = ParityHarness.run(harness.oracle, second);
            boolean differs = after.failed()
                    || io.karrow.flink.testutils.RowDataDiff.diff(bids.rowType(), expectedSecond, after.row) != null;
            assertThat(differs).as("oracle decodes a clean message differently after trailing bytes").isTrue();
            harness.nativeBinary.deserialize(withTrailing);
            assertThat(io.karrow.flink.testutils.RowDataDiff.diff(
                    bids.rowType(), expectedSecond, harness.nativeBinary.deserialize(second))).isNull();
        }
    }

    @Test
    void malformedInputHasTheSameOutcome() throws Exception {
        List<String> mismatches = new ArrayList<>();
        for (ErrorCase c : errorCases()) {
            boolean oracleFailed;
            try (ParityHarness fresh = new ParityHarness(c.rowType, registry.url())) {
                // A fresh oracle: Flink's decoder keeps unread bytes buffered across messages.
                oracleFailed = ParityHarness.run(fresh.oracle, c.message).failed();
            }
            try (ParityHarness harness = new ParityHarness(c.rowType, registry.url())) {
                String diff = harness.compare(c.message, c.schemaId);
                if (diff != null) {
                    mismatches.add(c.name + ": " + diff);
                }
                if (oracleFailed == c.name.endsWith("(valid)")) {
                    mismatches.add(c.name + ": oracle outcome unexpected (failed=" + oracleFailed + "); the case is mislabelled");
                }
            }
        }
        assertThat(mismatches).isEmpty();
    }

    /**
     * An id the registry (reachable) does not know: the stock format fails with Flink's coder's words,
     * "Could not find schema with id N in registry" (its wrapping of Confluent's 40403); the native
     * error, per record and in a batch, reads the same words first, then the request and the registry's
     * answer (status, Confluent error code and message) and where (schema id, record of the batch).
     */
    @Test
    void anUnknownSchemaIdFailsWithTheStockFormatsWords() throws Exception {
        AvroCorpus prim = AvroCorpora.all().get(0);
        int primId = register(prim)[0];
        int unknown = 987_321;
        byte[] good = ConfluentAvroEncoder.encode(primId, prim.writers().get(0), prim.record(new Random(2), 0));
        byte[] message = good.clone();
        ByteBuffer.wrap(message).putInt(1, unknown);
        String stockWords = "Could not find schema with id " + unknown + " in registry";
        try (ParityHarness harness = new ParityHarness(prim.rowType(), registry.url())) {
            ParityHarness.Outcome stock = ParityHarness.run(harness.oracle, message);
            assertThat(stock.failed()).as("the stock format fails").isTrue();
            assertThat(ParityHarness.messages(stock.error)).contains(stockWords);
            for (AvroConfluentNativeDeserializationSchema n : List.of(harness.nativeBinary, harness.nativeGeneric)) {
                ParityHarness.Outcome outcome = ParityHarness.run(n, message);
                assertThat(outcome.error).isInstanceOf(KarrowNativeException.class);
                assertThat(outcome.error.getMessage())
                        .startsWith(stockWords + " (GET " + registry.url() + "/schemas/ids/" + unknown + ": 404 40403 ")
                        .contains("schema id " + unknown);
                assertThat(((KarrowNativeException) outcome.error).getSchemaId()).isEqualTo(unknown);
            }
            try (ValueBatchDecoder batch = harness.nativeBinary.createBatchDecoder();
                    DirectValueBuffer values = new DirectValueBuffer()) {
                values.add(good);
                values.add(message);
                assertThatThrownBy(() -> batch.decode(values, 2))
                        .isInstanceOf(KarrowNativeException.class)
                        .satisfies(t -> assertThat(((KarrowNativeException) t).getRecordIndex()).isEqualTo(1))
                        .hasMessageStartingWith(stockWords + " (GET ")
                        .hasMessageEndingWith("(record 1 of the batch, schema id " + unknown + ")");
            }
        }
    }

    /** A malformed (or unusual but valid) message, and the schema id native errors must name. */
    static final class ErrorCase {
        final String name;
        final RowType rowType;
        final byte[] message;
        final int schemaId;

        ErrorCase(String name, RowType rowType, byte[] message, int schemaId) {
            this.name = name;
            this.rowType = rowType;
            this.message = message;
            this.schemaId = schemaId;
        }
    }

    private List<ErrorCase> errorCases() throws Exception {
        List<ErrorCase> cases = new ArrayList<>();
        AvroCorpus prim = AvroCorpora.all().get(0);
        int primId = register(prim)[0];
        byte[] good = ConfluentAvroEncoder.encode(primId, prim.writers().get(0), prim.record(new Random(1), 0));
        RowType primType = prim.rowType();

        byte[] wrongMagic = good.clone();
        wrongMagic[0] = 1;
        cases.add(new ErrorCase("wrong magic byte", primType, wrongMagic, -1));
        cases.add(new ErrorCase("zero-length value", primType, new byte[0], -1));
        cases.add(new ErrorCase("magic byte only", primType, new byte[] {0}, -1));
        cases.add(new ErrorCase("header only", primType, Arrays.copyOf(good, 5), primId));
        cases.add(new ErrorCase("truncated datum", primType, Arrays.copyOf(good, good.length - 1), primId));
        cases.add(new ErrorCase("truncated mid-datum", primType, Arrays.copyOf(good, 7), primId));
        byte[] unknownId = good.clone();
        ByteBuffer.wrap(unknownId).putInt(1, 987_654);
        cases.add(new ErrorCase("unknown schema id", primType, unknownId, 987_654));
        byte[] trailing = Arrays.copyOf(good, good.length + 3);
        cases.add(new ErrorCase("trailing bytes (valid)", primType, trailing, primId));

        // A string field whose length varint is negative.
        Schema strSchema = new Schema.Parser().parse(
                "{\"type\":\"record\",\"name\":\"S\",\"namespace\":\"com.acme\",\"fields\":[{\"name\":\"s\",\"type\":\"string\"}]}");
        int strId = registry.register("errors-string", strSchema.toString());
        RowType strType = rowType("s", org.apache.flink.table.api.DataTypes.STRING());
        cases.add(new ErrorCase("negative string length", strType, frame(strId, new byte[] {0x03, 'a'}), strId));
        cases.add(new ErrorCase("string length past end", strType, frame(strId, new byte[] {0x20, 'a'}), strId));
        cases.add(new ErrorCase("invalid UTF-8 string (valid)", strType, frame(strId, new byte[] {0x06, (byte) 0xFF, (byte) 0xC3, 'a'}), strId));

        // Writer union [null,int,string], value in the string branch, INT column.
        AvroCorpus unions = AvroCorpora.all().get(9);
        int unionId = register(unions)[0];
        GenericRecord u = new GenericData.Record(unions.writers().get(0));
        u.put("v", "not an int");
        u.put("w", "ok");
        u.put("x", 1);
        u.put("plain", 2);
        cases.add(new ErrorCase("union branch mismatch", unions.rowType(), ConfluentAvroEncoder.encode(unionId, unions.writers().get(0), u), unionId));
        GenericRecord u2 = new GenericData.Record(unions.writers().get(0));
        u2.put("v", 5);
        u2.put("w", 77L);
        u2.put("x", 1);
        u2.put("plain", 2);
        cases.add(new ErrorCase("long branch into STRING", unions.rowType(), ConfluentAvroEncoder.encode(unionId, unions.writers().get(0), u2), unionId));
        byte[] badBranch = frame(unionId, new byte[] {0x0A});
        cases.add(new ErrorCase("union index out of range", unions.rowType(), badBranch, unionId));

        // Zero-length decimal bytes.
        AvroCorpus decimals = AvroCorpora.all().get(2);
        int decId = register(decimals)[0];
        GenericRecord d = decimals.record(new Random(3), 0);
        d.put("d10_2", ByteBuffer.wrap(new byte[0]));
        cases.add(new ErrorCase("zero-length decimal", decimals.rowType(), ConfluentAvroEncoder.encode(decId, decimals.writers().get(0), d), decId));

        // Null written into a NOT NULL column.
        AvroCorpus nullables = AvroCorpora.all().get(1);
        int nullId = register(nullables)[0];
        GenericRecord n = nullables.record(new Random(2), 0);
        n.put("nn", null);
        cases.add(new ErrorCase("null into NOT NULL", nullables.rowType(), ConfluentAvroEncoder.encode(nullId, nullables.writers().get(0), n), nullId));

        // Writer lacks a NOT NULL column (no reader default).
        Schema partial = new Schema.Parser().parse(
                "{\"type\":\"record\",\"name\":\"Partial\",\"namespace\":\"com.acme\",\"fields\":[{\"name\":\"b\",\"type\":\"boolean\"}]}");
        int partialId = registry.register("errors-partial", partial.toString());
        GenericRecord p = new GenericData.Record(partial);
        p.put("b", true);
        cases.add(new ErrorCase("missing NOT NULL field", primType, ConfluentAvroEncoder.encode(partialId, partial, p), partialId));

        // Writer enum into a STRING column (not an Avro promotion).
        Schema enumSchema = new Schema.Parser().parse(
                "{\"type\":\"record\",\"name\":\"E\",\"namespace\":\"com.acme\",\"fields\":[{\"name\":\"s\",\"type\":{\"type\":\"enum\",\"name\":\"Color\",\"symbols\":[\"RED\",\"GREEN\"]}}]}");
        int enumId = registry.register("errors-enum", enumSchema.toString());
        cases.add(new ErrorCase("enum into STRING", strType, frame(enumId, new byte[] {0x02}), enumId));

        // Arrays written as byte-size-prefixed blocks (negative count): valid Avro.
        Schema arraySchema = new Schema.Parser().parse(
                "{\"type\":\"record\",\"name\":\"A\",\"namespace\":\"com.acme\",\"fields\":[{\"name\":\"xs\",\"type\":{\"type\":\"array\",\"items\":\"int\"}}]}");
        int arrayId = registry.register("errors-array-blocks", arraySchema.toString());
        RowType arrayType = rowType("xs", org.apache.flink.table.api.DataTypes.ARRAY(org.apache.flink.table.api.DataTypes.INT()));
        // block count -2 (zigzag 3), byte size 2 (zigzag 4), items 1 and -1 (02 01), then a block of 1 item (02) value 3 (06), end 00
        cases.add(new ErrorCase("array in sized blocks (valid)", arrayType, frame(arrayId, new byte[] {0x03, 0x04, 0x02, 0x01, 0x02, 0x06, 0x00}), arrayId));
        cases.add(new ErrorCase("array block count past end", arrayType, frame(arrayId, new byte[] {0x7E}), arrayId));
        return cases;
    }

    private static RowType rowType(String name, org.apache.flink.table.types.DataType type) {
        return (RowType) org.apache.flink.table.api.DataTypes.ROW(org.apache.flink.table.api.DataTypes.FIELD(name, type))
                .notNull().getLogicalType();
    }

    private static byte[] frame(int id, byte[] datum) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0);
        out.writeBytes(ByteBuffer.allocate(4).putInt(id).array());
        out.writeBytes(datum);
        return out.toByteArray();
    }
}

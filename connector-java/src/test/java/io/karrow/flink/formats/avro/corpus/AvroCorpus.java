package io.karrow.flink.formats.avro.corpus;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.List;
import java.util.Random;

/**
 * One parity corpus: a table row type, the writer schemas a producer used (registered under their
 * own subjects), and a deterministic record generator. Record {@code i} is written with writer
 * schema {@code i % writers.size()}, so a stream can switch schema ids from record to record.
 */
public final class AvroCorpus {

    /** Produces the datum of record {@code index} for the given writer schema. */
    @FunctionalInterface
    public interface Generator {
        GenericRecord generate(Random random, int index, Schema writer);
    }

    private final String name;
    private final DataType tableType;
    private final List<Schema> writers;
    private final Generator generator;
    private final long seed;

    AvroCorpus(String name, DataType tableType, List<String> writerSchemas, Generator generator, long seed) {
        this.name = name;
        this.tableType = tableType;
        this.writers = writerSchemas.stream().map(s -> new Schema.Parser().parse(s)).toList();
        this.generator = generator;
        this.seed = seed;
    }

    /** Name of the corpus (also the subject prefix). */
    public String name() {
        return name;
    }

    /** The table's physical row type, NOT NULL at the top level like the planner passes it. */
    public RowType rowType() {
        return (RowType) tableType.getLogicalType();
    }

    /** The table's physical data type. */
    public DataType dataType() {
        return tableType;
    }

    /** Writer schemas, in the order records cycle through them. */
    public List<Schema> writers() {
        return writers;
    }

    /** Fixed seed of the generator. */
    public long seed() {
        return seed;
    }

    /** The datum of record {@code index}, generated from {@code random} (advance it in order). */
    public GenericRecord record(Random random, int index) {
        return generator.generate(random, index, writers.get(index % writers.size()));
    }

    @Override
    public String toString() {
        return name;
    }
}

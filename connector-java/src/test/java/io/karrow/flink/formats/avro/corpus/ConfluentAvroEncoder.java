package io.karrow.flink.formats.avro.corpus;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Encodes records the way Confluent's Avro serializer does: {@code 0x00}, big-endian id, datum. */
public final class ConfluentAvroEncoder {

    private ConfluentAvroEncoder() {}

    /** Frames one datum written with {@code writer} under schema id {@code id}. */
    public static byte[] encode(int id, Schema writer, GenericRecord record) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        out.write(0);
        out.write(id >>> 24);
        out.write(id >>> 16);
        out.write(id >>> 8);
        out.write(id);
        try {
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(writer).write(record, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** Generates and encodes {@code count} records of {@code corpus}; {@code ids[k]} is writer k's id. */
    public static List<byte[]> encodeCorpus(AvroCorpus corpus, int[] ids, int count) {
        Random random = new Random(corpus.seed());
        List<byte[]> messages = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int w = i % corpus.writers().size();
            messages.add(encode(ids[w], corpus.writers().get(w), corpus.record(random, i)));
        }
        return messages;
    }
}

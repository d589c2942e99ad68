package io.karrow.flink.connector.kafka;

import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaWriterState;
import org.apache.flink.connector.kafka.sink.TwoPhaseCommittingStatefulSink;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.lineage.LineageVertex;
import org.apache.flink.streaming.api.lineage.LineageVertexProvider;
import org.apache.flink.table.data.RowData;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The sink of a {@code kafka-native} table with Kafka's producer ({@code 'sink.produce-mode' =
 * 'kafka-producer'}): Flink's {@link KafkaSink} whose writer first encodes the rows in batches
 * ({@link KafkaRecordBatchEncoder}) and hands the writer one {@link PreEncodedRecord} per row, in
 * order.
 *
 * <p>The batching lives inside the writer, not in an operator of its own before the sink, so the
 * job graph is the stock sink's (source, ..., writer, committer): Flink derives the ids of
 * operators without a uid from the graph's shape, and only the same shape lets a checkpoint or
 * savepoint of the stock sink, of this one and of native produce restore into each other. Every
 * other part (committer, state, serializers, post-commit topology, lineage) is the stock sink's.
 *
 * <p>The buffer is encoded and written when it holds {@code maxRows} rows or {@code maxBytes} bytes
 * of row images, when Flink flushes the writer (before every checkpoint's pre-commit, and at end of
 * input: no buffered row crosses a checkpoint, so no delivery guarantee is weakened and the buffer
 * needs no state), and every {@code flushIntervalMillis} on a processing-time timer.
 */
public final class BatchEncodingKafkaSink
        implements Sink<RowData>,
                SupportsWriterState<RowData, KafkaWriterState>,
                SupportsCommitter<KafkaCommittable>,
                SupportsPostCommitTopology<KafkaCommittable>,
                LineageVertexProvider {

    private static final long serialVersionUID = 1L;

    private final KafkaSink<PreEncodedRecord> sink;
    private final KafkaRecordEncoderSpec spec;
    private final int maxRows;
    private final long maxBytes;
    private final long flushIntervalMillis;

    BatchEncodingKafkaSink(
            KafkaSink<PreEncodedRecord> sink,
            KafkaRecordEncoderSpec spec,
            int maxRows,
            long maxBytes,
            long flushIntervalMillis) {
        if (maxRows < 1) {
            throw new IllegalArgumentException("maxRows must be at least 1, got " + maxRows);
        }
        this.sink = Objects.requireNonNull(sink, "sink");
        this.spec = Objects.requireNonNull(spec, "spec");
        this.maxRows = maxRows;
        this.maxBytes = maxBytes;
        this.flushIntervalMillis = flushIntervalMillis;
    }

    @Override
    public StatefulSinkWriter<RowData, KafkaWriterState> createWriter(WriterInitContext context) throws IOException {
        return new Writer(sink.createWriter(context), context);
    }

    @Override
    public StatefulSinkWriter<RowData, KafkaWriterState> restoreWriter(
            WriterInitContext context, Collection<KafkaWriterState> recoveredState) throws IOException {
        return new Writer(sink.restoreWriter(context, recoveredState), context);
    }

    @Override
    public Committer<KafkaCommittable> createCommitter(CommitterInitContext context) throws IOException {
        return sink.createCommitter(context);
    }

    @Override
    public SimpleVersionedSerializer<KafkaCommittable> getCommittableSerializer() {
        return sink.getCommittableSerializer();
    }

    @Override
    public SimpleVersionedSerializer<KafkaWriterState> getWriterStateSerializer() {
        return sink.getWriterStateSerializer();
    }

    @Override
    public void addPostCommitTopology(DataStream<CommittableMessage<KafkaCommittable>> committables) {
        sink.addPostCommitTopology(committables);
    }

    @Override
    public LineageVertex getLineageVertex() {
        return sink.getLineageVertex();
    }

    /** Buffers rows, encodes them in batches and writes the records with Flink's Kafka writer. */
    private final class Writer
            implements StatefulSinkWriter<RowData, KafkaWriterState>, CommittingSinkWriter<RowData, KafkaCommittable> {

        private final TwoPhaseCommittingStatefulSink.PrecommittingStatefulSinkWriter<
                        PreEncodedRecord, KafkaWriterState, KafkaCommittable>
                kafka;
        private final KafkaRecordBatchEncoder encoder;
        private final ProcessingTimeService timeService;
        /** The watermark of the last {@link #write} (the records of a batch are written later). */
        private long watermark = Long.MIN_VALUE;
        private boolean closed;

        Writer(
                TwoPhaseCommittingStatefulSink.PrecommittingStatefulSinkWriter<
                                PreEncodedRecord, KafkaWriterState, KafkaCommittable>
                        kafka,
                WriterInitContext context)
                throws IOException {
            this.kafka = kafka;
            KafkaRecordBatchEncoder opened;
            try {
                opened = KafkaRecordBatchEncoder.open(
                        spec, context.asSerializationSchemaInitializationContext(), context.metricGroup());
            } catch (Exception e) {
                closeQuietly(kafka, e);
                throw e instanceof IOException ? (IOException) e : new IOException("Could not open the batch encoder", e);
            }
            this.encoder = opened;
            this.timeService = context.getProcessingTimeService();
            if (flushIntervalMillis > 0) {
                scheduleFlush();
            }
        }

        private void scheduleFlush() {
            timeService.registerTimer(timeService.getCurrentProcessingTime() + flushIntervalMillis, this::onTimer);
        }

        private void onTimer(long time) throws IOException, InterruptedException {
            if (closed) {
                return;
            }
            writeBuffered();
            scheduleFlush();
        }

        @Override
        public void write(RowData row, Context context) throws IOException, InterruptedException {
            watermark = context.currentWatermark();
            encoder.add(row);
            if (encoder.size() >= maxRows || encoder.bufferedBytes() >= maxBytes) {
                writeBuffered();
            }
        }

        /**
         * Encodes the buffered rows and writes their records. As with the separate encode operator
         * this replaces, the records carry no stream timestamp: the record's timestamp is the
         * {@code timestamp} metadata column's, or none (the broker's or the producer's clock).
         */
        private void writeBuffered() throws IOException, InterruptedException {
            if (encoder.size() == 0) {
                return;
            }
            Context context = new Context() {
                @Override
                public long currentWatermark() {
                    return watermark;
                }

                @Override
                public Long timestamp() {
                    return null;
                }
            };
            IOException[] failure = new IOException[1];
            InterruptedException[] interrupted = new InterruptedException[1];
            encoder.flush(record -> {
                if (failure[0] != null || interrupted[0] != null) {
                    return;
                }
                try {
                    kafka.write(record, context);
                } catch (IOException e) {
                    failure[0] = e;
                } catch (InterruptedException e) {
                    interrupted[0] = e;
                }
            });
            if (failure[0] != null) {
                throw failure[0];
            }
            if (interrupted[0] != null) {
                throw interrupted[0];
            }
        }

        @Override
        public void writeWatermark(Watermark watermark) throws IOException, InterruptedException {
            kafka.writeWatermark(watermark);
        }

        @Override
        public void flush(boolean endOfInput) throws IOException, InterruptedException {
            writeBuffered();
            kafka.flush(endOfInput);
        }

        @Override
        public Collection<KafkaCommittable> prepareCommit() throws IOException, InterruptedException {
            return kafka.prepareCommit();
        }

        @Override
        public List<KafkaWriterState> snapshotState(long checkpointId) throws IOException {
            return kafka.snapshotState(checkpointId);
        }

        @Override
        public void close() throws Exception {
            if (closed) {
                return;
            }
            closed = true;
            try {
                encoder.close();
            } finally {
                kafka.close();
            }
        }

        private void closeQuietly(AutoCloseable closeable, Exception cause) {
            try {
                closeable.close();
            } catch (Exception e) {
                cause.addSuppressed(e);
            }
        }
    }
}

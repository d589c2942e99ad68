package io.karrow.bench;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The JVM half of {@code benches/run-produce-bench.sh}: what producing a record costs with Kafka's
 * Java producer driven as Flink's {@code KafkaSink} drives it, against the native writer ({@code
 * benches/produce-cost}, run as a child process), for the same pre-encoded values.
 *
 * <p>{@code ProduceCostBenchmark BOOTSTRAP PARTITIONS VALUES_FILE ROUNDS NATIVE_WRITER CONFIG...}, each
 * CONFIG {@code mode:codec} with mode {@code acks-all} (acks=all, idempotence off), {@code idempotent}
 * (Kafka's default: acks=all, idempotence on; {@code producer} is the same for Java, while the native side runs
 * {@code karrow-kafka}'s idempotent {@code Producer} instead of the minimal writer) or {@code transactional} (Flink's exactly-once: a
 * transactional id, a transaction committed every {@code karrow.checkpoint.records} records), and codec
 * {@code none}, {@code gzip}, {@code snappy}, {@code lz4} or {@code zstd}. Every round runs every config with
 * both writers, each on a fresh topic that is read back with a {@code read_committed} consumer (count and
 * checksum must match) and deleted. The Java producer gets what {@code kafka-native}'s sink gives it:
 * byte-array serializers, {@code batch.size} 256 KiB, otherwise Kafka's defaults (linger.ms 5,
 * max.in.flight 5); per record one {@code ProducerRecord} (null key, the value, a timestamp) sent with a
 * callback that checks the exception and counts, as Flink's {@code WriterCallback} does; {@code flush()} at
 * every checkpoint. All Java rounds share one JVM (later rounds JIT-warm); the CPU time is the whole
 * JVM's (producer I/O thread, JIT and GC threads included) from creating the producer to the last
 * acknowledgement, after {@code karrow.warmup.rounds} (default 1) untimed rounds of every config. One line per run: {@code java|native mode=M codec=C round=R records=N wall_s=W cpu_s=S
 * cpu_us_per_record=U checksum=K}.
 */
public final class ProduceCostBenchmark {

    private static final long CHECKPOINT_RECORDS = Long.getLong("karrow.checkpoint.records", 100_000);
    private static final long TIMESTAMP_BASE = 1_700_000_000_000L;
    /** Untimed Java rounds of every config first (a sink in a running job is JIT-warm). */
    private static final int WARMUP_ROUNDS = Integer.getInteger("karrow.warmup.rounds", 1);

    private ProduceCostBenchmark() {}

    /** Runs the rounds; see the class comment for the arguments. */
    public static void main(String[] args) throws Exception {
        if (args.length < 6) {
            throw new IllegalArgumentException(
                    "usage: ProduceCostBenchmark BOOTSTRAP PARTITIONS VALUES_FILE ROUNDS NATIVE_WRITER CONFIG...");
        }
        String bootstrap = args[0];
        int partitions = Integer.parseInt(args[1]);
        String valuesFile = args[2];
        List<byte[]> values = readValues(Path.of(valuesFile));
        long checksum = 0;
        for (byte[] v : values) {
            checksum += v.length + (v.length > 0 ? v[0] & 0xff : 0);
        }
        int rounds = Integer.parseInt(args[3]);
        String nativeWriter = args[4];
        List<String> configs = List.of(args).subList(5, args.length);
        Properties adminProps = new Properties();
        adminProps.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(adminProps)) {
            for (int w = 0; w < WARMUP_ROUNDS; w++) {
                for (String config : configs) {
                    String topic = createTopic(admin, partitions);
                    runJava(bootstrap, topic, config.split(":")[0], config.split(":")[1], values);
                    admin.deleteTopics(List.of(topic)).all().get();
                }
            }
            for (int round = 1; round <= rounds; round++) {
                for (int c = 0; c < configs.size(); c++) {
                    // Rotate the order each round so no config always runs first or last.
                    String config = configs.get((c + round - 1) % configs.size());
                    String[] parts = config.split(":");
                    String mode = parts[0];
                    String codec = parts[1];
                    String javaTopic = createTopic(admin, partitions);
                    double[] java = runJava(bootstrap, javaTopic, mode, codec, values);
                    verify(bootstrap, javaTopic, values.size(), checksum);
                    admin.deleteTopics(List.of(javaTopic)).all().get();
                    System.out.printf("java mode=%s codec=%s round=%d records=%d wall_s=%.3f cpu_s=%.3f cpu_us_per_record=%.3f checksum=%d%n",
                            mode, codec, round, values.size(), java[0], java[1], java[1] * 1e6 / values.size(), checksum);
                    String nativeTopic = createTopic(admin, partitions);
                    String line = runNative(nativeWriter, bootstrap, nativeTopic, partitions, valuesFile, mode, codec);
                    verify(bootstrap, nativeTopic, values.size(), checksum);
                    admin.deleteTopics(List.of(nativeTopic)).all().get();
                    System.out.println(line.replace("records=", "round=" + round + " records="));
                }
            }
        }
    }

    /** One Java run: returns {wall seconds, process CPU seconds}. */
    private static double[] runJava(String bootstrap, String topic, String mode, String codec, List<byte[]> values)
            throws Exception {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Properties props = new Properties();
        props.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.setProperty(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.setProperty(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.setProperty(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
        props.setProperty(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
        props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
        boolean transactional = mode.equals("transactional");
        switch (mode) {
            case "acks-all":
                props.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
                break;
            case "idempotent":
            case "producer": // the native side runs karrow-kafka's Producer: compare with Kafka's default
                break;
            case "transactional":
                props.setProperty(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "karrow-produce-bench-" + UUID.randomUUID());
                props.setProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "600000");
                break;
            default:
                throw new IllegalArgumentException("unknown mode " + mode);
        }
        AtomicReference<Exception> failure = new AtomicReference<>();
        long[] acked = new long[1];
        Callback callback = (metadata, exception) -> {
            if (exception != null) {
                failure.compareAndSet(null, exception);
            } else {
                acked[0]++;
            }
        };
        long cpuStart = os.getProcessCpuTime();
        long start = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            if (transactional) {
                producer.initTransactions();
                producer.beginTransaction();
            }
            for (int i = 0; i < values.size(); i++) {
                producer.send(new ProducerRecord<>(topic, null, TIMESTAMP_BASE + i, null, values.get(i)), callback);
                if ((i + 1) % CHECKPOINT_RECORDS == 0) {
                    checkpoint(producer, transactional, failure);
                }
            }
            checkpoint(producer, transactional, failure);
            double wall = (System.nanoTime() - start) / 1e9;
            double cpu = (os.getProcessCpuTime() - cpuStart) / 1e9;
            if (transactional) {
                producer.abortTransaction(); // the empty transaction opened by the last checkpoint
            }
            return new double[] {wall, cpu};
        }
    }

    /** What Flink's sink does at a checkpoint: flush; exactly-once commits and begins the next transaction. */
    private static void checkpoint(KafkaProducer<byte[], byte[]> producer, boolean transactional,
            AtomicReference<Exception> failure) throws Exception {
        producer.flush();
        if (failure.get() != null) {
            throw failure.get();
        }
        if (transactional) {
            producer.commitTransaction();
            producer.beginTransaction();
        }
    }

    private static String runNative(String writer, String bootstrap, String topic, int partitions, String valuesFile,
            String mode, String codec) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(writer, bootstrap, topic, String.valueOf(partitions), valuesFile, mode, codec,
                "checkpoint.records=" + CHECKPOINT_RECORDS)
                .redirectErrorStream(true)
                .start();
        StringBuilder out = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                out.append(line).append('\n');
            }
        }
        if (p.waitFor() != 0) {
            throw new IllegalStateException("the native writer failed: " + out);
        }
        return out.toString().trim();
    }

    /** Reads the topic back (read_committed): the count and checksum must be the values'. */
    private static void verify(String bootstrap, String topic, long expected, long checksum) {
        Properties props = new Properties();
        props.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.setProperty(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.setProperty(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> assignment = new ArrayList<>();
            consumer.partitionsFor(topic).forEach(p -> assignment.add(new TopicPartition(topic, p.partition())));
            consumer.assign(assignment);
            consumer.seekToBeginning(assignment);
            // Read until every record arrived: a commit returns before its markers are written, so
            // the last stable offset may still trail the last transaction for a moment.
            long read = 0;
            long sum = 0;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (read < expected) {
                if (System.nanoTime() > deadline) {
                    break;
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    byte[] v = r.value();
                    sum += v.length + (v.length > 0 ? v[0] & 0xff : 0);
                    read++;
                }
            }
            if (read != expected || sum != checksum) {
                throw new IllegalStateException(String.format(
                        "%s holds %d records (checksum %d), expected %d (checksum %d)", topic, read, sum, expected, checksum));
            }
        }
    }

    private static String createTopic(Admin admin, int partitions) throws Exception {
        String topic = "karrow-produce-bench-" + UUID.randomUUID();
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        // The native writer is a measuring tool that retries nothing: wait for every leader.
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!hasLeaders(admin, topic)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no leaders for " + topic);
            }
            Thread.sleep(50);
        }
        Thread.sleep(200);
        return topic;
    }

    private static boolean hasLeaders(Admin admin, String topic) throws InterruptedException {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().stream()
                    .allMatch(p -> p.leader() != null && p.leader().id() >= 0);
        } catch (java.util.concurrent.ExecutionException e) {
            return false; // not known yet
        }
    }

    private static List<byte[]> readValues(Path file) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        List<byte[]> values = new ArrayList<>();
        while (buf.hasRemaining()) {
            byte[] v = new byte[buf.getInt()];
            buf.get(v);
            values.add(v);
        }
        return values;
    }
}

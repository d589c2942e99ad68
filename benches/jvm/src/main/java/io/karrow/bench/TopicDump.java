package io.karrow.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The Kafka side of {@code karrow bench --bootstrap ... --topic ...}: copies the values of a topic
 * into the CLI's length-prefixed message file (per value a 4-byte big-endian length, then the bytes;
 * {@code 0xFFFFFFFF} is a null value), so the CLI reads a topic exactly as it reads {@code --input}
 * and needs no Kafka client of its own.
 *
 * <pre>
 *   TopicDump --bootstrap HOST:PORT --topic T --out FILE [--limit N] [--timeout-ms MS]
 *   TopicDump --bootstrap HOST:PORT --topic T --load FILE [--partitions N] [--timeout-ms MS]
 * </pre>
 *
 * <p>Dump (the default): all partitions from their earliest offset up to the end offsets taken at
 * the start ({@code read_committed}: aborted transactions are skipped), at most {@code --limit}
 * values (default 100000), partition after partition as the consumer returns them. No consumer
 * group, no auto-created topics. {@code --timeout-ms} (default 10000) bounds the metadata look-ups
 * and any stretch of polling that returns nothing.
 *
 * <p>Load ({@code --load}): the reverse, for tests and demos: creates the topic if absent ({@code
 * --partitions}, default 1, replication factor 1) and produces the file's values round-robin over
 * the partitions, keyless ({@code acks=all}).
 *
 * <p>Prints one JSON object on stdout: {@code {"ok":true,"records":N,"partitions":P,...}} or {@code
 * {"ok":false,"error":"..."}} (exit code 0 either way; 2 on bad arguments). Progress lines on stderr
 * start with {@code progress: }.
 */
public final class TopicDump {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int NULL_LENGTH = 0xFFFFFFFF;

    private TopicDump() {}

    /** Entry point; see the class comment for the arguments. */
    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new HashMap<>();
        for (int i = 0; i < argv.length; i += 2) {
            if (!argv[i].startsWith("--") || i + 1 >= argv.length) {
                System.err.println("TopicDump: unexpected argument " + argv[i]);
                System.exit(2);
            }
            args.put(argv[i].substring(2), argv[i + 1]);
        }
        for (String key : new String[] {"bootstrap", "topic"}) {
            if (!args.containsKey(key)) {
                System.err.println("TopicDump: missing --" + key);
                System.exit(2);
            }
        }
        if (args.containsKey("out") == args.containsKey("load")) {
            System.err.println("TopicDump: give --out FILE (dump) or --load FILE (produce)");
            System.exit(2);
        }
        ObjectNode out = JSON.createObjectNode();
        try {
            if (args.containsKey("load")) {
                load(args, out);
            } else {
                dump(args, out);
            }
            out.put("ok", true);
        } catch (Failure e) {
            out.put("ok", false);
            out.put("error", e.getMessage());
        } catch (Exception e) {
            out.put("ok", false);
            out.put("error", oneLine(e));
        }
        System.out.println(JSON.writeValueAsString(out));
        System.out.flush();
        System.exit(0);
    }

    /** A failure with a message meant for the user. */
    private static final class Failure extends Exception {
        Failure(String message) {
            super(message);
        }
    }

    private static String oneLine(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return m.replace('\n', ' ');
    }

    private static Properties common(String bootstrap, long timeoutMs) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeoutMs);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeoutMs);
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "karrow-bench-topic-dump");
        return p;
    }

    private static String unreachable(String bootstrap, long timeoutMs) {
        return "no Kafka broker answered at " + bootstrap + " within " + timeoutMs + " ms";
    }

    private static void dump(Map<String, String> args, ObjectNode out) throws Exception {
        String bootstrap = args.get("bootstrap");
        String topic = args.get("topic");
        Path file = Path.of(args.get("out"));
        long limit = Long.parseLong(args.getOrDefault("limit", "100000"));
        long timeoutMs = Long.parseLong(args.getOrDefault("timeout-ms", "10000"));

        Properties p = common(bootstrap, timeoutMs);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);

        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            System.err.println("progress: Kafka: connecting to " + bootstrap);
            Map<String, List<PartitionInfo>> topics;
            try {
                topics = consumer.listTopics(Duration.ofMillis(timeoutMs));
            } catch (TimeoutException e) {
                throw new Failure(unreachable(bootstrap, timeoutMs));
            }
            List<PartitionInfo> infos = topics.get(topic);
            if (infos == null || infos.isEmpty()) {
                throw new Failure("topic '" + topic + "' does not exist on " + bootstrap);
            }
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : infos) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions, Duration.ofMillis(timeoutMs));
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofMillis(timeoutMs));
            long available = 0;
            List<TopicPartition> pending = new ArrayList<>();
            for (TopicPartition tp : partitions) {
                long n = end.get(tp) - begin.get(tp);
                available += n;
                if (n > 0) {
                    pending.add(tp);
                }
            }
            out.put("partitions", partitions.size());
            if (available == 0) {
                throw new Failure("topic '" + topic + "' is empty (" + partitions.size() + " partitions, no records)");
            }
            consumer.assign(pending);
            consumer.seekToBeginning(pending);
            long records = 0;
            long bytes = 0;
            long target = Math.min(limit, available);
            Path tmp = file.resolveSibling(file.getFileName() + ".part");
            try (OutputStream os = Files.newOutputStream(tmp);
                    DataOutputStream data = new DataOutputStream(new BufferedOutputStream(os, 1 << 20))) {
                long lastProgress = System.nanoTime();
                long lastReport = 0;
                while (records < limit && !pending.isEmpty()) {
                    var batch = consumer.poll(Duration.ofMillis(Math.min(500, timeoutMs)));
                    if (batch.isEmpty()) {
                        if (System.nanoTime() - lastProgress > timeoutMs * 1_000_000L) {
                            throw new Failure("reading topic '" + topic + "' stalled: nothing for " + timeoutMs
                                    + " ms after " + records + " of " + target + " values");
                        }
                    } else {
                        lastProgress = System.nanoTime();
                    }
                    for (ConsumerRecord<byte[], byte[]> r : batch) {
                        if (records >= limit || r.offset() >= end.get(new TopicPartition(r.topic(), r.partition()))) {
                            continue;
                        }
                        byte[] v = r.value();
                        if (v == null) {
                            data.writeInt(NULL_LENGTH);
                        } else {
                            data.writeInt(v.length);
                            data.write(v);
                            bytes += v.length;
                        }
                        records++;
                    }
                    // Done with a partition once its position reaches the end offset taken at the start.
                    List<TopicPartition> done = new ArrayList<>();
                    for (TopicPartition tp : pending) {
                        if (consumer.position(tp, Duration.ofMillis(timeoutMs)) >= end.get(tp)) {
                            done.add(tp);
                        }
                    }
                    if (!done.isEmpty()) {
                        pending.removeAll(done);
                        consumer.assign(pending);
                    }
                    if (records - lastReport >= 10_000) {
                        lastReport = records;
                        System.err.println("progress: Kafka: read " + records + " of " + target + " values");
                    }
                }
            }
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            if (records == 0) {
                throw new Failure("topic '" + topic + "' has no committed values to read (offsets hold only aborted"
                        + " or control records)");
            }
            out.put("records", records);
            out.put("bytes", bytes);
            out.put("available", available);
            out.put("limited", records >= limit && available > limit);
        } catch (org.apache.kafka.common.KafkaException e) {
            throw new Failure("Kafka at " + bootstrap + ": " + oneLine(e));
        }
    }

    private static List<byte[]> readMessages(Path file) throws IOException, Failure {
        List<byte[]> values = new ArrayList<>();
        try (InputStream is = Files.newInputStream(file);
                DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(is, 1 << 20))) {
            while (true) {
                int len;
                try {
                    len = in.readInt();
                } catch (EOFException e) {
                    return values;
                }
                if (len == NULL_LENGTH) {
                    values.add(null);
                } else if (len < 0) {
                    throw new Failure(file + ": value " + values.size() + " has a bad length prefix");
                } else {
                    byte[] v = new byte[len];
                    in.readFully(v);
                    values.add(v);
                }
            }
        }
    }

    private static void load(Map<String, String> args, ObjectNode out) throws Exception {
        String bootstrap = args.get("bootstrap");
        String topic = args.get("topic");
        int partitions = Integer.parseInt(args.getOrDefault("partitions", "1"));
        long timeoutMs = Long.parseLong(args.getOrDefault("timeout-ms", "10000"));
        List<byte[]> values = readMessages(Path.of(args.get("load")));

        Properties p = common(bootstrap, timeoutMs);
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        } catch (java.util.concurrent.TimeoutException e) {
            throw new Failure(unreachable(bootstrap, timeoutMs));
        }
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeoutMs);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(timeoutMs, 30_000));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            List<Future<RecordMetadata>> sent = new ArrayList<>(values.size());
            for (int i = 0; i < values.size(); i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, i % partitions, null, values.get(i))));
            }
            producer.flush();
            for (Future<RecordMetadata> f : sent) {
                f.get();
            }
        }
        out.put("records", values.size());
        out.put("partitions", partitions);
    }
}

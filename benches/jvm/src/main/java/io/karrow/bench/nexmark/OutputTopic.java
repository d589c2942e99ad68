package io.karrow.bench.nexmark;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Reading a query's output topic as a {@code read_committed} consumer sees it, and what the suite
 * compares of it: an insert-only output as the multiset of its records (key and value bytes), an
 * updating one as its changelog collapsed per key (the last value of each key in offset order, a
 * tombstone deleting the key). Both reduce to a {@link Digest} (a sum of 128-bit record hashes, so
 * order does not matter) that is cheap to keep; only when two digests differ are the records read
 * again to find and print the differences.
 */
final class OutputTopic {

    /** Records whose hash differs between the two sides are printed up to this many. */
    static final int MAX_PRINTED = 10;

    private OutputTopic() {}

    /** Bytes compared by content (a key of an updating output). */
    record Bytes(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Bytes b && java.util.Arrays.equals(bytes, b.bytes);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(bytes);
        }
    }

    /** The live values of an updating output by key (the changelog collapsed per key, as bytes). */
    static Map<Bytes, byte[]> live(String bootstrap, String topic) {
        Map<Bytes, byte[]> live = new HashMap<>();
        read(bootstrap, topic, (key, value) -> {
            if (value == null) {
                live.remove(new Bytes(key));
            } else {
                live.put(new Bytes(key), value);
            }
        });
        return live;
    }

    /** A 128-bit hash. */
    record Hash(long a, long b) {}

    /** What an output reduces to: records (insert-only) or live keys (updating), and their hash sum. */
    record Digest(long records, long changelog, long a, long b) {
        boolean sameAs(Digest o) {
            return records == o.records && a == o.a && b == o.b;
        }
    }

    /** One record as read. */
    private interface Visitor {
        void accept(byte[] key, byte[] value);
    }

    /** Reads every committed record of {@code topic}, partition by partition in offset order. */
    private static void read(String bootstrap, String topic, Visitor visitor) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(60)).stream()
                    .map(info -> new TopicPartition(topic, info.partition()))
                    .sorted(Comparator.comparingInt(TopicPartition::partition))
                    .toList();
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(60));
            for (TopicPartition tp : partitions) {
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                long last = System.nanoTime();
                while (consumer.position(tp, Duration.ofSeconds(60)) < end.get(tp)) {
                    var records = consumer.poll(Duration.ofMillis(500));
                    if (!records.isEmpty()) {
                        last = System.nanoTime();
                    } else if (System.nanoTime() - last > TimeUnit.SECONDS.toNanos(120)) {
                        throw new IllegalStateException("reading " + tp + " stalled before offset " + end.get(tp));
                    }
                    for (ConsumerRecord<byte[], byte[]> r : records) {
                        if (r.offset() < end.get(tp)) {
                            visitor.accept(r.key(), r.value());
                        }
                    }
                }
            }
        }
    }

    /** The digest of {@code topic}'s output: insert-only unless {@code updating}. */
    static Digest digest(String bootstrap, String topic, boolean updating) {
        if (!updating) {
            long[] sums = new long[3];
            read(bootstrap, topic, (key, value) -> {
                Hash h = hash(key, value);
                sums[0]++;
                sums[1] += h.a();
                sums[2] += h.b();
            });
            return new Digest(sums[0], sums[0], sums[1], sums[2]);
        }
        Map<Hash, Hash> live = collapse(bootstrap, topic);
        long a = 0;
        long b = 0;
        for (Map.Entry<Hash, Hash> e : live.entrySet()) {
            Hash h = mix(e.getKey(), e.getValue());
            a += h.a();
            b += h.b();
        }
        return new Digest(live.size(), changelogLength[0], a, b);
    }

    // The changelog length of the last collapse (single-threaded use).
    private static final long[] changelogLength = new long[1];

    /** Key hash -> value hash of the keys alive at the end of the changelog. */
    private static Map<Hash, Hash> collapse(String bootstrap, String topic) {
        Map<Hash, Hash> live = new HashMap<>();
        changelogLength[0] = 0;
        read(bootstrap, topic, (key, value) -> {
            changelogLength[0]++;
            Hash k = hash(key, null);
            if (value == null) {
                live.remove(k);
            } else {
                live.put(k, hash(null, value));
            }
        });
        return live;
    }

    /**
     * The records (insert-only) or live key/value pairs (updating) of the two topics that the other
     * lacks, at most {@link #MAX_PRINTED} per side, as printable lines.
     */
    static List<String> differences(String bootstrap, String stockTopic, String karrowTopic, boolean updating) {
        Map<Hash, Long> balance = new HashMap<>();
        if (updating) {
            Map<Hash, Hash> stock = collapse(bootstrap, stockTopic);
            Map<Hash, Hash> karrow = collapse(bootstrap, karrowTopic);
            stock.forEach((k, v) -> balance.merge(mix(k, v), 1L, Long::sum));
            karrow.forEach((k, v) -> balance.merge(mix(k, v), -1L, Long::sum));
        } else {
            read(bootstrap, stockTopic, (key, value) -> balance.merge(hash(key, value), 1L, Long::sum));
            read(bootstrap, karrowTopic, (key, value) -> balance.merge(hash(key, value), -1L, Long::sum));
        }
        balance.values().removeIf(n -> n == 0);
        List<String> out = new ArrayList<>();
        out.addAll(lines(bootstrap, stockTopic, updating, balance, true, "only stock"));
        out.addAll(lines(bootstrap, karrowTopic, updating, balance, false, "only karrow"));
        long more = balance.values().stream().mapToLong(Math::abs).sum() - out.size();
        if (more > 0) {
            out.add("... and " + more + " more");
        }
        return out;
    }

    private static List<String> lines(String bootstrap, String topic, boolean updating, Map<Hash, Long> balance,
            boolean stockSide, String label) {
        List<String> out = new ArrayList<>();
        if (updating) {
            Map<Hash, byte[][]> last = new HashMap<>();
            read(bootstrap, topic, (key, value) -> {
                Hash k = hash(key, null);
                if (value == null) {
                    last.remove(k);
                } else {
                    last.put(k, new byte[][] {key, value});
                }
            });
            for (byte[][] kv : last.values()) {
                Long n = balance.get(mix(hash(kv[0], null), hash(null, kv[1])));
                if (n != null && (stockSide ? n > 0 : n < 0) && out.size() < MAX_PRINTED) {
                    out.add(label + ": key " + render(kv[0]) + " value " + render(kv[1]));
                }
            }
        } else {
            read(bootstrap, topic, (key, value) -> {
                Long n = balance.get(hash(key, value));
                if (n != null && (stockSide ? n > 0 : n < 0) && out.size() < MAX_PRINTED) {
                    out.add(label + ": " + (key == null ? "" : "key " + render(key) + " ") + "value " + render(value));
                }
            });
        }
        return out;
    }

    /** UTF-8 text when the bytes are printable UTF-8, else hex. */
    static String render(byte[] bytes) {
        if (bytes == null) {
            return "null";
        }
        try {
            String s = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes))
                    .toString();
            if (s.chars().noneMatch(c -> c < 0x20 && c != '\t')) {
                return s;
            }
        } catch (CharacterCodingException e) {
            // hex below
        }
        StringBuilder hex = new StringBuilder("0x");
        for (byte b : bytes) {
            hex.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
        }
        return hex.toString();
    }

    /** The hash of a record: key and value, each with a marker for null. */
    static Hash hash(byte[] key, byte[] value) {
        long a = 0x9E3779B97F4A7C15L;
        long b = 0xC2B2AE3D27D4EB4FL;
        a = absorb(a, key, 0x27D4EB2F165667C5L);
        b = absorb(b, key, 0x165667B19E3779F9L);
        a = absorb(a, value, 0x85EBCA77C2B2AE63L);
        b = absorb(b, value, 0xFF51AFD7ED558CCDL);
        return new Hash(finish(a), finish(b));
    }

    private static Hash mix(Hash key, Hash value) {
        return new Hash(finish(key.a() * 31 + value.a()), finish(key.b() * 37 + value.b()));
    }

    private static long absorb(long h, byte[] bytes, long k) {
        if (bytes == null) {
            return finish(h ^ k) * 3;
        }
        h ^= bytes.length * k;
        int i = 0;
        for (; i + 8 <= bytes.length; i += 8) {
            long w = 0;
            for (int j = 7; j >= 0; j--) {
                w = (w << 8) | (bytes[i + j] & 0xffL);
            }
            h = Long.rotateLeft(h ^ (w * k), 29) * 0x9FB21C651E98DF25L;
        }
        long w = 0;
        for (int j = bytes.length - 1; j >= i; j--) {
            w = (w << 8) | (bytes[j] & 0xffL);
        }
        h = Long.rotateLeft(h ^ (w * k), 29) * 0x9FB21C651E98DF25L;
        return finish(h);
    }

    private static long finish(long h) {
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h;
    }
}

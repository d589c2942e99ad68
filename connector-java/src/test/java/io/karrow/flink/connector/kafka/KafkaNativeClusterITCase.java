package io.karrow.flink.connector.kafka;

import static io.karrow.flink.testutils.KafkaTestSupport.admin;
import static io.karrow.flink.testutils.KafkaTestSupport.producer;
import static io.karrow.flink.testutils.SqlTestSupport.collect;
import static io.karrow.flink.testutils.SqlTestSupport.size;
import static io.karrow.flink.testutils.SqlTestSupport.tableEnv;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The native fetch on a real three-node KRaft cluster (issue #21), with the stock {@code kafka}
 * source as the oracle: a bounded {@code kafka-native} job with {@code 'scan.fetch-mode' = 'native'}
 * and {@code client.rack} reads a topic of replication factor 3 while its leaders move under it (a
 * reassignment and a preferred-leader election, a node killed, the node started again and elected
 * again); the records its stopping offsets take in are written half before the job starts and half
 * after the moves, so every move happens while it reads. Its rows (with partition and offset) must
 * equal the stock source's, and every one must have come through the native fetch.
 *
 * <p>Runs only on a cluster of its own ({@code tests/services/kafka-cluster.sh}, whose nodes it
 * kills): the environment variable {@code KARROW_TEST_KAFKA_CLUSTER_PORT} names its {@code
 * KAFKA_CLUSTER_PORT}; skipped otherwise. {@code make
 * test-kafka-cluster} runs it.
 */
class KafkaNativeClusterITCase {

    private static final String PORT = Optional.ofNullable(System.getenv("KARROW_TEST_KAFKA_CLUSTER_PORT")).orElse("");

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = KafkaTestSupport.miniClusterWithMetrics(2);

    private static String node(int n) {
        return "127.0.0.1:" + (Integer.parseInt(PORT) + 2 * (n - 1));
    }

    private static String bootstrap() {
        return node(1) + "," + node(2) + "," + node(3);
    }

    /** {@code tests/services/kafka-cluster.sh ARGS}, which must succeed. */
    private static void cluster(String... args) throws Exception {
        File script = new File(System.getProperty("user.dir"), "../tests/services/kafka-cluster.sh");
        if (!script.exists()) {
            script = new File(System.getProperty("user.dir"), "tests/services/kafka-cluster.sh");
        }
        String[] command = new String[args.length + 2];
        command[0] = "bash";
        command[1] = script.getAbsolutePath();
        System.arraycopy(args, 0, command, 2, args.length);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("KAFKA_CLUSTER_PORT", PORT);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(180, TimeUnit.SECONDS) && p.exitValue() == 0)
                .as("kafka-cluster.sh %s: %s", String.join(" ", args), out)
                .isTrue();
    }

    private static byte[] json(int n, int partition) {
        return ("{\"n\":" + n + ",\"tag\":\"p" + partition + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    private static void write(String topic, int partitions, int from, int to) throws Exception {
        try (KafkaProducer<byte[], byte[]> p = producer(bootstrap())) {
            for (int n = from; n < to; n++) {
                for (int partition = 0; partition < partitions; partition++) {
                    p.send(new ProducerRecord<>(topic, partition, null, json(n, partition)));
                }
            }
            p.flush();
        }
    }

    private static int leader(Admin admin, String topic, int partition) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        Node leader = d.partitions().get(partition).leader();
        return leader == null ? -1 : leader.id();
    }

    /** Preferred-leader elections for {@code partition} until node {@code want} leads it (it must be in the ISR first). */
    private static void elect(Admin admin, String topic, int partition, int want) throws Exception {
        TopicPartition tp = new TopicPartition(topic, partition);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (leader(admin, topic, partition) != want) {
            try {
                admin.electLeaders(ElectionType.PREFERRED, Set.of(tp)).all().get(30, TimeUnit.SECONDS);
            } catch (Exception notYet) {
                // The preferred replica is not in the ISR yet: tried again.
            }
            assertThat(System.nanoTime()).as("node %s leads %s", want, tp).isLessThan(deadline);
            Thread.sleep(500);
        }
    }

    private static String ddl(String table, String connector, String topic, int partitions, int perPartition, String extra) {
        StringBuilder stops = new StringBuilder();
        for (int p = 0; p < partitions; p++) {
            stops.append(p == 0 ? "" : ";").append("partition:").append(p).append(",offset:").append(perPartition);
        }
        return "CREATE TABLE " + table + " (n INT, tag STRING, `partition` INT METADATA VIRTUAL,"
                + " `offset` BIGINT METADATA VIRTUAL) WITH ('connector' = '" + connector + "', 'topic' = '" + topic + "',"
                + " 'properties.bootstrap.servers' = '" + bootstrap() + "', 'properties.group.id' = 'karrow-cluster-it',"
                + " 'value.format' = '" + (connector.equals("kafka") ? "json" : "json-native") + "',"
                + " 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'specific-offsets',"
                + " 'scan.bounded.specific-offsets' = '" + stops + "'" + extra + ")";
    }

    @Test
    void leadersMovingUnderANativeJobWithARackChangeNoRow() throws Exception {
        assumeTrue(!PORT.isBlank(), "no cluster: KARROW_TEST_KAFKA_CLUSTER_PORT is not set (make test-kafka-cluster)");
        String topic = "cluster-" + UUID.randomUUID().toString().substring(0, 8);
        int partitions = 4;
        int half = 5_000;
        try (Admin admin = admin(bootstrap())) {
            Map<Integer, List<Integer>> replicas = new HashMap<>();
            replicas.put(0, List.of(1, 2, 3));
            replicas.put(1, List.of(2, 3, 1));
            replicas.put(2, List.of(3, 1, 2));
            replicas.put(3, List.of(1, 3, 2));
            admin.createTopics(List.of(new NewTopic(topic, replicas))).all().get(30, TimeUnit.SECONDS);
            for (int p = 0; p < partitions; p++) {
                elect(admin, topic, p, replicas.get(p).get(0));
            }
        }
        write(topic, partitions, 0, half);

        StreamTableEnvironment tEnv = tableEnv();
        // One small batch per partition and fetch, so the job is still reading when the leaders move.
        tEnv.executeSql(ddl("fetched", "kafka-native", topic, partitions, 2 * half,
                ", 'scan.fetch-mode' = 'native', 'properties.client.rack' = 'rack-2',"
                        + " 'properties.max.partition.fetch.bytes' = '1', 'properties.fetch.max.wait.ms' = '100'"));
        tEnv.getConfig().set("pipeline.name", "cluster-native");
        // Planned here (the planner keeps per-thread state), its rows collected on another thread.
        TableResult running = tEnv.executeSql("SELECT * FROM fetched");
        CompletableFuture<Map<Row, Integer>> nativeRows = CompletableFuture.supplyAsync(() -> {
            Map<Row, Integer> rows = new HashMap<>();
            try (CloseableIterator<Row> it = running.collect()) {
                while (it.hasNext()) {
                    rows.merge(it.next(), 1, Integer::sum);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return rows;
        });

        try (Admin admin = admin(bootstrap())) {
            Thread.sleep(3_000);
            // 1. A reassignment that reorders the replicas of partitions 0 and 1, then preferred elections.
            admin.alterPartitionReassignments(Map.of(
                            new TopicPartition(topic, 0), Optional.of(new NewPartitionReassignment(List.of(2, 3, 1))),
                            new TopicPartition(topic, 1), Optional.of(new NewPartitionReassignment(List.of(3, 1, 2)))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            elect(admin, topic, 0, 2);
            elect(admin, topic, 1, 3);
            // 2. Node 3 (leading partitions 1 and 2) is killed, then 3. started again and elected again.
            cluster("kill-node", "3");
            Thread.sleep(10_000);
            cluster("start-node", "3");
            elect(admin, topic, 1, 3);
            elect(admin, topic, 2, 3);
        }
        assertThat(nativeRows).as("the native job still reads after the moves").isNotDone();
        write(topic, partitions, half, 2 * half);
        Map<Row, Integer> fetched = nativeRows.get(300, TimeUnit.SECONDS);

        tEnv.executeSql(ddl("stock", "kafka", topic, partitions, 2 * half, ""));
        tEnv.getConfig().set("pipeline.name", "cluster-stock");
        Map<Row, Integer> stock = collect(tEnv, "SELECT * FROM stock");
        assertThat(size(stock)).isEqualTo(partitions * 2 * half);
        assertThat(stock.values()).allMatch(c -> c == 1);
        assertThat(fetched).isEqualTo(stock);
        assertThat(CollectedMetrics.sum("cluster-native", "karrow", "numRecordsFetchedNatively"))
                .isEqualTo(size(stock));
    }
}

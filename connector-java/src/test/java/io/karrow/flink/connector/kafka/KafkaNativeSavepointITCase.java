package io.karrow.flink.connector.kafka;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.avro.corpus.AvroCorpora;
import io.karrow.flink.formats.avro.corpus.AvroCorpus;
import io.karrow.flink.connector.kafka.FusedJobs.Side;
import io.karrow.flink.testutils.KafkaJobEnvironment;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Savepoint compatibility over a real broker: an unbounded {@code kafka} source job is stopped with a
 * savepoint, the same query restarts from it with {@code kafka-native}, is stopped with a savepoint
 * again and restarts with {@code kafka}. Each job writes {@code partition:offset} of every record it
 * reads to an output topic; the union must be every input record exactly once (the jobs start from
 * {@code earliest-offset}, so a restore that lost the offsets would duplicate).
 */
class KafkaNativeSavepointITCase {

    private static final int PER_STEP = 600;
    private static final String BOOTSTRAP = KafkaTestSupport.bootstrap();

    @RegisterExtension
    static final KafkaJobEnvironment ENV = KafkaJobEnvironment.withRegistry(2);

    private static List<String> readAll(String topic, int expected) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(info -> new TopicPartition(topic, info.partition())).collect(Collectors.toList());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    values.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
            // Anything extra (a duplicate) would arrive shortly after.
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofSeconds(2))) {
                values.add(new String(r.value(), StandardCharsets.UTF_8));
            }
        }
        return values;
    }

    private static JobClient start(String connector, String format, String in, String out, String savepoint) {
        return start(connector, format, in, out, savepoint, "");
    }

    private static JobClient start(
            String connector, String format, String in, String out, String savepoint, String extraOptions) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        if (savepoint != null) {
            tEnv.getConfig().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        tEnv.executeSql("CREATE TABLE src (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,"
                + " date_time TIMESTAMP(3), extra STRING, `partition` INT METADATA VIRTUAL, `offset` BIGINT METADATA VIRTUAL)"
                + " WITH ('connector' = '" + connector + "', 'topic' = '" + in + "',"
                + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "', 'properties.group.id' = 'karrow-savepoint-it',"
                + "'scan.startup.mode' = 'earliest-offset',"
                + "'value.format' = '" + format + "', 'value." + format + ".url' = '" + ENV.registry().url() + "'"
                + extraOptions + ")");
        tEnv.executeSql("CREATE TABLE snk (id STRING) WITH ('connector' = 'kafka', 'topic' = '" + out + "',"
                + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "', 'value.format' = 'raw')");
        TableResult result = tEnv.executeSql("INSERT INTO snk SELECT CONCAT(CAST(`partition` AS STRING), ':',"
                + " CAST(`offset` AS STRING)) FROM src WHERE price >= 0 OR price < 0 OR price IS NULL");
        return result.getJobClient().orElseThrow();
    }

    private static String stopWithSavepoint(JobClient job, Path dir) throws Exception {
        return job.stopWithSavepoint(false, dir.toUri().toString(), SavepointFormatType.CANONICAL).get(120, TimeUnit.SECONDS);
    }

    private static Set<String> expectedIds(int total) {
        // Record i went to partition i % 3 at offset i / 3.
        return IntStream.range(0, total).mapToObj(i -> (i % 3) + ":" + (i / 3)).collect(Collectors.toSet());
    }

    /** With each {@code scan.fetch-mode} of the {@code kafka-native} leg. */
    @ParameterizedTest(name = "scan.fetch-mode = {0}")
    @ValueSource(strings = {"kafka-consumer", "native"})
    void savepointsMoveFromKafkaToKafkaNativeAndBack(String fetchMode, @TempDir Path savepoints) throws Exception {
        String in = createTopic("savepoint-in", 3);
        String out = createTopic("savepoint-out", 1);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = ENV.registry().register(in + "-value", corpus.writers().get(0).toString());

        ThreePartitionBids.produce(in, id, corpus, 0, PER_STEP);
        JobClient stock = start("kafka", "avro-confluent-reference", in, out, null);
        assertThat(readAll(out, PER_STEP)).hasSize(PER_STEP);
        String first = stopWithSavepoint(stock, savepoints);

        ThreePartitionBids.produce(in, id, corpus, PER_STEP, PER_STEP);
        JobClient batched = start("kafka-native", "avro-confluent-native", in, out, first,
                ", 'scan.fetch-mode' = '" + fetchMode + "'");
        List<String> afterNative = readAll(out, 2 * PER_STEP);
        assertThat(afterNative).hasSize(2 * PER_STEP);
        assertThat(new HashSet<>(afterNative)).isEqualTo(expectedIds(2 * PER_STEP));
        String second = stopWithSavepoint(batched, savepoints);

        ThreePartitionBids.produce(in, id, corpus, 2 * PER_STEP, PER_STEP);
        JobClient back = start("kafka", "avro-confluent-reference", in, out, second);
        List<String> all = readAll(out, 3 * PER_STEP);
        back.cancel().get(60, TimeUnit.SECONDS);
        assertThat(all).hasSize(3 * PER_STEP).doesNotHaveDuplicates();
        assertThat(new HashSet<>(all)).isEqualTo(expectedIds(3 * PER_STEP));
    }

    /**
     * Savepoints between the unfused and the fused job, in both directions: {@link FusedJobs#QUERY}
     * runs stock, then fused, then on {@code kafka-native} with the operator core off, then fused
     * again, then stock; each leg restores the previous leg's savepoint and reads one more step of
     * input. With {@code fullSink}, the kafka-native legs write through {@code kafka-native} with
     * native produce, which the fused legs fuse into the scan (full fusion); otherwise they write
     * through the stock sink (source fusion). The union of the output must be exactly the stock
     * job's output over the whole input, each record once (a lost offset would duplicate, since
     * every leg starts from {@code earliest-offset}); each leg's plan and counters must show its path.
     */
    @ParameterizedTest(name = "full fusion = {0}")
    @ValueSource(booleans = {false, true})
    void savepointsMoveBetweenTheUnfusedAndTheFusedJob(boolean fullSink, @TempDir Path savepoints) throws Exception {
        String in = createTopic("savepoint-fused-in", 3);
        String out = createTopic("savepoint-fused-out", 1);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = ENV.registry().register(in + "-value", corpus.writers().get(0).toString());
        List<Side> legs = List.of(Side.STOCK, Side.FUSED, Side.UNFUSED, Side.FUSED, Side.STOCK);
        String savepoint = null;
        int kept = 0;
        List<String> all = List.of();
        for (int step = 0; step < legs.size(); step++) {
            Side side = legs.get(step);
            kept += FusedJobs.produce(in, id, corpus, step * PER_STEP, PER_STEP);
            String jobName = "savepoint-fused-" + step + "-" + UUID.randomUUID();
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            StreamTableEnvironment tEnv = FusedJobs.tableEnv(env, side, jobName);
            if (savepoint != null) {
                tEnv.getConfig().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
            }
            tEnv.executeSql(FusedJobs.sourceDdl(side, in, ENV.registry().url(), "karrow-savepoint-it", ""));
            tEnv.executeSql(FusedJobs.sinkDdl(side, fullSink, out, ""));
            String insert = "INSERT INTO snk " + FusedJobs.QUERY;
            FusedJobs.assertPlan(side, fullSink, tEnv.explainSql(insert));
            JobClient job = tEnv.executeSql(insert).getJobClient().orElseThrow();
            List<String> sofar = readAll(out, kept);
            assertThat(sofar).as("leg %d (%s)", step, side).hasSize(kept);
            if (side != Side.STOCK) {
                FusedJobs.assertRan(side, fullSink, jobName, 1);
            }
            if (step == legs.size() - 1) {
                job.cancel().get(60, TimeUnit.SECONDS);
                all = sofar;
            } else {
                savepoint = stopWithSavepoint(job, savepoints);
            }
        }
        Map<String, Integer> expected = FusedJobs.stockValues(in, ENV.registry().url());
        assertThat(expected.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(kept);
        assertThat(all).hasSize(kept).doesNotHaveDuplicates();
        assertThat(new HashSet<>(all)).isEqualTo(expected.keySet());
    }
}

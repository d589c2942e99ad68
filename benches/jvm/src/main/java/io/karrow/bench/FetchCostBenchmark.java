package io.karrow.bench;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The Java half of {@code benches/run-fetch-bench.sh}: reads every record of a topic with Kafka's
 * Java consumer, configured as Flink's {@code KafkaSource} configures it for {@code kafka-native}
 * (byte-array deserializers, no auto commit, {@code max.poll.records} 2,000, partitions assigned
 * from their beginning), and prints the process CPU time per record for each round.
 *
 * <p>{@code FetchCostBenchmark BOOTSTRAP TOPIC PARTITIONS RECORDS ROUNDS}. All rounds run in one JVM
 * (the consumer is created anew and seeks to the beginning each round) so later rounds are JIT-warm;
 * each payload's length and first byte are summed so no read is optimised away. One line per round:
 * {@code java round=R records=N wall_s=W cpu_s=C cpu_us_per_record=U checksum=S}, where the CPU time is
 * the whole JVM's (consumer, JIT and GC threads) between the first poll and the last.
 */
public final class FetchCostBenchmark {

    private FetchCostBenchmark() {}

    /** Runs the rounds; see the class comment for the arguments. */
    public static void main(String[] args) {
        if (args.length != 5) {
            throw new IllegalArgumentException("usage: FetchCostBenchmark BOOTSTRAP TOPIC PARTITIONS RECORDS ROUNDS");
        }
        String bootstrap = args[0];
        String topic = args[1];
        int partitions = Integer.parseInt(args[2]);
        long records = Long.parseLong(args[3]);
        int rounds = Integer.parseInt(args[4]);
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        for (int round = 1; round <= rounds; round++) {
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties(bootstrap))) {
                List<TopicPartition> assignment = new ArrayList<>();
                for (int p = 0; p < partitions; p++) {
                    assignment.add(new TopicPartition(topic, p));
                }
                consumer.assign(assignment);
                consumer.seekToBeginning(assignment);
                long read = 0;
                long checksum = 0;
                long idleSince = System.nanoTime();
                long cpuStart = os.getProcessCpuTime();
                long start = System.nanoTime();
                while (read < records) {
                    ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(100));
                    for (ConsumerRecord<byte[], byte[]> record : polled) {
                        byte[] value = record.value();
                        checksum += value == null ? 0 : value.length + (value.length > 0 ? value[0] & 0xff : 0);
                        read++;
                    }
                    if (!polled.isEmpty()) {
                        idleSince = System.nanoTime();
                    } else if (System.nanoTime() - idleSince > 30_000_000_000L) {
                        throw new IllegalStateException("only " + read + " of " + records + " records arrived");
                    }
                }
                double wall = (System.nanoTime() - start) / 1e9;
                double cpu = (os.getProcessCpuTime() - cpuStart) / 1e9;
                System.out.printf("java round=%d records=%d wall_s=%.3f cpu_s=%.3f cpu_us_per_record=%.3f checksum=%d%n",
                        round, read, wall, cpu, cpu * 1e6 / read, checksum);
            }
        }
    }

    private static Properties properties(String bootstrap) {
        Properties props = new Properties();
        props.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.setProperty(ConsumerConfig.GROUP_ID_CONFIG, "karrow-fetch-bench");
        props.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.setProperty(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        props.setProperty(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.setProperty(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return props;
    }
}

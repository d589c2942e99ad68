package io.karrow.flink.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

import java.util.Properties;

/**
 * The client properties {@code kafka-native} derives: the consumer's for its split readers, the
 * native fetch's configuration, and the producer's for its sink.
 */
class KafkaNativeSourceTest {

    @Test
    void maxPollRecordsDefaultsToTheBatchSizeUnlessTheTableSetsIt() {
        Properties table = new Properties();
        table.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9092");
        Properties used = KafkaNativeSource.withDefaultMaxPollRecords(table);
        assertThat(used.getProperty(ConsumerConfig.MAX_POLL_RECORDS_CONFIG))
                .isEqualTo(String.valueOf(KafkaNativeSource.DEFAULT_MAX_POLL_RECORDS));
        assertThat(used.getProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG)).isEqualTo("127.0.0.1:9092");
        assertThat(table).doesNotContainKey(ConsumerConfig.MAX_POLL_RECORDS_CONFIG);

        table.setProperty(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "17");
        assertThat(KafkaNativeSource.withDefaultMaxPollRecords(table).getProperty(ConsumerConfig.MAX_POLL_RECORDS_CONFIG))
                .isEqualTo("17");
    }

    @Test
    void nativeFetchTakesTheConsumersFetchSettingsWithTheirDefaults() {
        Properties props = new Properties();
        props.setProperty("client.id.prefix", "grp");
        assertThat(NativeFetchSplitReader.fetchConfig(props, 3, null))
                .isEqualTo("{\"clientId\":\"grp-native-3\",\"readCommitted\":false,\"maxWaitMs\":500,"
                        + "\"minBytes\":1,\"maxBytes\":52428800,\"partitionMaxBytes\":1048576}");
        props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.setProperty(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
        props.setProperty(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, "1024");
        props.setProperty(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, "1000000");
        props.setProperty(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "65536");
        assertThat(NativeFetchSplitReader.fetchConfig(props, 0, null))
                .isEqualTo("{\"clientId\":\"grp-native-0\",\"readCommitted\":true,\"maxWaitMs\":50,"
                        + "\"minBytes\":1024,\"maxBytes\":1000000,\"partitionMaxBytes\":65536}");
        // client.rack (KIP-392), or the source's rack id when it names one, as Flink gives its consumer.
        props.setProperty(ConsumerConfig.CLIENT_RACK_CONFIG, "rack-2");
        assertThat(NativeFetchSplitReader.fetchConfig(props, 0, null))
                .endsWith(",\"partitionMaxBytes\":65536,\"rack\":\"rack-2\"}");
        assertThat(NativeFetchSplitReader.fetchConfig(props, 0, "rack-3"))
                .endsWith(",\"rack\":\"rack-3\"}");
        assertThat(NativeFetchSplitReader.fetchConfig(props, 0, ""))
                .endsWith(",\"rack\":\"rack-2\"}");
    }

    @Test
    void producerBatchSizeDefaultsToTheNativeDefaultUnlessTheTableSetsIt() {
        Properties table = new Properties();
        table.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9092");
        Properties used = KafkaNativeDynamicSink.withDefaultBatchSize(table);
        assertThat(used.getProperty(ProducerConfig.BATCH_SIZE_CONFIG))
                .isEqualTo(String.valueOf(KafkaNativeDynamicSink.DEFAULT_BATCH_SIZE));
        assertThat(table).doesNotContainKey(ProducerConfig.BATCH_SIZE_CONFIG);
        table.setProperty(ProducerConfig.BATCH_SIZE_CONFIG, "4096");
        assertThat(KafkaNativeDynamicSink.withDefaultBatchSize(table).getProperty(ProducerConfig.BATCH_SIZE_CONFIG))
                .isEqualTo("4096");
    }
}

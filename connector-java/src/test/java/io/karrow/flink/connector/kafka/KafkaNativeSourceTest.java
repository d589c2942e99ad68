package io.karrow.flink.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

import java.util.Properties;

/** The consumer properties {@link KafkaNativeSource} hands its split readers. */
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
}

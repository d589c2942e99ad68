package io.karrow.flink.connector.kafka;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.api.ValidationException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The options {@code kafka-native} adds to Flink's {@code kafka} options (which it accepts
 * unchanged).
 */
public final class KafkaNativeConnectorOptions {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaNativeConnectorOptions.class);

    /** {@code scan.fetch-mode} value: fetch with Kafka's Java consumer (the default). */
    public static final String FETCH_MODE_KAFKA_CONSUMER = "kafka-consumer";

    /** {@code scan.fetch-mode} value: fetch with karrow's native reader of Kafka's Fetch protocol. */
    public static final String FETCH_MODE_NATIVE = "native";

    /** How the source fetches records. */
    public static final ConfigOption<String> SCAN_FETCH_MODE = ConfigOptions.key("scan.fetch-mode")
            .stringType()
            .defaultValue(FETCH_MODE_KAFKA_CONSUMER)
            .withDescription("How the kafka-native source fetches records: 'kafka-consumer' (Kafka's Java"
                    + " consumer, as the kafka connector) or 'native' (Kafka's Fetch protocol read natively,"
                    + " no object per record; PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL with PLAIN or SCRAM;"
                    + " other SASL mechanisms keep Kafka's consumer, with a log line). Offsets,"
                    + " metadata and commits always use the Java consumer.");

    /** {@code sink.produce-mode} value: write with Kafka's Java producer inside Flink's KafkaSink (the default). */
    public static final String PRODUCE_MODE_KAFKA_PRODUCER = "kafka-producer";

    /** {@code sink.produce-mode} value: write with karrow's native producer. */
    public static final String PRODUCE_MODE_NATIVE = "native";

    /** How the sink writes records. */
    public static final ConfigOption<String> SINK_PRODUCE_MODE = ConfigOptions.key("sink.produce-mode")
            .stringType()
            .defaultValue(PRODUCE_MODE_KAFKA_PRODUCER)
            .withDescription("How the kafka-native sink writes records: 'kafka-producer' (Kafka's Java producer"
                    + " inside Flink's KafkaSink, fed one batch-encoded record at a time) or 'native' (record"
                    + " batches written natively from the encoded values, with Flink's delivery guarantees and"
                    + " two-phase commit; TLS and SASL PLAIN / SCRAM as for the native fetch, one topic, the 'default', 'round-robin' or"
                    + " 'fixed' partitioner, a value format that encodes natively). The state is the stock"
                    + " sink's either way, so savepoints move between the modes and the kafka connector.");

    private KafkaNativeConnectorOptions() {}

    /**
     * Whether {@code options} (a table's) select the native producer; fails in Flink's style for an
     * unknown mode. A security setting the native client cannot speak ({@link NativeKafkaSecurity#unsupported})
     * keeps Kafka's Java producer, with a log line saying why.
     */
    public static boolean nativeProduce(Map<String, String> options) {
        String mode = options.getOrDefault(SINK_PRODUCE_MODE.key(), SINK_PRODUCE_MODE.defaultValue())
                .trim()
                .toLowerCase(Locale.ROOT);
        switch (mode) {
            case PRODUCE_MODE_KAFKA_PRODUCER:
                return false;
            case PRODUCE_MODE_NATIVE:
                String why = NativeKafkaSecurity.unsupported(clientProperties(options));
                if (why != null) {
                    LOG.warn("'{}' = '{}' writes with Kafka's Java producer instead: {}.", SINK_PRODUCE_MODE.key(),
                            PRODUCE_MODE_NATIVE, why);
                    return false;
                }
                return true;
            default:
                throw new ValidationException("Invalid value for option '" + SINK_PRODUCE_MODE.key() + "': '"
                        + options.get(SINK_PRODUCE_MODE.key()) + "'. Supported values are ["
                        + PRODUCE_MODE_KAFKA_PRODUCER + ", " + PRODUCE_MODE_NATIVE + "].");
        }
    }

    /**
     * Whether {@code options} (a table's) select the native fetch; fails in Flink's style for an
     * unknown mode. A security setting the native client cannot speak ({@link NativeKafkaSecurity#unsupported})
     * keeps Kafka's Java consumer, with a log line saying why.
     */
    public static boolean nativeFetch(Map<String, String> options) {
        String mode = options.getOrDefault(SCAN_FETCH_MODE.key(), SCAN_FETCH_MODE.defaultValue())
                .trim()
                .toLowerCase(Locale.ROOT);
        switch (mode) {
            case FETCH_MODE_KAFKA_CONSUMER:
                return false;
            case FETCH_MODE_NATIVE:
                String why = NativeKafkaSecurity.unsupported(clientProperties(options));
                if (why != null) {
                    LOG.warn("'{}' = '{}' reads with Kafka's Java consumer instead: {}.", SCAN_FETCH_MODE.key(),
                            FETCH_MODE_NATIVE, why);
                    return false;
                }
                return true;
            default:
                throw new ValidationException("Invalid value for option '" + SCAN_FETCH_MODE.key() + "': '"
                        + options.get(SCAN_FETCH_MODE.key()) + "'. Supported values are ["
                        + FETCH_MODE_KAFKA_CONSUMER + ", " + FETCH_MODE_NATIVE + "].");
        }
    }

    /** The Kafka client properties of a table: its {@code properties.*} options without the prefix. */
    static Map<String, String> clientProperties(Map<String, String> options) {
        Map<String, String> out = new HashMap<>();
        for (Map.Entry<String, String> e : options.entrySet()) {
            if (e.getKey().startsWith("properties.")) {
                out.put(e.getKey().substring("properties.".length()), e.getValue());
            }
        }
        return out;
    }
}

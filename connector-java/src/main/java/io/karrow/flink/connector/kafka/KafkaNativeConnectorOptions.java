package io.karrow.flink.connector.kafka;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.api.ValidationException;

import java.util.Locale;
import java.util.Map;

/**
 * The options {@code kafka-native} adds to Flink's {@code kafka} options (which it accepts
 * unchanged).
 */
public final class KafkaNativeConnectorOptions {

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
                    + " no object per record; plaintext listeners only). Offsets,"
                    + " metadata and commits always use the Java consumer.");

    private KafkaNativeConnectorOptions() {}

    /**
     * Whether {@code options} (a table's) select the native fetch; fails in Flink's style for an
     * unknown mode, or for the native fetch with a security protocol it cannot speak.
     */
    public static boolean nativeFetch(Map<String, String> options) {
        String mode = options.getOrDefault(SCAN_FETCH_MODE.key(), SCAN_FETCH_MODE.defaultValue())
                .trim()
                .toLowerCase(Locale.ROOT);
        switch (mode) {
            case FETCH_MODE_KAFKA_CONSUMER:
                return false;
            case FETCH_MODE_NATIVE:
                String protocol = options.getOrDefault("properties.security.protocol", "PLAINTEXT").trim();
                if (!protocol.equalsIgnoreCase("PLAINTEXT")) {
                    throw new ValidationException("'" + SCAN_FETCH_MODE.key() + "' = '" + FETCH_MODE_NATIVE
                            + "' reads plaintext listeners only, but 'properties.security.protocol' is '"
                            + protocol + "'. Use '" + FETCH_MODE_KAFKA_CONSUMER + "'.");
                }
                return true;
            default:
                throw new ValidationException("Invalid value for option '" + SCAN_FETCH_MODE.key() + "': '"
                        + options.get(SCAN_FETCH_MODE.key()) + "'. Supported values are ["
                        + FETCH_MODE_KAFKA_CONSUMER + ", " + FETCH_MODE_NATIVE + "].");
        }
    }
}

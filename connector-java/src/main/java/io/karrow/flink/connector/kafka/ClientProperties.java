package io.karrow.flink.connector.kafka;

import java.util.Properties;

/** Kafka client properties with the defaults {@code kafka-native} sets where a table sets none. */
final class ClientProperties {

    private ClientProperties() {}

    /** {@code props} when it sets {@code key}, else a copy with {@code key} = {@code value}. */
    static Properties withDefault(Properties props, String key, Object value) {
        if (props.containsKey(key)) {
            return props;
        }
        Properties copy = new Properties();
        copy.putAll(props);
        copy.setProperty(key, String.valueOf(value));
        return copy;
    }
}

package io.karrow.flink.connector.kafka.sink;

import io.karrow.flink.connector.kafka.NativeKafkaSecurity;
import io.karrow.flink.connector.kafka.NativeOAuthBearerLogin;
import io.karrow.flink.nativebridge.JsonText;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * What the native producer of a {@code kafka-native} sink is opened with: the table's Kafka
 * producer properties, resolved by Kafka's own {@link ProducerConfig} (defaults, validation, and the
 * rules that turn idempotence off or refuse a transactional id without it, exactly as Kafka's Java
 * producer applies them), the target topic and the {@code sink.partitioner}.
 */
public final class NativeProducerSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    /** How records without an explicit partition get one. */
    public enum Partitioner {
        /** {@code default} and {@code round-robin}: Kafka's producer decides (murmur2 of the key, sticky without one). */
        DEFAULT,
        /** {@code fixed}: Flink's {@code FlinkFixedPartitioner}. */
        FIXED
    }

    private final Properties properties;
    private final String topic;
    private final Partitioner partitioner;

    /**
     * Creates the settings.
     *
     * @param properties the table's Kafka producer properties ({@code properties.*})
     * @param topic the one topic the sink writes
     * @param partitioner the {@code sink.partitioner}
     */
    public NativeProducerSettings(Properties properties, String topic, Partitioner partitioner) {
        this.properties = new Properties();
        this.properties.putAll(properties);
        this.topic = topic;
        this.partitioner = partitioner;
    }

    /** The properties, for the Java clients of the cold paths (Flink's admin-based abort strategy). */
    public Properties properties() {
        Properties copy = new Properties();
        copy.putAll(properties);
        return copy;
    }

    /** The topic the sink writes. */
    public String topic() {
        return topic;
    }

    /** {@code transaction.timeout.ms} as configured (for messages). */
    public String transactionTimeout() {
        return properties.getProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG);
    }

    /**
     * The native producer's configuration JSON ({@code docs/jni-contract.md}, "Native produce").
     *
     * @param transactional whether the producer runs transactions (its ids are set per checkpoint)
     * @param subtask the writer's subtask index (the fixed partitioner's input)
     * @param clientIdSuffix appended to {@code client.id} (or to "karrow-producer" without one)
     */
    public String configJson(boolean transactional, int subtask, String clientIdSuffix) {
        return configJson(transactional, subtask, clientIdSuffix, null);
    }

    /**
     * {@link #configJson(boolean, int, String)} with the OAUTHBEARER token of {@code login} (null: a
     * login for this call only, when the table uses OAUTHBEARER).
     */
    public String configJson(
            boolean transactional, int subtask, String clientIdSuffix, @Nullable NativeOAuthBearerLogin login) {
        Properties props = new Properties();
        props.putAll(properties);
        props.putIfAbsent(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.putIfAbsent(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        if (transactional) {
            // Kafka's checks of a transactional producer (idempotence required) run with the id set.
            props.setProperty(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "karrow-resolve");
        } else {
            props.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        }
        ProducerConfig c = new ProducerConfig(props);
        String compression = c.getString(ProducerConfig.COMPRESSION_TYPE_CONFIG).toLowerCase(Locale.ROOT);
        int level;
        switch (compression) {
            case "gzip":
                level = c.getInt(ProducerConfig.COMPRESSION_GZIP_LEVEL_CONFIG);
                break;
            case "zstd":
                level = c.getInt(ProducerConfig.COMPRESSION_ZSTD_LEVEL_CONFIG);
                break;
            default:
                level = 0;
        }
        String acks = c.getString(ProducerConfig.ACKS_CONFIG).trim().toLowerCase(Locale.ROOT);
        int acksValue = acks.equals("all") ? -1 : Integer.parseInt(acks);
        String clientId = c.getString(ProducerConfig.CLIENT_ID_CONFIG);
        if (clientId == null || clientId.isEmpty()) {
            clientId = "karrow-producer";
        }
        StringBuilder out = new StringBuilder("{\"bootstrap\":[");
        List<String> servers = c.getList(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
        for (int i = 0; i < servers.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            JsonText.appendString(out, servers.get(i).trim());
        }
        out.append("],\"clientId\":");
        JsonText.appendString(out, clientId + clientIdSuffix);
        out.append(",\"acks\":").append(acksValue)
                .append(",\"idempotence\":").append(c.getBoolean(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG))
                .append(",\"compression\":");
        JsonText.appendString(out, compression);
        out.append(",\"compressionLevel\":").append(level)
                .append(",\"batchSize\":").append(c.getInt(ProducerConfig.BATCH_SIZE_CONFIG))
                .append(",\"lingerMs\":").append(c.getLong(ProducerConfig.LINGER_MS_CONFIG))
                .append(",\"maxRequestSize\":").append(c.getInt(ProducerConfig.MAX_REQUEST_SIZE_CONFIG))
                .append(",\"maxInFlight\":").append(c.getInt(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION))
                .append(",\"requestTimeoutMs\":").append(c.getInt(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG))
                .append(",\"deliveryTimeoutMs\":").append(c.getInt(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG))
                .append(",\"retries\":").append(c.getInt(ProducerConfig.RETRIES_CONFIG))
                .append(",\"retryBackoffMs\":").append(c.getLong(ProducerConfig.RETRY_BACKOFF_MS_CONFIG))
                .append(",\"retryBackoffMaxMs\":").append(c.getLong(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG))
                .append(",\"metadataMaxAgeMs\":").append(c.getLong(ProducerConfig.METADATA_MAX_AGE_CONFIG))
                .append(",\"maxBlockMs\":").append(c.getLong(ProducerConfig.MAX_BLOCK_MS_CONFIG))
                .append(",\"bufferMemory\":").append(c.getLong(ProducerConfig.BUFFER_MEMORY_CONFIG))
                .append(",\"connectTimeoutMs\":")
                .append(c.getLong(ProducerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG))
                .append(",\"transactionalId\":null,\"transactional\":").append(transactional)
                .append(",\"transactionTimeoutMs\":").append(c.getInt(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG))
                .append(",\"topics\":[");
        JsonText.appendString(out, topic);
        out.append("],\"partitioner\":\"").append(partitioner == Partitioner.FIXED ? "fixed" : "default")
                .append("\",\"subtask\":").append(subtask)
                .append(NativeKafkaSecurity.configJson(props, login)).append('}');
        return out.toString();
    }

    /**
     * The configuration of a producer used only to end transactions (the committer's), with the
     * OAUTHBEARER token of {@code login} (null: a login for this call only, when the table uses
     * OAUTHBEARER).
     */
    public String committerConfigJson(int subtask, @Nullable NativeOAuthBearerLogin login) {
        Properties props = new Properties();
        props.putAll(properties);
        props.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        props.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        return new NativeProducerSettings(props, topic, partitioner).configJson(false, subtask, "-committer", login);
    }
}

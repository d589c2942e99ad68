package io.karrow.flink.connector.kafka;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;

import java.util.Set;

/**
 * Factory of the {@code 'connector' = 'kafka-native'} tables: Flink's {@code kafka} connector under
 * another identifier, with karrow's runtimes ({@link FlinkKafkaTableFactory} holds the behaviour).
 *
 * <p>This class is what the services file names, and it loads whether or not Flink's Kafka connector
 * is on the class path: Flink's filesystem connector lists every table factory through a raw {@code
 * ServiceLoader}, so a factory that cannot load would break format discovery for every format there.
 * Without Flink's Kafka connector, {@code kafka-native} tables fail with a message saying what to
 * add; everything else works.
 */
public class KafkaNativeDynamicTableFactory implements DynamicTableSourceFactory, DynamicTableSinkFactory {

    /** The connector identifier. */
    public static final String IDENTIFIER = "kafka-native";

    /** What both factory roles of the delegate are, so that one field holds it. */
    interface Delegate extends DynamicTableSourceFactory, DynamicTableSinkFactory {}

    /** The delegate, or {@code null} without Flink's Kafka connector. */
    private final Delegate delegate;
    /** Why the delegate could not be made, or {@code null}. */
    private final LinkageError missing;

    /** A factory that delegates to Flink's Kafka connector when it is on the class path. */
    public KafkaNativeDynamicTableFactory() {
        Delegate made = null;
        LinkageError error = null;
        try {
            made = newDelegate();
        } catch (LinkageError e) {
            error = e;
        }
        this.delegate = made;
        this.missing = error;
    }

    /** Kept apart so that Flink's Kafka classes are resolved here, inside the constructor's try. */
    private static Delegate newDelegate() {
        return new FlinkKafkaTableFactory();
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return delegate().requiredOptions();
    }

    /** Flink's {@code kafka} options plus {@code scan.fetch-mode} and {@code sink.produce-mode}. */
    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return delegate().optionalOptions();
    }

    @Override
    public Set<ConfigOption<?>> forwardOptions() {
        return delegate().forwardOptions();
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        return delegate().createDynamicTableSource(context);
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        return delegate().createDynamicTableSink(context);
    }

    private Delegate delegate() {
        if (delegate == null) {
            throw new ValidationException("'connector' = '" + IDENTIFIER + "' needs Flink's Kafka connector on the"
                    + " class path: flink-connector-kafka 5.0.0-2.2 with kafka-clients next to"
                    + " karrow-connector-kafka, or flink-sql-connector-kafka 5.0.0-2.2 next to"
                    + " karrow-sql-connector-kafka (docs/installing.md); missing: " + missing.getMessage(), missing);
        }
        return delegate;
    }
}

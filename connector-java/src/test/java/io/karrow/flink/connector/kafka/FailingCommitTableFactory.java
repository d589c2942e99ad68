package io.karrow.flink.connector.kafka;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.SinkTransformation;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A test connector, {@code 'connector' = 'karrow-failing-commit'}: the sink of the connector named
 * by {@code 'delegate'} (with every other option of the table), its Sink V2 wrapped in a {@link
 * FailingCommitSink} whose committer fails once before it commits ({@code 'label'} names where that
 * is recorded). The same failure for the stock {@code kafka} sink and for {@code kafka-native}'s.
 */
public final class FailingCommitTableFactory implements DynamicTableSinkFactory {

    static final String IDENTIFIER = "karrow-failing-commit";
    static final ConfigOption<String> DELEGATE =
            ConfigOptions.key("delegate").stringType().noDefaultValue().withDescription("The wrapped connector.");
    static final ConfigOption<String> LABEL = ConfigOptions.key("label")
            .stringType()
            .noDefaultValue()
            .withDescription("Where the injected failure is recorded (FailingCommitSink.Injection).");

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(DELEGATE, LABEL);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        Map<String, String> options = new HashMap<>(context.getCatalogTable().getOptions());
        String delegate = options.remove(DELEGATE.key());
        String label = options.remove(LABEL.key());
        if (delegate == null || label == null) {
            throw new IllegalArgumentException(IDENTIFIER + " needs '" + DELEGATE.key() + "' and '" + LABEL.key() + "'");
        }
        options.put(FactoryUtil.CONNECTOR.key(), delegate);
        ResolvedCatalogTable table = context.getCatalogTable().copy(options);
        DynamicTableSinkFactory factory =
                FactoryUtil.discoverFactory(context.getClassLoader(), DynamicTableSinkFactory.class, delegate);
        return new FailingCommitTableSink(factory.createDynamicTableSink(new Context() {
            @Override
            public ObjectIdentifier getObjectIdentifier() {
                return context.getObjectIdentifier();
            }

            @Override
            public ResolvedCatalogTable getCatalogTable() {
                return table;
            }

            @Override
            public Map<String, String> getEnrichmentOptions() {
                return context.getEnrichmentOptions();
            }

            @Override
            public ReadableConfig getConfiguration() {
                return context.getConfiguration();
            }

            @Override
            public ClassLoader getClassLoader() {
                return context.getClassLoader();
            }

            @Override
            public boolean isTemporary() {
                return context.isTemporary();
            }
        }), label);
    }

    /** The wrapped connector's table sink, its runtime sink behind {@link FailingCommitSink}. */
    private static final class FailingCommitTableSink implements DynamicTableSink {
        private final DynamicTableSink sink;
        private final String label;

        FailingCommitTableSink(DynamicTableSink sink, String label) {
            this.sink = sink;
            this.label = label;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            return sink.getChangelogMode(requestedMode);
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            SinkRuntimeProvider provider = sink.getSinkRuntimeProvider(context);
            return new DataStreamSinkProvider() {
                @Override
                public DataStreamSink<?> consumeDataStream(ProviderContext providerContext, DataStream<RowData> input) {
                    Sink<RowData> inner;
                    String name = null;
                    int parallelism = input.getParallelism();
                    if (provider instanceof SinkV2Provider) {
                        inner = ((SinkV2Provider) provider).createSink();
                        parallelism = ((SinkV2Provider) provider).getParallelism().orElse(parallelism);
                    } else if (provider instanceof DataStreamSinkProvider) {
                        // The provider builds its sink into a throw-away environment (the job
                        // never sees that transformation); its Sink V2 is taken from there.
                        DataStream<RowData> detached =
                                new DataStream<>(new StreamExecutionEnvironment(), input.getTransformation());
                        DataStreamSink<?> built =
                                ((DataStreamSinkProvider) provider).consumeDataStream(providerContext, detached);
                        if (!(built.getTransformation() instanceof SinkTransformation)) {
                            throw new IllegalArgumentException("not a Sink V2: " + built.getTransformation());
                        }
                        @SuppressWarnings("unchecked")
                        SinkTransformation<RowData, ?> transformation =
                                (SinkTransformation<RowData, ?>) built.getTransformation();
                        inner = transformation.getSink();
                        name = transformation.getName();
                        parallelism = transformation.getParallelism();
                    } else {
                        throw new IllegalArgumentException("unsupported sink provider: " + provider);
                    }
                    DataStreamSink<RowData> end = input.sinkTo(new FailingCommitSink<>(inner, label));
                    end.setParallelism(parallelism);
                    if (name != null) {
                        end.name(name);
                    }
                    providerContext.generateUid("failing-commit-sink").ifPresent(end::uid);
                    return end;
                }
            };
        }

        @Override
        public DynamicTableSink copy() {
            return new FailingCommitTableSink(sink.copy(), label);
        }

        @Override
        public String asSummaryString() {
            return "failing commit: " + sink.asSummaryString();
        }
    }
}

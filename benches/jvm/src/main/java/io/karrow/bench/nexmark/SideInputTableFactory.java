package io.karrow.bench.nexmark;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.LookupFunction;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Connector {@code nexmark-side-input}: q13's bounded side input as a lookup table. A table {@code
 * (key BIGINT, value STRING)} over a file of {@code key,value} lines (what upstream's side-input
 * generator writes), read whole when a lookup function opens and looked up by {@code key}. Flink 2.2
 * has no lookup-capable file source (upstream q13 used the legacy CSV source, removed in Flink 2), so
 * the suite brings this one; both sides of the benchmark use it.
 */
public final class SideInputTableFactory implements DynamicTableSourceFactory {

    /** The connector identifier. */
    public static final String IDENTIFIER = "nexmark-side-input";

    static final ConfigOption<String> PATH = ConfigOptions.key("path").stringType().noDefaultValue();

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        RowType rowType = (RowType) context.getPhysicalRowDataType().getLogicalType();
        if (rowType.getFieldCount() != 2
                || rowType.getTypeAt(0).getTypeRoot() != LogicalTypeRoot.BIGINT
                || !rowType.getTypeAt(1).is(LogicalTypeRoot.VARCHAR)) {
            throw new ValidationException(IDENTIFIER + " tables have the columns (key BIGINT, value STRING), got " + rowType);
        }
        return new Source(helper.getOptions().get(PATH));
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(PATH);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    /** Writes the side input upstream's generator writes: {@code i,i} for {@code i} in {@code [0, rows)}. */
    static void write(Path file, int rows) throws IOException {
        List<String> lines = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
            lines.add(i + "," + i);
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    private static final class Source implements LookupTableSource {
        private final String path;

        Source(String path) {
            this.path = path;
        }

        @Override
        public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
            int[][] keys = context.getKeys();
            if (keys.length != 1 || keys[0].length != 1 || keys[0][0] != 0) {
                throw new ValidationException(IDENTIFIER + " is looked up by its key column only");
            }
            return LookupFunctionProvider.of(new Lookup(path));
        }

        @Override
        public DynamicTableSource copy() {
            return new Source(path);
        }

        @Override
        public String asSummaryString() {
            return IDENTIFIER;
        }
    }

    /** The lookup function (public: Flink's code generation instantiates it). */
    public static final class Lookup extends LookupFunction {
        private static final long serialVersionUID = 1L;
        private final String path;
        private transient Map<Long, List<RowData>> rows;

        /** A lookup over the file at {@code path}. */
        public Lookup(String path) {
            this.path = path;
        }

        @Override
        public void open(FunctionContext context) throws Exception {
            rows = new HashMap<>();
            int number = 0;
            for (String line : Files.readAllLines(Path.of(path), StandardCharsets.UTF_8)) {
                number++;
                int comma = line.indexOf(',');
                if (comma < 0) {
                    throw new IOException(path + ":" + number + ": expected key,value");
                }
                long key = Long.parseLong(line.substring(0, comma).trim());
                rows.computeIfAbsent(key, k -> new ArrayList<>(1))
                        .add(GenericRowData.of(key, StringData.fromString(line.substring(comma + 1))));
            }
        }

        @Override
        public Collection<RowData> lookup(RowData keyRow) {
            if (keyRow.isNullAt(0)) {
                return List.of();
            }
            return rows.getOrDefault(keyRow.getLong(0), List.of());
        }
    }
}

package io.karrow.flink.planner;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.factories.DynamicTableFactory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * Installs karrow's optimizer program into the session that is converting a {@code kafka-native}
 * table, from the table's own factory.
 *
 * <p>Flink 2.2 has no public hook for a physical rewrite. Its planner, though, hands a table factory
 * the session's {@link TableConfig} as the context's configuration, during the statement's
 * conversion to relational algebra — before that statement is optimized — and reads the
 * {@code CalciteConfig} in that TableConfig's planner config every time it optimizes. So the
 * factory installs a CalciteConfig that appends karrow's program, and the same statement is
 * optimized with it. This works wherever tables are converted (SQL client, SQL Gateway, Table API
 * programs), with karrow in {@code lib/} or in a job jar, and shadows nothing of Flink's. See
 * {@code docs/operator-core.md}.
 *
 * <p>The program's classes link against the planner, whose classes only the planner's class loader
 * sees; the loader of the planner converting this statement is read off the call stack, and
 * {@link PlannerRulesClassLoader} defines karrow's planner classes next to it. The hook refuses a
 * planner of a version karrow was not built and tested against, and never fails the statement:
 * when it cannot install, it logs one warning per planner and the statement is planned by Flink
 * alone.
 */
public final class PlannerHook {

    private static final Logger LOG = LoggerFactory.getLogger(PlannerHook.class);

    /** Planner versions the rules are compiled and tested against. */
    static final Set<String> SUPPORTED_PLANNER_VERSIONS = Set.of("2.2.0");

    /** The planner configuration class the installer sets (by name: karrow may be loaded twice). */
    static final String CALCITE_CONFIG_CLASS = PlannerRulesClassLoader.RULES_PACKAGE + ".KarrowCalciteConfig";

    private static final String INSTALLER_CLASS = PlannerRulesClassLoader.RULES_PACKAGE + ".KarrowPlannerInstaller";

    /** A planner class every supported planner has; its package carries the planner's version. */
    static final String PLANNER_PROBE_CLASS = "org.apache.flink.table.planner.calcite.CalciteConfig";

    private static final String PLANNER_PACKAGE = "org.apache.flink.table.planner.";
    private static final String LOADER_SHIM_PACKAGE = "org.apache.flink.table.planner.loader.";

    /** Per planner class loader: its installer, or why there is none (logged once). */
    private static final Map<ClassLoader, Object> INSTALLERS = new HashMap<>();

    /** Per session: how often each kafka-native table was read by the statements being planned. */
    private static final Map<TableConfig, TableReads> READS = Collections.synchronizedMap(new WeakHashMap<>());

    private PlannerHook() {}

    /**
     * Installs the program into the session of {@code context}, when it is a streaming planner
     * session with the operator core enabled. Never throws.
     */
    public static void install(DynamicTableFactory.Context context) {
        install(context, false);
    }

    /**
     * As {@link #install(DynamicTableFactory.Context)}, from a source factory: also counts the read
     * of the table for {@link #tableReadsOfThisOptimization}.
     */
    public static void installForSource(DynamicTableFactory.Context context) {
        install(context, true);
    }

    private static void install(DynamicTableFactory.Context context, boolean source) {
        ReadableConfig configuration = context.getConfiguration();
        if (!(configuration instanceof TableConfig)) {
            return; // not called by a planner converting a statement
        }
        TableConfig config = (TableConfig) configuration;
        if (!config.get(OperatorCoreOptions.ENABLED)
                || config.get(ExecutionOptions.RUNTIME_MODE) == RuntimeExecutionMode.BATCH) {
            return;
        }
        if (source) {
            READS.computeIfAbsent(config, c -> new TableReads()).converted(context.getObjectIdentifier().asSummaryString());
        }
        if (config.getPlannerConfig().getClass().getName().equals(CALCITE_CONFIG_CLASS)) {
            return;
        }
        try {
            Optional<ClassLoader> plannerLoader = plannerLoaderOnStack();
            if (plannerLoader.isEmpty()) {
                LOG.debug("karrow operator core: no planner on the call stack of a kafka-native factory");
                return;
            }
            Object installer = installerFor(plannerLoader.get());
            if (installer instanceof OperatorCoreInstaller) {
                ((OperatorCoreInstaller) installer).install(config);
            }
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("karrow operator core not installed in this session, Flink plans alone: {}", e.toString(), e);
        }
    }

    /**
     * The scope of the optimization the session's planner is running: how often the statements being
     * optimized read each {@code kafka-native} table (the tables converted since the previous
     * optimization started). Called once per optimized block; the blocks of one optimization get the
     * same scope. Flink's source reuse serves every read of a table from one source, so the Calc
     * fusion leaves tables read more than once to Flink (their fused scans would each be a source).
     *
     * <p>A statement converted but never optimized (it failed after its tables were converted) leaves
     * its reads to the next optimization of the session, which then over-counts: the safe direction
     * (a Calc stays Flink's).
     */
    public static OptimizationScope optimizationScope(TableConfig config) {
        TableReads reads = READS.get(config);
        return reads == null ? new OptimizationScope(Map.of()) : reads.optimizationStarts();
    }

    /** The reads of one session: those of the statements converted, and the scope being optimized. */
    private static final class TableReads {
        private Map<String, Integer> converted = new HashMap<>();
        private OptimizationScope optimized = new OptimizationScope(Map.of());

        synchronized void converted(String table) {
            converted.merge(table, 1, Integer::sum);
        }

        synchronized OptimizationScope optimizationStarts() {
            if (!converted.isEmpty()) {
                optimized = new OptimizationScope(converted);
                converted = new HashMap<>();
            }
            return optimized;
        }
    }

    /** The class loader of the planner class nearest on the call stack (the loader shim aside). */
    static Optional<ClassLoader> plannerLoaderOnStack() {
        return StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(frames -> frames
                .map(StackWalker.StackFrame::getDeclaringClass)
                .filter(c -> c.getName().startsWith(PLANNER_PACKAGE) && !c.getName().startsWith(LOADER_SHIM_PACKAGE))
                .map(Class::getClassLoader)
                .filter(l -> l != null)
                .findFirst());
    }

    private static synchronized Object installerFor(ClassLoader plannerLoader) {
        Object installer = INSTALLERS.get(plannerLoader);
        if (installer == null) {
            try {
                installer = createInstaller(plannerLoader);
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                installer = e.toString();
                LOG.warn("karrow operator core disabled for the planner of {}: {}", plannerLoader, e.toString(), e);
            }
            INSTALLERS.put(plannerLoader, installer);
        }
        return installer;
    }

    private static Object createInstaller(ClassLoader plannerLoader) throws ReflectiveOperationException {
        String version = plannerVersion(plannerLoader);
        String unsupported = unsupportedVersionReason(version);
        if (unsupported != null) {
            LOG.warn("karrow operator core disabled: {}", unsupported);
            return unsupported;
        }
        ClassLoader rules = new PlannerRulesClassLoader(plannerLoader, PlannerHook.class.getClassLoader());
        return Class.forName(INSTALLER_CLASS, true, rules)
                .asSubclass(OperatorCoreInstaller.class)
                .getConstructor()
                .newInstance();
    }

    /** The version of the planner {@code plannerLoader} loads, from its jar's manifest; null if none. */
    static @Nullable String plannerVersion(ClassLoader plannerLoader) throws ClassNotFoundException {
        Package p = Class.forName(PLANNER_PROBE_CLASS, false, plannerLoader).getPackage();
        return p == null ? null : p.getImplementationVersion();
    }

    /** Why karrow refuses a planner of {@code version}, or null when it supports it. */
    static @Nullable String unsupportedVersionReason(@Nullable String version) {
        if (version != null && SUPPORTED_PLANNER_VERSIONS.contains(version)) {
            return null;
        }
        return "karrow's planner rules are built and tested for Flink " + SUPPORTED_PLANNER_VERSIONS
                + ", but the planner is " + (version == null ? "of an unknown version" : "Flink " + version);
    }
}

package io.karrow.flink.planner;

import static org.apache.flink.table.api.Expressions.$;
import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.PlanReference;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.config.OptimizerConfigOptions;
import org.apache.flink.table.planner.loader.PlannerModule;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

/**
 * Planning of karrow's operator core through Flink's default planner loader: the hook installed by
 * the kafka-native factory, the rewrite as {@code EXPLAIN} shows it, the plan the native side is
 * asked about, every decline and its one reason, the options, and compiled plans.
 *
 * <p>The native plan check is not in karrow-native yet ({@link NativePlanCheck}); these tests stand
 * in for it (accepting every plan, and recording it) except where they test the real answer.
 */
class OperatorCorePlanningTest {

    private static final String DEMO = "INSERT INTO bids_out SELECT auction, bidder, price * 100 AS price_cents,"
            + " date_time FROM bids WHERE price > 1000";

    /** How the decision lines name the demo query's Calc. */
    private static final String DEMO_SEGMENT = "Calc(select=[auction, bidder, *(price, 100) AS price_cents, date_time],"
            + " where=[>(price, 1000)]) over the kafka-native scan of default_catalog.default_database.bids";

    private static final String SINK_SEGMENT =
            "the kafka-native sink default_catalog.default_database.bids_out over a fused Calc";

    private static final String KAFKA_PRODUCER_SINK = "the sink writes with Kafka's producer; full fusion hands"
            + " its batches to the native producer ('sink.produce-mode' = 'native')";

    private final List<String> fused = new ArrayList<>();
    private final List<String> declined = new ArrayList<>();
    private final List<String> checkedPlans = new ArrayList<>();
    private final FusionDecisions.Listener listener = new FusionDecisions.Listener() {
        @Override
        public void fused(String segment, String detail) {
            fused.add(segment + ": " + detail);
        }

        @Override
        public void declined(String segment, String reason) {
            declined.add(segment + ": " + reason);
        }
    };

    @BeforeEach
    void listen() {
        FusionDecisions.addListener(listener);
        NativePlanCheck.overrideForTests(json -> {
            checkedPlans.add(json);
            return null;
        });
    }

    @AfterEach
    void stopListening() {
        FusionDecisions.removeListener(listener);
        NativePlanCheck.overrideForTests(null);
    }

    static TableEnvironment tableEnv() {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set(OperatorCoreOptions.ENABLED, true);
        tEnv.executeSql(bidsTable("bids", "'value.format' = 'json-native'", ""));
        tEnv.executeSql("CREATE TABLE bids_out (auction BIGINT, bidder BIGINT, price_cents BIGINT,"
                + " date_time TIMESTAMP(3)) WITH ('connector' = 'kafka-native', 'topic' = 'bids_out',"
                + " 'properties.bootstrap.servers' = '127.0.0.1:1', 'value.format' = 'json-native')");
        return tEnv;
    }

    static String bidsTable(String name, String formatOptions, String extraColumns) {
        return "CREATE TABLE " + name + " (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,"
                + " date_time TIMESTAMP(3), extra STRING" + extraColumns + ") WITH ('connector' = 'kafka-native',"
                + " 'topic' = 'bids', 'properties.bootstrap.servers' = '127.0.0.1:1',"
                + " 'scan.startup.mode' = 'earliest-offset', " + formatOptions + ")";
    }

    @Test
    void theDemoQueryIsFusedAndExplainShowsIt() {
        String plan = tableEnv().explainSql(DEMO);

        assertThat(plan.replaceAll("KARROW_FUSED_PLAN options:\\[[0-9a-f]{16}]", "KARROW_FUSED_PLAN options:[id]"))
                .contains("== Optimized Physical Plan ==\n"
                + "Sink(table=[default_catalog.default_database.bids_out], fields=[auction, bidder, price_cents, date_time])\n"
                + "+- KarrowFusedCalc(select=[auction, bidder, price_cents, date_time], computedBy=[KarrowFusedScan])\n"
                + "   +- KarrowFusedScan(table=[[default_catalog, default_database, bids]], fields=[auction, bidder,"
                + " price_cents, date_time], hints=[[[KARROW_FUSED_PLAN options:[id]]]], fusedCalc=[select=[auction,"
                + " bidder, *(price, 100) AS price_cents, date_time], where=[>(price, 1000)]])\n");
        assertThat(fused).singleElement().asString().matches("\\Q" + DEMO_SEGMENT + ": plan \\E[0-9a-f]{16}");
        assertThat(declined).containsExactly(SINK_SEGMENT + ": " + KAFKA_PRODUCER_SINK);
    }

    /** A sink table {@code name} of {@code columns}, with native produce unless {@code options} set a mode. */
    private static void nativeSink(TableEnvironment tEnv, String name, String columns, String options) {
        tEnv.executeSql("CREATE TABLE " + name + " (" + columns + ") WITH ('connector' = 'kafka-native',"
                + " 'topic' = '" + name + "', 'properties.bootstrap.servers' = '127.0.0.1:1',"
                + (options.contains("sink.produce-mode") ? " " : " 'sink.produce-mode' = 'native', ") + options + ")");
    }

    private static final String OUT_COLUMNS = "auction BIGINT, bidder BIGINT, price_cents BIGINT, date_time TIMESTAMP(3)";

    @Test
    void aNativeProduceSinkGetsTheEncodeStageTheNativeSideChecks() {
        TableEnvironment tEnv = tableEnv();
        nativeSink(tEnv, "out_native", OUT_COLUMNS, "'key.format' = 'json-native', 'key.fields' = 'bidder',"
                + " 'value.format' = 'json-native'");
        String explained = tEnv.explainSql(DEMO.replace("bids_out", "out_native"));
        String segment = SINK_SEGMENT.replace("bids_out", "out_native");
        assertThat(declined).isEmpty();
        assertThat(fused).hasSize(2).last().asString().matches("\\Q" + segment + ": plan \\E[0-9a-f]{16}");
        assertThat(explained).contains("fusedSink=[default_catalog.default_database.out_native]");
        String checked = checkedPlans.get(checkedPlans.size() - 1);
        assertThat(checked).contains(",\"encode\":{\"value\":{\"format\":\"json-native\",\"columns\":[0,1,2,3],"
                        + "\"config\":{\"row_type\":{\"type\":\"ROW\",\"nullable\":false,\"fields\":[{\"name\":\"auction\"")
                .contains("\"key\":{\"format\":\"json-native\",\"columns\":[1],\"config\":{\"row_type\":"
                        + "{\"type\":\"ROW\",\"nullable\":false,\"fields\":[{\"name\":\"bidder\"");
        // The native side's reason is the decline line.
        NativePlanCheck.overrideForTests(json -> json.contains("\"encode\"") ? "encode stage: value: no" : null);
        declined.clear();
        tEnv.explainSql(DEMO.replace("bids_out", "out_native"));
        assertThat(declined).containsExactly(segment + ": encode stage: value: no");
    }

    @Test
    void theRealNativeCheckAcceptsTheEncodeStageJavaWrites() {
        NativePlanCheck.overrideForTests(null);
        TableEnvironment tEnv = tableEnv();
        nativeSink(tEnv, "out_native", OUT_COLUMNS, "'key.format' = 'json-native', 'key.fields' = 'auction',"
                + " 'value.format' = 'json-native', 'value.fields-include' = 'EXCEPT_KEY'");
        String explained = tEnv.explainSql(DEMO.replace("bids_out", "out_native"));
        assertThat(declined).isEmpty();
        assertThat(fused).hasSize(2).last().asString()
                .startsWith(SINK_SEGMENT.replace("bids_out", "out_native") + ": plan ");
        assertThat(explained).contains("fusedSink=[default_catalog.default_database.out_native]");
    }

    @Test
    void aScanWithItsOwnParallelismIsNotFullyFused() {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set(OperatorCoreOptions.ENABLED, true);
        tEnv.executeSql(bidsTable("bids", "'value.format' = 'json-native', 'scan.parallelism' = '2'", ""));
        nativeSink(tEnv, "out_native", OUT_COLUMNS, "'value.format' = 'json-native'");
        String explained = tEnv.explainSql(DEMO.replace("bids_out", "out_native"));
        assertThat(declined).containsExactly(SINK_SEGMENT.replace("bids_out", "out_native") + ": the scan sets"
                + " 'scan.parallelism': the fused source would not chain with the sink, and full fusion's encoded"
                + " batches cross only chained edges");
        assertThat(explained).doesNotContain("fusedSink");
    }

    @Test
    void everySinkDeclineHasItsReason() {
        String[][] cases = {
            {OUT_COLUMNS, "'value.format' = 'json', 'sink.produce-mode' = 'kafka-producer'",
                "the sink's value format 'json' does not encode natively"},
            {OUT_COLUMNS, "'value.format' = 'json-native', 'key.format' = 'raw', 'key.fields' = 'auction'",
                "the sink's key format 'raw' does not encode natively"},
            {OUT_COLUMNS + ", ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'", "'value.format' = 'json-native'",
                "the sink writes metadata columns [timestamp]"},
            {OUT_COLUMNS, "'value.format' = 'json-native', 'sink.parallelism' = '2'",
                "the sink sets 'sink.parallelism', so its writer may not be chained to the fused source"},
            {"auction BIGINT NOT NULL, bidder BIGINT, price_cents BIGINT, date_time TIMESTAMP(3)",
                "'value.format' = 'json-native'",
                "the sink's column auction is NOT NULL: Flink's NOT NULL enforcer ('table.exec.sink.not-null-enforcer')"
                        + " looks at every row"},
        };
        for (String[] c : cases) {
            TableEnvironment tEnv = tableEnv();
            nativeSink(tEnv, "out_d", c[0], c[1]);
            declined.clear();
            String columns = c[0].contains("ts TIMESTAMP_LTZ") ? "auction, bidder, price * 100, date_time, TO_TIMESTAMP_LTZ(auction, 3)"
                    : "auction, bidder, price * 100, date_time";
            try {
                tEnv.explainSql("INSERT INTO out_d SELECT " + columns + " FROM bids WHERE price > 1000");
            } catch (RuntimeException e) {
                throw new AssertionError(c[2], e);
            }
            assertThat(declined).as(c[2]).contains(SINK_SEGMENT.replace("bids_out", "out_d") + ": " + c[2]);
        }
        // A sink in kafka-producer mode.
        tableEnv().explainSql(DEMO);
        assertThat(declined).contains(SINK_SEGMENT + ": " + KAFKA_PRODUCER_SINK);
    }

    @Test
    void theSinkFusionOptionAndTheSinksOwnReasons() {
        TableEnvironment tEnv = tableEnv();
        tEnv.getConfig().set(OperatorCoreOptions.SINK_FUSION_ENABLED, false);
        tEnv.explainSql(DEMO);
        assertThat(declined).isEmpty();

        tEnv.getConfig().set(OperatorCoreOptions.SINK_FUSION_ENABLED, true);
        tEnv.executeSql("CREATE TABLE raw_out (auction BIGINT, bidder BIGINT, price_cents BIGINT, date_time TIMESTAMP(3))"
                + " WITH ('connector' = 'kafka-native', 'topic' = 'raw_out', 'properties.bootstrap.servers' = '127.0.0.1:1',"
                + " 'value.format' = 'json')");
        tEnv.explainSql(DEMO.replace("bids_out", "raw_out"));
        assertThat(declined).containsExactly("the kafka-native sink default_catalog.default_database.raw_out over a"
                + " fused Calc: the sink's value format 'json' does not encode natively");
    }

    @Test
    void theNativeSideIsAskedAboutThePlanOfTheContract() {
        tableEnv().explainSql(DEMO);

        String bigint = "{\"type\":\"BIGINT\",\"nullable\":true}";
        String string = "{\"type\":\"VARCHAR\",\"nullable\":true,\"length\":2147483647}";
        String timestamp = "{\"type\":\"TIMESTAMP\",\"nullable\":true,\"precision\":3}";
        String intLiteral = "{\"type\":\"INT\",\"nullable\":false}";
        assertThat(checkedPlans).containsExactly("{\"version\":1,"
                + "\"input\":{\"type\":\"ROW\",\"nullable\":true,\"fields\":["
                + "{\"name\":\"auction\",\"type\":" + bigint + "},{\"name\":\"bidder\",\"type\":" + bigint + "},"
                + "{\"name\":\"price\",\"type\":" + bigint + "},{\"name\":\"channel\",\"type\":" + string + "},"
                + "{\"name\":\"url\",\"type\":" + string + "},{\"name\":\"date_time\",\"type\":" + timestamp + "},"
                + "{\"name\":\"extra\",\"type\":" + string + "}]},"
                + "\"filter\":{\"call\":\"GREATER_THAN\",\"operands\":[{\"input\":2,\"type\":" + bigint + "},"
                + "{\"literal\":1000,\"type\":" + intLiteral + "}],\"type\":{\"type\":\"BOOLEAN\",\"nullable\":true}},"
                + "\"projections\":[{\"input\":0,\"type\":" + bigint + "},{\"input\":1,\"type\":" + bigint + "},"
                + "{\"call\":\"TIMES\",\"operands\":[{\"input\":2,\"type\":" + bigint + "},"
                + "{\"literal\":100,\"type\":" + intLiteral + "}],\"type\":" + bigint + "},"
                + "{\"input\":5,\"type\":" + timestamp + "}],"
                + "\"output\":{\"type\":\"ROW\",\"nullable\":true,\"fields\":["
                + "{\"name\":\"auction\",\"type\":" + bigint + "},{\"name\":\"bidder\",\"type\":" + bigint + "},"
                + "{\"name\":\"price_cents\",\"type\":" + bigint + "},{\"name\":\"date_time\",\"type\":" + timestamp + "}]},"
                + "\"session\":{\"time_zone\":\"" + java.time.ZoneId.systemDefault().normalized().getId() + "\","
                + "\"locale\":\"" + java.util.Locale.getDefault().toLanguageTag() + "\"}}");
    }

    @Test
    void theSessionTimeZoneIsWrittenNormalized() throws Exception {
        for (String zone : new String[] {"Etc/UTC", "UTC", "GMT+08:00", "Europe/Berlin"}) {
            TableEnvironment tEnv = tableEnv();
            tEnv.getConfig().set("table.local-time-zone", zone);
            tEnv.explainSql(DEMO);
        }
        assertThat(checkedPlans).extracting(json -> json.replaceAll(".*\"time_zone\":\"([^\"]*)\".*", "$1"))
                .containsExactly("Z", "Z", "+08:00", "Europe/Berlin");
    }

    @Test
    void theNativeCheckOfTheCdylibRunsTheDemoAndDeclinesWhatItDoesNotRun() {
        NativePlanCheck.overrideForTests(null);

        assertThat(tableEnv().explainSql(DEMO)).contains("KarrowFusedScan");
        assertThat(fused).hasSize(1);

        // A region time zone: the Rust side declines it, with its own reason.
        TableEnvironment tEnv = tableEnv();
        tEnv.getConfig().set("table.local-time-zone", "Europe/Berlin");
        assertThat(tEnv.explainSql(DEMO)).doesNotContain("KarrowFusedScan");
        assertThat(declined).anyMatch(d -> d.startsWith(DEMO_SEGMENT + ": ") && d.contains("Europe/Berlin"));
    }

    @Test
    void theNativeCheckHasTheLastWord() {
        NativePlanCheck.overrideForTests(json -> "TIMES on BIGINT is not implemented");

        assertThat(tableEnv().explainSql(DEMO)).doesNotContain("Karrow");
        assertThat(declined).containsExactly(DEMO_SEGMENT + ": TIMES on BIGINT is not implemented");
    }

    @Test
    void oneOptionTurnsTheOperatorCoreOffAndOneTheCalcFusion() {
        for (String option : List.of("karrow.operator-core.enabled", "karrow.operator-core.calc-fusion.enabled")) {
            TableEnvironment tEnv = tableEnv();
            tEnv.getConfig().set(option, "false");
            assertThat(tEnv.explainSql(DEMO)).as(option).doesNotContain("Karrow");
            tEnv.getConfig().set(option, "true");
            assertThat(tEnv.explainSql(DEMO)).as(option).contains("KarrowFusedScan");
        }
        assertThat(declined).containsOnly(SINK_SEGMENT + ": " + KAFKA_PRODUCER_SINK);
    }

    @Test
    void aTableApiProgramIsFusedToo() {
        TableEnvironment tEnv = tableEnv();
        String plan = tEnv.from("bids")
                .filter($("price").isGreater(1000))
                .select($("auction"), $("bidder"), $("price").times(100).as("price_cents"), $("date_time"))
                .explain();

        assertThat(plan).contains("KarrowFusedScan(table=[[default_catalog, default_database, bids]]");
        assertThat(fused).hasSize(1);
    }

    @Test
    void aCompiledPlanIsTheStockPlan() {
        TableEnvironment tEnv = tableEnv();
        String compiled = tEnv.compilePlanSql(DEMO).asJsonString();
        assertThat(fused).hasSize(1); // the statement was optimized with the fusion ...
        tEnv.getConfig().set(OperatorCoreOptions.ENABLED, false);
        String stock = tEnv.compilePlanSql(DEMO).asJsonString();

        // ... and compiled to exactly the stock exec nodes (ids aside: they come from a global counter).
        assertThat(withoutIds(compiled)).isEqualTo(withoutIds(stock)).doesNotContain("arrow").contains("stream-exec-calc");

        // EXECUTE PLAN does not optimize: the loaded plan runs as compiled, unfused.
        tEnv.getConfig().set(OperatorCoreOptions.ENABLED, true);
        assertThat(tEnv.loadPlan(PlanReference.fromJsonString(compiled)).explain()).doesNotContain("Karrow")
                .contains("Calc(select=[auction, bidder, (price * 100) AS price_cents, date_time], where=[(price > 1000)])");
        assertThat(fused).hasSize(1);
    }

    private static String withoutIds(String json) {
        return json.replaceAll("\"id\" : \\d+", "\"id\" : _")
                .replaceAll("\"(source|target)\" : \\d+", "\"$1\" : _")
                .replaceAll("\"uid\" : \"[^\"]*\"", "\"uid\" : _");
    }

    private static StatementSet twoInsertsFromBids(TableEnvironment tEnv) {
        StatementSet set = tEnv.createStatementSet();
        set.addInsertSql(DEMO);
        set.addInsertSql("INSERT INTO bids_out SELECT auction, bidder, price * 10, date_time FROM bids WHERE price < 10");
        return set;
    }

    @Test
    void aTableReadByTwoInsertsOfAStatementSetKeepsFlinksOneSource() {
        String plan = twoInsertsFromBids(tableEnv()).explain();

        // Each INSERT is its own optimized block; Flink's scan reuse then serves both from one source,
        // which two fused scans could not be: both Calcs stay Flink's.
        assertThat(plan).doesNotContain("Karrow");
        assertThat(fused).isEmpty();
        assertThat(declined).hasSize(2).allSatisfy(line -> assertThat(line).endsWith(
                "bids: the statement reads the table 2 times, which Flink serves from one source"));
    }

    @Test
    void withoutSourceReuseEachReadIsFusedWithItsOwnPlan() {
        TableEnvironment tEnv = tableEnv();
        tEnv.getConfig().set(OptimizerConfigOptions.TABLE_OPTIMIZER_REUSE_SOURCE_ENABLED, false);

        String plan = twoInsertsFromBids(tEnv).explain();

        // Flink's scan reuse is off, so each read is its own source in the stock plan too. Each fused
        // scan names its plan in a hint, so nothing could ever merge two different fused scans.
        assertThat(fused).hasSize(2);
        assertThat(plan).containsPattern("fusedCalc=\\[select=\\[auction, bidder, \\*\\(price, 100\\) AS [\\w$]+, date_time],"
                        + " where=\\[>\\(price, 1000\\)]]")
                .containsPattern("fusedCalc=\\[select=\\[auction, bidder, \\*\\(price, 10\\) AS [\\w$]+, date_time],"
                        + " where=\\[<\\(price, 10\\)]]");
        assertThat(plan.split("KARROW_FUSED_PLAN options:\\[", -1)).hasSize(2 * 2 + 1); // physical + execution plan
        assertThat(checkedPlans).hasSize(2).doesNotHaveDuplicates();
    }

    @Test
    void theHookLinksAgainstThePlannerOfTheDefaultLoader() throws Exception {
        TableEnvironment tEnv = tableEnv();
        tEnv.explainSql(DEMO);

        ClassLoader plannerLoader = PlannerModule.getInstance().getSubmoduleClassLoader();
        assertThat(tEnv.getConfig().getPlannerConfig().getClass().getName()).isEqualTo(PlannerHook.CALCITE_CONFIG_CLASS);
        assertThat(tEnv.getConfig().getPlannerConfig().getClass().getClassLoader().getParent()).isNull();
        assertThat(PlannerHook.plannerVersion(plannerLoader)).isIn(PlannerHook.SUPPORTED_PLANNER_VERSIONS);
    }

    private static final String WATERMARK = ", WATERMARK FOR date_time AS date_time - INTERVAL '1' SECOND";

    /** A table {@code wm_bids} with a watermark, and the option for watermarked scans set to {@code on}. */
    private static TableEnvironment watermarkedEnv(boolean on) {
        TableEnvironment tEnv = tableEnv();
        tEnv.getConfig().set(OperatorCoreOptions.WATERMARKED_SCANS_ENABLED, on);
        tEnv.executeSql(bidsTable("wm_bids", "'value.format' = 'json-native'", WATERMARK));
        return tEnv;
    }

    private static final String WINDOW = "SELECT window_start, COUNT(*), SUM(price * 3) FROM TABLE(TUMBLE("
            + "TABLE wm_bids, DESCRIPTOR(date_time), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end";

    @Test
    void aWatermarkedScanDeclinesWhileItsOptionIsOff() {
        String plan = watermarkedEnv(false).explainSql(WINDOW);
        assertThat(plan).doesNotContain("Karrow");
        assertThat(declined).anyMatch(d -> d.endsWith(
                "the scan assigns watermarks and 'karrow.operator-core.watermarked-scans.enabled' is off"));
    }

    @Test
    void aWatermarkedScanFusesACalcWithoutAFilterAndKeepsItsWatermark() {
        String plan = watermarkedEnv(true).explainSql(WINDOW);
        assertThat(plan).as("declined: %s", declined).contains("KarrowFusedScan").contains("watermark=");
        assertThat(fused).isNotEmpty();
    }

    @Test
    void aWatermarkedScanFusesACalcWithAFilter() {
        // The plan asks for watermark rows (OperatorPlanSerializationTest); the native check accepts it.
        String plan = watermarkedEnv(true).explainSql(WINDOW.replace("GROUP BY", "WHERE price > 10 GROUP BY"));
        assertThat(plan).as("declined: %s", declined).contains("KarrowFusedScan").contains("where=[>(price, 10)]")
                .contains("watermark=");
        assertThat(fused).isNotEmpty();
    }

    @Test
    void aWatermarkedScanDeclinesACalcThatDoesNotProjectItsRowtimeAsItIs() {
        TableEnvironment tEnv = tableEnv();
        tEnv.getConfig().set(OperatorCoreOptions.WATERMARKED_SCANS_ENABLED, true);
        tEnv.executeSql(bidsTable("wm_shifted", "'value.format' = 'json-native'",
                ", ts AS date_time + INTERVAL '1' SECOND, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND"));
        String plan = tEnv.explainSql("SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE wm_shifted,"
                + " DESCRIPTOR(ts), INTERVAL '1' MINUTE)) WHERE price > 10 GROUP BY window_start, window_end");
        assertThat(plan).doesNotContain("KarrowFusedScan");
        assertThat(declined).anyMatch(d -> d.contains("which the Calc does not project as it is"));
    }

    @Test
    void aWatermarkedScanIsNotFullyFused() {
        TableEnvironment tEnv = watermarkedEnv(true);
        nativeSink(tEnv, "out_wm", OUT_COLUMNS, "'value.format' = 'json-native'");
        String plan = tEnv.explainSql("INSERT INTO out_wm SELECT auction, bidder, price * 100, date_time FROM wm_bids");
        assertThat(plan).as("declined: %s", declined).contains("KarrowFusedScan").doesNotContain("fusedSink=");
        assertThat(declined).anyMatch(d -> d.contains("the scan assigns watermarks: a fully fused scan emits"));
    }
}

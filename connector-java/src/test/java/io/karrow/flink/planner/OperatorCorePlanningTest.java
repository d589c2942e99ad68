package io.karrow.flink.planner;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

/** Prototype: karrow's program is installed from the kafka-native factory and fuses a Calc. */
class OperatorCorePlanningTest {

    private final List<String> decisions = new ArrayList<>();
    private final List<String> plans = new ArrayList<>();
    private final FusionDecisions.Listener listener = new FusionDecisions.Listener() {
        @Override
        public void fused(String segment, String detail) {
            decisions.add("fused: " + segment + ": " + detail);
        }

        @Override
        public void declined(String segment, String reason) {
            decisions.add("declined: " + segment + ": " + reason);
        }
    };

    @BeforeEach
    void listen() {
        FusionDecisions.addListener(listener);
        NativePlanCheck.overrideForTests(json -> {
            plans.add(json);
            return null;
        });
    }

    @AfterEach
    void stopListening() {
        FusionDecisions.removeListener(listener);
        NativePlanCheck.overrideForTests(null);
    }

    private static TableEnvironment tableEnv() {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.executeSql("CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,"
                + " date_time TIMESTAMP(3), extra STRING) WITH ('connector' = 'kafka-native', 'topic' = 'bids',"
                + " 'properties.bootstrap.servers' = '127.0.0.1:1', 'scan.startup.mode' = 'earliest-offset',"
                + " 'value.format' = 'json-native')");
        tEnv.executeSql("CREATE TABLE bids_out (auction BIGINT, bidder BIGINT, price_cents BIGINT,"
                + " date_time TIMESTAMP(3)) WITH ('connector' = 'kafka-native', 'topic' = 'bids_out',"
                + " 'properties.bootstrap.servers' = '127.0.0.1:1', 'value.format' = 'json-native')");
        return tEnv;
    }

    @Test
    void fusesTheDemoQuery() {
        TableEnvironment tEnv = tableEnv();
        String plan = tEnv.explainSql("INSERT INTO bids_out SELECT auction, bidder, price * 100 AS price_cents,"
                + " date_time FROM bids WHERE price > 1000");
        System.out.println(plan);
        System.out.println(decisions);
        System.out.println(plans);
        assertThat(plan).contains("KarrowFusedScan").contains("KarrowFusedCalc");
    }
}

package io.karrow.flink.planner;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

/**
 * The expressions the Calc fusion writes, for every operator of the plan contract, as Flink's
 * planner hands them over (after its own rewrites, with SEARCH expanded): each projection rendered
 * as {@code OP(operands)}, {@code $i} for input columns, {@code e.i} for fields of ROW values.
 * Flink itself rewrites {@code IS [NOT] DISTINCT FROM} (into AND/OR of null checks and EQUALS),
 * {@code NULLIF} (into CASE), {@code HOUR}/{@code MINUTE}/{@code SECOND} (into EXTRACT), {@code %}
 * (into MOD), {@code BETWEEN} and {@code IN} (into SEARCH, which the serializer expands).
 */
class OperatorPlanSerializationTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<String> plans = new ArrayList<>();

    @BeforeEach
    void captureThePlans() {
        NativePlanCheck.overrideForTests(json -> {
            plans.add(json);
            return null;
        });
    }

    @AfterEach
    void restore() {
        NativePlanCheck.overrideForTests(null);
    }

    private JsonNode planOf(String ddl, String query) throws Exception {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set(OperatorCoreOptions.ENABLED, true);
        tEnv.executeSql(ddl);
        tEnv.explainSql(query);
        assertThat(plans).hasSize(1);
        return JSON.readTree(plans.get(0));
    }

    private static List<String> projections(JsonNode plan) {
        List<String> rendered = new ArrayList<>();
        plan.get("projections").forEach(p -> rendered.add(render(p)));
        return rendered;
    }

    static String render(JsonNode e) {
        if (e.has("input")) {
            return "$" + e.get("input").asInt();
        }
        if (e.has("field")) {
            return render(e.get("field")) + "." + e.get("index").asInt();
        }
        if (e.has("symbol")) {
            return e.get("symbol").asText();
        }
        if (e.has("literal")) {
            return e.get("literal").isTextual() ? "'" + e.get("literal").asText() + "'" : e.get("literal").toString();
        }
        StringBuilder s = new StringBuilder(e.get("call").asText()).append('(');
        for (int i = 0; i < e.get("operands").size(); i++) {
            s.append(i > 0 ? ", " : "").append(render(e.get("operands").get(i)));
        }
        return s.append(')').toString();
    }

    @Test
    void everyOperatorOfTheContract() throws Exception {
        JsonNode plan = planOf(OperatorCorePlanningTest.bidsTable("bids", "'value.format' = 'json-native'", ""),
                "SELECT price + 1, price - 1, price * 2, price / 3, MOD(price, 7), price % 7, -price,"
                        + " price = 1, price <> 1, price < 1, price <= 1, price > 1, price >= 1,"
                        + " price IS DISTINCT FROM bidder, price IS NOT DISTINCT FROM bidder,"
                        + " (price > 1 AND bidder > 1) OR NOT (auction > 1), price IS NULL, price IS NOT NULL,"
                        + " (price > 1) IS TRUE, (price > 1) IS NOT TRUE, (price > 1) IS FALSE, (price > 1) IS NOT FALSE,"
                        + " CASE WHEN price > 1 THEN 'a' ELSE 'b' END, COALESCE(channel, url), NULLIF(channel, url),"
                        + " IF(price > 1, 1, 2), CAST(price AS STRING), TRY_CAST(channel AS INT),"
                        + " LOWER(channel), UPPER(channel), CHAR_LENGTH(channel), SUBSTRING(channel, 2),"
                        + " SUBSTRING(channel FROM 2 FOR 3), channel || url, CONCAT(channel, url, extra),"
                        + " TRIM(BOTH 'x' FROM channel), channel LIKE 'a%', SPLIT_INDEX(url, '/', 3),"
                        + " REGEXP_EXTRACT(url, '(\\w+)', 1), REGEXP(url, 'a+'),"
                        + " HOUR(date_time), MINUTE(date_time), SECOND(date_time), EXTRACT(DAY FROM date_time),"
                        + " DATE_FORMAT(date_time, 'yyyy-MM-dd'), TO_TIMESTAMP_LTZ(price, 3)"
                        + " FROM bids WHERE price BETWEEN 1 AND 10 OR auction IN (1, 2, 3)");

        assertThat(projections(plan)).containsExactly(
                "PLUS($2, 1)", "MINUS($2, 1)", "TIMES($2, 2)", "DIVIDE($2, 3)", "MOD($2, 7)", "MOD($2, 7)",
                "NEGATE($2)",
                "EQUALS($2, 1)", "NOT_EQUALS($2, 1)", "LESS_THAN($2, 1)", "LESS_THAN_OR_EQUAL($2, 1)",
                "GREATER_THAN($2, 1)", "GREATER_THAN_OR_EQUAL($2, 1)",
                "AND(OR(IS_NOT_NULL($2), IS_NOT_NULL($1)), IS_NOT_TRUE(EQUALS($2, $1)))",
                "OR(AND(IS_NULL($2), IS_NULL($1)), IS_TRUE(EQUALS($2, $1)))",
                "OR(AND(GREATER_THAN($2, 1), GREATER_THAN($1, 1)), LESS_THAN_OR_EQUAL($0, 1))",
                "IS_NULL($2)", "IS_NOT_NULL($2)",
                "IS_TRUE(GREATER_THAN($2, 1))", "IS_NOT_TRUE(GREATER_THAN($2, 1))",
                "IS_FALSE(GREATER_THAN($2, 1))", "IS_NOT_FALSE(GREATER_THAN($2, 1))",
                "CASE(GREATER_THAN($2, 1), 'a', 'b')", "COALESCE($3, $4)", "CASE(EQUALS($3, $4), null, $3)",
                "IF(GREATER_THAN($2, 1), 1, 2)", "CAST($2)", "TRY_CAST($3)",
                "LOWER($3)", "UPPER($3)", "CHAR_LENGTH($3)", "SUBSTRING($3, 2)", "SUBSTRING($3, 2, 3)",
                "CONCAT($3, $4)", "CONCAT($3, $4, $6)", "TRIM(BOTH, 'x', $3)", "LIKE($3, 'a%')",
                "SPLIT_INDEX($4, '/', 3)", "REGEXP_EXTRACT($4, '(\\w+)', 1)", "REGEXP($4, 'a+')",
                "EXTRACT(HOUR, $5)", "EXTRACT(MINUTE, $5)", "EXTRACT(SECOND, $5)", "EXTRACT(DAY, $5)",
                "DATE_FORMAT($5, 'yyyy-MM-dd')", "TO_TIMESTAMP_LTZ($2, 3)");
        assertThat(render(plan.get("filter"))).isEqualTo(
                "OR(AND(GREATER_THAN_OR_EQUAL($2, 1), LESS_THAN_OR_EQUAL($2, 10)),"
                        + " EQUALS($0, 1), EQUALS($0, 2), EQUALS($0, 3))");
    }

    @Test
    void nestedFieldsOfTheNexmarkRowsAndTheirTypes() throws Exception {
        JsonNode plan = planOf("CREATE TABLE kafka (event_type INT, bid ROW<auction BIGINT, bidder BIGINT, price BIGINT,"
                        + " channel VARCHAR, url VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>)"
                        + " WITH ('connector' = 'kafka-native', 'topic' = 'nexmark',"
                        + " 'properties.bootstrap.servers' = '127.0.0.1:1', 'scan.startup.mode' = 'earliest-offset',"
                        + " 'format' = 'json-native')",
                "SELECT bid.auction, bid.price * 2, bid.`dateTime` FROM kafka WHERE event_type = 2");

        assertThat(projections(plan)).containsExactly("$1.0", "TIMES($1.2, 2)", "$1.5");
        assertThat(render(plan.get("filter"))).isEqualTo("EQUALS($0, 2)");
        assertThat(plan.get("projections").get(2).get("type").toString())
                .isEqualTo("{\"type\":\"TIMESTAMP\",\"nullable\":true,\"precision\":3}");
    }

    @Test
    void aFilteringCalcOverAWatermarkedScanAsksForWatermarkRowsOfItsRowtime() throws Exception {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set(OperatorCoreOptions.ENABLED, true);
        tEnv.getConfig().set(OperatorCoreOptions.WATERMARKED_SCANS_ENABLED, true);
        tEnv.executeSql(OperatorCorePlanningTest.bidsTable("bids", "'value.format' = 'json-native'",
                ", WATERMARK FOR date_time AS date_time - INTERVAL '1' SECOND"));
        tEnv.explainSql("SELECT window_start, COUNT(*), SUM(price) FROM TABLE(TUMBLE(TABLE bids,"
                + " DESCRIPTOR(date_time), INTERVAL '1' MINUTE)) WHERE price > 10 GROUP BY window_start, window_end");
        assertThat(plans).hasSize(1);
        JsonNode plan = JSON.readTree(plans.get(0));
        assertThat(render(plan.get("filter"))).isEqualTo("GREATER_THAN($2, 10)");
        int rowtime = projections(plan).indexOf("$5");
        assertThat(rowtime).isNotNegative();
        assertThat(plan.get("watermark_columns").toString()).isEqualTo("[" + rowtime + "]");

        // Without a filter every row is emitted: no watermark rows.
        plans.clear();
        tEnv.explainSql("SELECT window_start, COUNT(*), SUM(price) FROM TABLE(TUMBLE(TABLE bids,"
                + " DESCRIPTOR(date_time), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end");
        assertThat(plans).hasSize(1);
        assertThat(JSON.readTree(plans.get(0)).has("watermark_columns")).isFalse();
    }

    @Test
    void aPlanRunsInTheLocaleOfTheJvmThatOpensIt() throws Exception {
        JsonNode json = planOf(OperatorCorePlanningTest.bidsTable("bids", "'value.format' = 'json-native'", ""),
                "SELECT UPPER(channel) FROM bids");
        String tag = json.get("session").get("locale").asText();
        FusedCalcPlan plan = new FusedCalcPlan(plans.get(0),
                org.apache.flink.table.types.logical.RowType.of(new org.apache.flink.table.types.logical.VarCharType()),
                "UPPER", tag);
        assertThat(plan.jsonWithLocale(tag)).isSameAs(plans.get(0));
        String turkish = plan.jsonWithLocale("tr-TR");
        assertThat(JSON.readTree(turkish).get("session").get("locale").asText()).isEqualTo("tr-TR");
        assertThat(JSON.readTree(turkish).get("projections")).isEqualTo(json.get("projections"));
        // The native side, the authority on case mappings: UPPER does not run in Turkish.
        NativePlanCheck.overrideForTests(null);
        assertThat(NativePlanCheck.whyNotRunnable(turkish)).contains("tr-TR");
        assertThat(NativePlanCheck.whyNotRunnable(plan.jsonWithLocale("de-DE"))).isNull();
    }

    @Test
    void aComputedColumnIsAnExpressionOfThePlan() throws Exception {
        JsonNode plan = planOf("CREATE TABLE kafka (event_type INT, person ROW<`dateTime` TIMESTAMP(3)>,"
                        + " bid ROW<price BIGINT, `dateTime` TIMESTAMP(3)>,"
                        + " `dateTime` AS CASE WHEN event_type = 0 THEN person.`dateTime` ELSE bid.`dateTime` END)"
                        + " WITH ('connector' = 'kafka-native', 'topic' = 'nexmark',"
                        + " 'properties.bootstrap.servers' = '127.0.0.1:1', 'scan.startup.mode' = 'earliest-offset',"
                        + " 'format' = 'json-native')",
                "SELECT bid.price, `dateTime` FROM kafka WHERE bid.price > 1");

        assertThat(projections(plan)).containsExactly("$2.0", "CASE(EQUALS($0, 0), $1.0, $2.1)");
        assertThat(render(plan.get("filter"))).isEqualTo("GREATER_THAN($2.0, 1)");
    }

    @Test
    void literalsOfEveryTypeAsTheContractWritesThem() throws Exception {
        JsonNode plan = planOf(OperatorCorePlanningTest.bidsTable("bids", "'value.format' = 'json-native'", ""),
                "SELECT price = CAST(1 AS TINYINT), TRUE AND price > 1, 0.908 * price, CAST(1.1 AS FLOAT) * price,"
                        + " CAST(2.25 AS DOUBLE) * price, channel = 'naïve \uD83D\uDE00', CAST(url AS BYTES) = x'0aff',"
                        + " CAST(date_time AS DATE) = DATE '2024-02-29', date_time = TIMESTAMP '2024-02-29 12:34:56.789',"
                        + " CAST(date_time AS TIME) = TIME '12:34:56', CAST(NULL AS BIGINT) = price FROM bids");

        List<String> rendered = projections(plan);
        assertThat(rendered.get(2)).isEqualTo("TIMES('0.908', $2)");
        assertThat(plan.get("projections").get(2).get("operands").get(0).get("type").toString())
                .isEqualTo("{\"type\":\"DECIMAL\",\"nullable\":false,\"precision\":4,\"scale\":3}");
        assertThat(rendered.subList(3, rendered.size())).containsExactly(
                // a FLOAT literal is the float Flink's generated code uses, written as a double exactly
                "TIMES('1.100000023841858', $2)",
                "TIMES('2.25', $2)",
                "EQUALS($3, 'naïve \uD83D\uDE00')",
                "EQUALS(CAST($4), 'Cv8=')",
                "EQUALS(CAST($5), 19782)",
                "EQUALS($5, {\"millis\":1709210096789,\"nanos\":0})",
                "EQUALS(CAST($5), 45296000)",
                "null"); // Flink folds CAST(NULL AS BIGINT) = price into a NULL literal
        assertThat(plan.get("projections").get(3).get("operands").get(0).get("type").toString())
                .isEqualTo("{\"type\":\"FLOAT\",\"nullable\":false}");
        assertThat(plan.get("projections").get(4).get("operands").get(0).get("type").toString())
                .isEqualTo("{\"type\":\"DOUBLE\",\"nullable\":false}");
        assertThat(plan.get("projections").get(10).toString())
                .isEqualTo("{\"literal\":null,\"type\":{\"type\":\"BOOLEAN\",\"nullable\":true}}");
    }
}

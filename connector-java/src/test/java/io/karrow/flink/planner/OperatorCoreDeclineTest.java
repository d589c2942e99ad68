package io.karrow.flink.planner;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Every case the Calc fusion leaves to Flink, each with its one decline line: the plan stays
 * exactly Flink's, and the reason names what could not be run. The native check accepts every plan
 * here, so each decline is the planner's own.
 */
class OperatorCoreDeclineTest {

    private static final String SEGMENT = ") over the kafka-native scan of default_catalog.default_database.";

    private final List<String> fused = new ArrayList<>();
    private final List<String> declined = new ArrayList<>();
    private final FusionDecisions.Listener listener = new FusionDecisions.Listener() {
        @Override
        public void fused(String segment, String detail) {
            fused.add(segment);
        }

        @Override
        public void declined(String segment, String reason) {
            declined.add(segment + ": " + reason);
        }
    };

    @BeforeEach
    void listen() {
        FusionDecisions.addListener(listener);
        NativePlanCheck.overrideForTests(json -> null);
    }

    @AfterEach
    void stopListening() {
        FusionDecisions.removeListener(listener);
        NativePlanCheck.overrideForTests(null);
    }

    /** A scalar UDF: not an operator of the plan. */
    public static final class Twice extends ScalarFunction {
        public Long eval(Long x) {
            return x == null ? null : 2 * x;
        }
    }

    static Stream<Arguments> declines() {
        String plain = "'value.format' = 'json-native'";
        return Stream.of(
                Arguments.of("a value format that does not decode natively",
                        OperatorCorePlanningTest.bidsTable("t", "'value.format' = 'json'", ""),
                        "SELECT auction FROM t WHERE price > 1",
                        "t: the value format 'json' does not decode natively"),
                Arguments.of("key columns",
                        OperatorCorePlanningTest.bidsTable("t", plain
                                + ", 'key.format' = 'json-native', 'key.fields' = 'auction'", ""),
                        "SELECT auction FROM t WHERE price > 1",
                        "t: the table has key columns (key.format), which the operator plan does not carry yet"),
                Arguments.of("metadata columns",
                        OperatorCorePlanningTest.bidsTable("t", plain, ", `offset` BIGINT METADATA VIRTUAL"),
                        "SELECT auction, `offset` FROM t WHERE price > 1",
                        "t: the scan reads metadata columns [offset], which the operator plan does not carry yet"),
                Arguments.of("a watermark whose rowtime the Calc drops",
                        OperatorCorePlanningTest.bidsTable("t", plain,
                                ", WATERMARK FOR date_time AS date_time - INTERVAL '1' SECOND"),
                        "SELECT auction FROM t WHERE price > 1",
                        "t: the scan assigns watermarks from column 5, which the Calc does not project as it is"),
                Arguments.of("an operator the plan does not have",
                        OperatorCorePlanningTest.bidsTable("t", plain, ""),
                        "SELECT ABS(price) FROM t",
                        "t: operator ABS (in ABS($2)) is not in the operator plan"),
                Arguments.of("a user-defined function",
                        OperatorCorePlanningTest.bidsTable("t", plain, ""),
                        "SELECT Twice(price) FROM t",
                        "t: operator Twice (in Twice($2)) is not in the operator plan"),
                Arguments.of("a non-deterministic function",
                        OperatorCorePlanningTest.bidsTable("t", plain, ""),
                        "SELECT auction FROM t WHERE RAND() < 0.5",
                        "t: operator RAND (in RAND()) is not in the operator plan"),
                Arguments.of("a processing-time attribute",
                        OperatorCorePlanningTest.bidsTable("t", plain, ", pt AS PROCTIME()"),
                        "SELECT auction, pt FROM t",
                        "t: operator PROCTIME_MATERIALIZE (in PROCTIME_MATERIALIZE(PROCTIME())) is not in the"
                                + " operator plan"),
                Arguments.of("a table Flink serves to two readers from one source",
                        OperatorCorePlanningTest.bidsTable("t", plain, ""),
                        "SELECT auction FROM t WHERE price > 1 UNION ALL SELECT bidder FROM t WHERE price < 0",
                        "t: the statement reads the table 2 times, which Flink serves from one source"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("declines")
    void isDeclinedWithOneReason(String what, String ddl, String query, String reason) {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set(OperatorCoreOptions.ENABLED, true);
        tEnv.createTemporarySystemFunction("Twice", Twice.class);
        tEnv.executeSql(ddl);

        String plan = tEnv.explainSql(query);

        assertThat(plan).doesNotContain("Karrow");
        assertThat(fused).isEmpty();
        assertThat(declined).isNotEmpty().allSatisfy(line -> assertThat(line).startsWith("Calc(").endsWith(SEGMENT + reason));
    }
}

package io.karrow.flink.planner;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.gateway.api.operation.OperationHandle;
import org.apache.flink.table.gateway.api.results.ResultSet;
import org.apache.flink.table.gateway.api.session.SessionEnvironment;
import org.apache.flink.table.gateway.api.session.SessionHandle;
import org.apache.flink.table.gateway.rest.util.SqlGatewayRestAPIVersion;
import org.apache.flink.table.gateway.service.SqlGatewayServiceImpl;
import org.apache.flink.table.gateway.service.context.DefaultContext;
import org.apache.flink.table.gateway.service.session.SessionManager;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The planner hook through Flink's SQL Gateway service, in process: the SQL Gateway's REST and
 * HiveServer2 endpoints and the SQL client (whose embedded mode runs this same service) execute
 * statements exactly like this, one table environment per operation on the session's config.
 */
class OperatorCoreGatewayTest {

    private SessionManager sessions;
    private SqlGatewayServiceImpl gateway;
    private SessionHandle session;
    private final List<String> fused = new ArrayList<>();
    private final FusionDecisions.Listener listener = new FusionDecisions.Listener() {
        @Override
        public void fused(String segment, String detail) {
            fused.add(segment);
        }

        @Override
        public void declined(String segment, String reason) {}
    };

    @BeforeEach
    void openSession() {
        NativePlanCheck.overrideForTests(json -> null);
        FusionDecisions.addListener(listener);
        sessions = SessionManager.create(new DefaultContext(new Configuration(), List.of()));
        sessions.start();
        gateway = new SqlGatewayServiceImpl(sessions);
        session = gateway.openSession(SessionEnvironment.newBuilder()
                .setSessionEndpointVersion(SqlGatewayRestAPIVersion.getDefaultVersion())
                .build());
    }

    @AfterEach
    void closeSession() {
        gateway.closeSession(session);
        sessions.stop();
        FusionDecisions.removeListener(listener);
        NativePlanCheck.overrideForTests(null);
    }

    private String run(String statement) throws InterruptedException {
        OperationHandle operation = gateway.executeStatement(session, statement, -1, new Configuration());
        List<RowData> rows = new ArrayList<>();
        Long token = 0L;
        while (token != null) {
            ResultSet result = gateway.fetchResults(session, operation, token, 100);
            if (result.getResultType() == ResultSet.ResultType.NOT_READY) {
                Thread.sleep(20);
                continue;
            }
            rows.addAll(result.getData());
            token = result.getNextToken();
        }
        return rows.stream().map(r -> r.getString(0).toString()).collect(Collectors.joining("\n"));
    }

    @Test
    void explainInAGatewaySessionShowsTheFusionAndSetTurnsItOff() throws Exception {
        run(OperatorCorePlanningTest.bidsTable("bids", "'value.format' = 'json-native'", ""));
        run("CREATE TABLE bids_out (auction BIGINT, price_cents BIGINT) WITH ('connector' = 'kafka-native',"
                + " 'topic' = 'bids_out', 'properties.bootstrap.servers' = '127.0.0.1:1', 'value.format' = 'json-native')");
        String insert = "INSERT INTO bids_out SELECT auction, price * 100 FROM bids WHERE price > 1000";

        // Off by default; SET turns it on for the session, and RESET off again.
        assertThat(run("EXPLAIN " + insert)).doesNotContain("Karrow").contains("Calc(select=[auction, *(price, 100)");
        assertThat(fused).isEmpty();

        run("SET 'karrow.operator-core.enabled' = 'true'");
        assertThat(run("EXPLAIN " + insert)).contains("KarrowFusedScan(table=[[default_catalog, default_database, bids]]");
        assertThat(fused).hasSize(1);

        run("SET 'karrow.operator-core.enabled' = 'false'");
        assertThat(run("EXPLAIN " + insert)).doesNotContain("Karrow").contains("Calc(select=[auction, *(price, 100)");

        run("RESET 'karrow.operator-core.enabled'");
        assertThat(run("EXPLAIN " + insert)).doesNotContain("Karrow");
        assertThat(fused).hasSize(1);
    }
}

package io.karrow.flink.planner.rules;

import io.karrow.flink.planner.PlannerHook;

import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.planner.calcite.CalciteConfig;
import org.apache.flink.table.planner.plan.optimize.program.BatchOptimizeContext;
import org.apache.flink.table.planner.plan.optimize.program.FlinkChainedProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkStreamProgram;
import org.apache.flink.table.planner.plan.optimize.program.StreamOptimizeContext;

import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql2rel.SqlToRelConverter;

import scala.Option;

/**
 * The session's planner configuration with karrow's program appended to the stream optimizer's.
 *
 * <p>Everything is the wrapped configuration's (Flink's default, or one the session set); only
 * {@link #getStreamProgram()} differs: each call (the optimizer makes one per optimized block)
 * builds Flink's program for the session's current options — or takes the session's own program —
 * and appends {@link OperatorCoreProgram}. Nothing is cached, so later {@code SET}s of optimizer
 * options apply as they do without karrow. The first call of an optimization also takes the
 * table reads of the statements being optimized ({@link PlannerHook#optimizationScope}).
 */
final class KarrowCalciteConfig implements CalciteConfig {

    private final CalciteConfig wrapped;
    private final TableConfig tableConfig;

    KarrowCalciteConfig(CalciteConfig wrapped, TableConfig tableConfig) {
        this.wrapped = wrapped;
        this.tableConfig = tableConfig;
    }

    @Override
    public Option<FlinkChainedProgram<StreamOptimizeContext>> getStreamProgram() {
        FlinkChainedProgram<StreamOptimizeContext> program;
        Option<FlinkChainedProgram<StreamOptimizeContext>> own = wrapped.getStreamProgram();
        if (own.isDefined()) {
            program = new FlinkChainedProgram<>();
            program.addLast("session_stream_program", own.get());
        } else {
            program = FlinkStreamProgram.buildProgram(tableConfig);
        }
        program.addLast(OperatorCoreProgram.NAME,
                new OperatorCoreProgram(PlannerHook.optimizationScope(tableConfig)));
        return Option.apply(program);
    }

    @Override
    public Option<FlinkChainedProgram<BatchOptimizeContext>> getBatchProgram() {
        return wrapped.getBatchProgram();
    }

    @Override
    public boolean replacesSqlOperatorTable() {
        return wrapped.replacesSqlOperatorTable();
    }

    @Override
    public Option<SqlOperatorTable> getSqlOperatorTable() {
        return wrapped.getSqlOperatorTable();
    }

    @Override
    public Option<SqlParser.Config> getSqlParserConfig() {
        return wrapped.getSqlParserConfig();
    }

    @Override
    public Option<SqlToRelConverter.Config> getSqlToRelConverterConfig() {
        return wrapped.getSqlToRelConverterConfig();
    }
}

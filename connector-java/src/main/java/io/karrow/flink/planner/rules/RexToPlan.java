package io.karrow.flink.planner.rules;

import io.karrow.flink.planner.plan.PlanExpr;
import io.karrow.flink.planner.plan.PlanLiteral;
import io.karrow.flink.planner.plan.PlanSerializationException;

import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.functions.bridging.BridgingSqlFunction;
import org.apache.flink.table.planner.functions.sql.FlinkSqlOperatorTable;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;

import org.apache.calcite.avatica.util.ByteString;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexFieldAccess;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.NlsString;
import org.apache.calcite.util.TimeString;
import org.apache.calcite.util.TimestampString;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a Calc's expressions (after Flink's own rewrites, with SEARCH expanded) as operator-plan
 * expressions. It knows how to write each contract operator and nothing else: an operator, a kind
 * of node, a literal or a type it cannot write is a {@link PlanSerializationException} naming it.
 * Whether the native side can run what it wrote is not its concern (the native check decides).
 */
final class RexToPlan {

    /** Calcite / Flink SQL operators -> contract names. Identity: a look-alike operator does not match. */
    private static final Map<SqlOperator, String> OPERATORS = new IdentityHashMap<>();

    /** Functions of Flink's new function stack (BridgingSqlFunction) -> contract names. */
    private static final Map<FunctionDefinition, String> DEFINITIONS = new IdentityHashMap<>();

    static {
        op("PLUS", SqlStdOperatorTable.PLUS, FlinkSqlOperatorTable.PLUS);
        op("MINUS", SqlStdOperatorTable.MINUS, FlinkSqlOperatorTable.MINUS);
        op("TIMES", SqlStdOperatorTable.MULTIPLY, FlinkSqlOperatorTable.MULTIPLY);
        op("DIVIDE", SqlStdOperatorTable.DIVIDE, FlinkSqlOperatorTable.DIVIDE);
        op("MOD", SqlStdOperatorTable.MOD, FlinkSqlOperatorTable.MOD, SqlStdOperatorTable.PERCENT_REMAINDER,
                FlinkSqlOperatorTable.PERCENT_REMAINDER);
        op("NEGATE", SqlStdOperatorTable.UNARY_MINUS, FlinkSqlOperatorTable.UNARY_MINUS);
        op("EQUALS", SqlStdOperatorTable.EQUALS, FlinkSqlOperatorTable.EQUALS);
        op("NOT_EQUALS", SqlStdOperatorTable.NOT_EQUALS, FlinkSqlOperatorTable.NOT_EQUALS);
        op("LESS_THAN", SqlStdOperatorTable.LESS_THAN, FlinkSqlOperatorTable.LESS_THAN);
        op("LESS_THAN_OR_EQUAL", SqlStdOperatorTable.LESS_THAN_OR_EQUAL, FlinkSqlOperatorTable.LESS_THAN_OR_EQUAL);
        op("GREATER_THAN", SqlStdOperatorTable.GREATER_THAN, FlinkSqlOperatorTable.GREATER_THAN);
        op("GREATER_THAN_OR_EQUAL", SqlStdOperatorTable.GREATER_THAN_OR_EQUAL,
                FlinkSqlOperatorTable.GREATER_THAN_OR_EQUAL);
        op("IS_DISTINCT_FROM", SqlStdOperatorTable.IS_DISTINCT_FROM, FlinkSqlOperatorTable.IS_DISTINCT_FROM);
        op("IS_NOT_DISTINCT_FROM", SqlStdOperatorTable.IS_NOT_DISTINCT_FROM,
                FlinkSqlOperatorTable.IS_NOT_DISTINCT_FROM);
        op("AND", SqlStdOperatorTable.AND, FlinkSqlOperatorTable.AND);
        op("OR", SqlStdOperatorTable.OR, FlinkSqlOperatorTable.OR);
        op("NOT", SqlStdOperatorTable.NOT, FlinkSqlOperatorTable.NOT);
        op("IS_NULL", SqlStdOperatorTable.IS_NULL, FlinkSqlOperatorTable.IS_NULL);
        op("IS_NOT_NULL", SqlStdOperatorTable.IS_NOT_NULL, FlinkSqlOperatorTable.IS_NOT_NULL);
        op("IS_TRUE", SqlStdOperatorTable.IS_TRUE, FlinkSqlOperatorTable.IS_TRUE);
        op("IS_NOT_TRUE", SqlStdOperatorTable.IS_NOT_TRUE, FlinkSqlOperatorTable.IS_NOT_TRUE);
        op("IS_FALSE", SqlStdOperatorTable.IS_FALSE, FlinkSqlOperatorTable.IS_FALSE);
        op("IS_NOT_FALSE", SqlStdOperatorTable.IS_NOT_FALSE, FlinkSqlOperatorTable.IS_NOT_FALSE);
        op("CASE", SqlStdOperatorTable.CASE, FlinkSqlOperatorTable.CASE);
        op("NULLIF", SqlStdOperatorTable.NULLIF, FlinkSqlOperatorTable.NULLIF);
        op("IF", FlinkSqlOperatorTable.IF);
        op("CAST", SqlStdOperatorTable.CAST, FlinkSqlOperatorTable.CAST);
        op("TRY_CAST", FlinkSqlOperatorTable.TRY_CAST);
        op("LOWER", SqlStdOperatorTable.LOWER, FlinkSqlOperatorTable.LOWER);
        op("UPPER", SqlStdOperatorTable.UPPER, FlinkSqlOperatorTable.UPPER);
        op("CHAR_LENGTH", SqlStdOperatorTable.CHAR_LENGTH, FlinkSqlOperatorTable.CHAR_LENGTH,
                SqlStdOperatorTable.CHARACTER_LENGTH, FlinkSqlOperatorTable.CHARACTER_LENGTH);
        op("SUBSTRING", SqlStdOperatorTable.SUBSTRING, FlinkSqlOperatorTable.SUBSTRING);
        op("CONCAT", SqlStdOperatorTable.CONCAT, FlinkSqlOperatorTable.CONCAT, FlinkSqlOperatorTable.CONCAT_FUNCTION);
        op("TRIM", SqlStdOperatorTable.TRIM, FlinkSqlOperatorTable.TRIM);
        op("LIKE", SqlStdOperatorTable.LIKE, FlinkSqlOperatorTable.LIKE);
        op("SPLIT_INDEX", FlinkSqlOperatorTable.SPLIT_INDEX);
        op("REGEXP_EXTRACT", FlinkSqlOperatorTable.REGEXP_EXTRACT);
        op("REGEXP", FlinkSqlOperatorTable.REGEXP);
        op("HOUR", SqlStdOperatorTable.HOUR, FlinkSqlOperatorTable.HOUR);
        op("MINUTE", SqlStdOperatorTable.MINUTE, FlinkSqlOperatorTable.MINUTE);
        op("SECOND", SqlStdOperatorTable.SECOND, FlinkSqlOperatorTable.SECOND);
        op("EXTRACT", SqlStdOperatorTable.EXTRACT, FlinkSqlOperatorTable.EXTRACT);
        op("DATE_FORMAT", FlinkSqlOperatorTable.DATE_FORMAT);

        definition("COALESCE", BuiltInFunctionDefinitions.COALESCE);
        definition("TO_TIMESTAMP_LTZ", BuiltInFunctionDefinitions.TO_TIMESTAMP_LTZ);
    }

    private static void op(String name, SqlOperator... operators) {
        for (SqlOperator o : operators) {
            OPERATORS.put(o, name);
        }
    }

    private static void definition(String name, FunctionDefinition d) {
        DEFINITIONS.put(d, name);
    }

    private final RexBuilder rexBuilder;

    RexToPlan(RexBuilder rexBuilder) {
        this.rexBuilder = rexBuilder;
    }

    /** {@code node} (over the scan's row), SEARCH expanded first, as a plan expression. */
    PlanExpr convert(RexNode node) throws PlanSerializationException {
        return toPlan(RexUtil.expandSearch(rexBuilder, null, node));
    }

    private PlanExpr toPlan(RexNode node) throws PlanSerializationException {
        if (node instanceof RexInputRef) {
            return PlanExpr.input(((RexInputRef) node).getIndex(), typeOf(node));
        }
        if (node instanceof RexFieldAccess) {
            RexFieldAccess access = (RexFieldAccess) node;
            return PlanExpr.field(toPlan(access.getReferenceExpr()), access.getField().getIndex(), typeOf(node));
        }
        if (node instanceof RexLiteral) {
            return literal((RexLiteral) node);
        }
        if (node instanceof RexCall) {
            RexCall call = (RexCall) node;
            String name = operatorName(call.getOperator());
            if (name == null) {
                throw new PlanSerializationException("operator " + call.getOperator().getName() + " (in "
                        + call + ") is not in the operator plan");
            }
            List<PlanExpr> operands = new ArrayList<>(call.getOperands().size());
            for (RexNode operand : call.getOperands()) {
                operands.add(toPlan(operand));
            }
            return PlanExpr.call(name, operands, typeOf(node));
        }
        throw new PlanSerializationException("expression " + node + " (" + node.getKind() + ") is not in the operator plan");
    }

    private static String operatorName(SqlOperator operator) {
        String name = OPERATORS.get(operator);
        if (name == null && operator instanceof BridgingSqlFunction) {
            name = DEFINITIONS.get(((BridgingSqlFunction) operator).getDefinition());
        }
        return name;
    }

    private static LogicalType typeOf(RexNode node) {
        return FlinkTypeFactory.toLogicalType(node.getType());
    }

    /** A literal written as the value Flink's generated code would use for it. */
    private static PlanExpr literal(RexLiteral literal) throws PlanSerializationException {
        if (literal.getTypeName() == SqlTypeName.SYMBOL) {
            Object flag = literal.getValue();
            if (!(flag instanceof Enum)) {
                throw new PlanSerializationException("symbol literal " + literal);
            }
            return PlanExpr.symbol(((Enum<?>) flag).name());
        }
        LogicalType type = typeOf(literal);
        if (literal.isNull()) {
            return PlanLiteral.ofNull(type);
        }
        Comparable<?> value = literal.getValue();
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return PlanLiteral.ofBoolean((Boolean) value, type);
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
            case INTERVAL_YEAR_MONTH:
            case INTERVAL_DAY_TIME:
                try {
                    return PlanLiteral.ofIntegral(((BigDecimal) value).longValueExact(), type);
                } catch (ArithmeticException e) {
                    throw new PlanSerializationException("literal " + literal + " is not a " + type.asSummaryString());
                }
            case FLOAT:
                return PlanLiteral.ofFloat(value instanceof BigDecimal ? ((BigDecimal) value).floatValue()
                        : ((Number) value).floatValue(), type);
            case DOUBLE:
                return PlanLiteral.ofDouble(value instanceof BigDecimal ? ((BigDecimal) value).doubleValue()
                        : ((Number) value).doubleValue(), type);
            case DECIMAL:
                return PlanLiteral.ofDecimal((BigDecimal) value, (DecimalType) type);
            case CHAR:
            case VARCHAR:
                return PlanLiteral.ofString(((NlsString) value).getValue(), type);
            case BINARY:
            case VARBINARY:
                return PlanLiteral.ofBytes(((ByteString) value).getBytes(), type);
            case DATE:
                return PlanLiteral.ofDate(literal.getValueAs(DateString.class).getDaysSinceEpoch(), type);
            case TIME_WITHOUT_TIME_ZONE:
                return PlanLiteral.ofTime(literal.getValueAs(TimeString.class).getMillisOfDay(), type);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                TimestampString ts = literal.getValueAs(TimestampString.class);
                return PlanLiteral.ofTimestamp(
                        TimestampData.fromLocalDateTime(LocalDateTime.parse(ts.toString().replace(' ', 'T'))), type);
            default:
                throw new PlanSerializationException("literal of type " + type.asSummaryString()
                        + " is not in the operator plan");
        }
    }
}

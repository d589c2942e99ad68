package io.karrow.flink.planner.plan;

import io.karrow.flink.nativebridge.JsonText;
import io.karrow.flink.nativebridge.LogicalTypeJson;

import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.logical.LogicalType;

import java.util.List;
import java.util.Objects;

/**
 * An expression of the operator plan ({@code docs/operator-plan.md}): a column of the input row, a
 * field of a ROW-typed expression, a typed literal, a flag operand, or a call of one of the
 * contract's operators. Every node but a symbol carries the type Flink's planner inferred for it.
 */
public abstract class PlanExpr {

    private PlanExpr() {}

    /** Appends this expression's contract JSON. */
    abstract void appendJson(StringBuilder out) throws PlanSerializationException;

    /** The contract JSON of this expression. */
    public final String toJson() throws PlanSerializationException {
        StringBuilder out = new StringBuilder(128);
        appendJson(out);
        return out.toString();
    }

    static void appendType(StringBuilder out, LogicalType type) throws PlanSerializationException {
        try {
            LogicalTypeJson.append(out, type);
        } catch (ValidationException e) {
            throw new PlanSerializationException("type " + type.asSummaryString() + " has no plan representation");
        }
    }

    /** Column {@code index} of the input row. */
    public static PlanExpr input(int index, LogicalType type) {
        return new InputRef(index, type);
    }

    /** Field {@code index} of the ROW-typed {@code row} (Calcite's {@code RexFieldAccess}). */
    public static PlanExpr field(PlanExpr row, int index, LogicalType type) {
        return new FieldAccess(row, index, type);
    }

    /** A flag operand: TRIM's {@code BOTH}/{@code LEADING}/{@code TRAILING}, EXTRACT's time unit. */
    public static PlanExpr symbol(String name) {
        return new Symbol(name);
    }

    /** A call of the contract operator {@code op} ({@link PlanOperators}). */
    public static PlanExpr call(String op, List<PlanExpr> operands, LogicalType type) {
        return new Call(op, operands, type);
    }

    private static final class InputRef extends PlanExpr {
        private final int index;
        private final LogicalType type;

        InputRef(int index, LogicalType type) {
            this.index = index;
            this.type = Objects.requireNonNull(type);
        }

        @Override
        void appendJson(StringBuilder out) throws PlanSerializationException {
            out.append("{\"input\":").append(index).append(",\"type\":");
            appendType(out, type);
            out.append('}');
        }
    }

    private static final class FieldAccess extends PlanExpr {
        private final PlanExpr row;
        private final int index;
        private final LogicalType type;

        FieldAccess(PlanExpr row, int index, LogicalType type) {
            this.row = Objects.requireNonNull(row);
            this.index = index;
            this.type = Objects.requireNonNull(type);
        }

        @Override
        void appendJson(StringBuilder out) throws PlanSerializationException {
            out.append("{\"field\":");
            row.appendJson(out);
            out.append(",\"index\":").append(index).append(",\"type\":");
            appendType(out, type);
            out.append('}');
        }
    }

    private static final class Symbol extends PlanExpr {
        private final String name;

        Symbol(String name) {
            this.name = Objects.requireNonNull(name);
        }

        @Override
        void appendJson(StringBuilder out) {
            out.append("{\"symbol\":");
            JsonText.appendString(out, name);
            out.append('}');
        }
    }

    private static final class Call extends PlanExpr {
        private final String op;
        private final List<PlanExpr> operands;
        private final LogicalType type;

        Call(String op, List<PlanExpr> operands, LogicalType type) {
            this.op = Objects.requireNonNull(op);
            this.operands = List.copyOf(operands);
            this.type = Objects.requireNonNull(type);
        }

        @Override
        void appendJson(StringBuilder out) throws PlanSerializationException {
            out.append("{\"call\":");
            JsonText.appendString(out, op);
            out.append(",\"operands\":[");
            for (int i = 0; i < operands.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                operands.get(i).appendJson(out);
            }
            out.append("],\"type\":");
            appendType(out, type);
            out.append('}');
        }
    }

    /** A literal; see {@link PlanLiteral} for how each type's value is written. */
    static final class Literal extends PlanExpr {
        private final String valueJson;
        private final LogicalType type;

        Literal(String valueJson, LogicalType type) {
            this.valueJson = valueJson;
            this.type = Objects.requireNonNull(type);
        }

        @Override
        void appendJson(StringBuilder out) throws PlanSerializationException {
            out.append("{\"literal\":").append(valueJson).append(",\"type\":");
            appendType(out, type);
            out.append('}');
        }
    }
}

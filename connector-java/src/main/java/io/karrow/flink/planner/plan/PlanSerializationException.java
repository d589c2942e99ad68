package io.karrow.flink.planner.plan;

/**
 * A node, expression, type or value that the operator plan cannot carry. Its message is the reason
 * the planner logs when it declines to fuse.
 */
public final class PlanSerializationException extends Exception {

    private static final long serialVersionUID = 1L;

    /** A reason, in the words of the decline line ("LIKE with 4 operands", "type MAP<...>"). */
    public PlanSerializationException(String reason) {
        super(reason);
    }
}

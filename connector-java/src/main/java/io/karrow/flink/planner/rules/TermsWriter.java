package io.karrow.flink.planner.rules;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.sql.SqlExplainLevel;
import org.apache.calcite.util.Pair;

import java.util.List;

/**
 * Collects a rel's own explain terms ({@code select=[...], where=[...]}) as Flink prints them, its
 * inputs left out: how a fused scan names the Calc it runs in {@code EXPLAIN}.
 */
final class TermsWriter implements RelWriter {

    private final StringBuilder terms = new StringBuilder();

    /** The terms of {@code rel}. */
    static String termsOf(RelNode rel) {
        TermsWriter writer = new TermsWriter();
        rel.explain(writer);
        return writer.terms.toString();
    }

    @Override
    public void explain(RelNode rel, List<Pair<String, Object>> valueList) {
        for (Pair<String, Object> term : valueList) {
            item(term.left, term.right);
        }
    }

    @Override
    public SqlExplainLevel getDetailLevel() {
        return SqlExplainLevel.EXPPLAN_ATTRIBUTES;
    }

    @Override
    public RelWriter item(String term, Object value) {
        if (!(value instanceof RelNode)) {
            if (terms.length() > 0) {
                terms.append(", ");
            }
            terms.append(term).append("=[").append(value).append(']');
        }
        return this;
    }

    @Override
    public RelWriter done(RelNode node) {
        return this;
    }
}

package io.karrow.flink.planner;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * Stands where a fused Calc's operator stood and forwards what the fused source computed (records,
 * watermarks, everything), chained to it. It keeps the fused job's stream graph the stock job's
 * shape, so savepoints map state between the two (see {@code docs/operator-core.md}). Stateless.
 *
 * <p>The one thing it does not forward: watermark rows (row kind {@code DELETE}), which a fused scan
 * whose Calc filters emits in place of each row the filter drops, so that the source's watermark
 * generator sees every row the scan produced, as it does in the unfused job (where the Calc runs
 * after it). A fused scan's rows are otherwise insert-only, so nothing else has that kind.
 */
public final class FusedCalcSlotOperator<T> extends AbstractStreamOperator<T> implements OneInputStreamOperator<T, T> {

    private static final long serialVersionUID = 1L;

    /** A factory chaining the operator like Flink's generated Calc ({@link ChainingStrategy#ALWAYS}). */
    public static <T> StreamOperatorFactory<T> factory() {
        SimpleOperatorFactory<T> factory = SimpleOperatorFactory.of(new FusedCalcSlotOperator<T>());
        factory.setChainingStrategy(ChainingStrategy.ALWAYS);
        return factory;
    }

    @Override
    public void processElement(StreamRecord<T> element) {
        T value = element.getValue();
        if (value instanceof RowData && ((RowData) value).getRowKind() == RowKind.DELETE) {
            return;
        }
        output.collect(element);
    }
}

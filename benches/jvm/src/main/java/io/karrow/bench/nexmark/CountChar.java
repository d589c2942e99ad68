package io.karrow.bench.nexmark;

import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.functions.ScalarFunction;

/**
 * q14's {@code count_char(s, c)}: how many bytes of the UTF-8 text {@code s} equal the first UTF-8
 * byte of {@code c}; 0 for a NULL {@code s}. The upstream suite's user function, written again.
 */
public final class CountChar extends ScalarFunction {

    private static final long serialVersionUID = 1L;

    /** The count; see the class comment. */
    public long eval(@DataTypeHint("STRING") StringData s, @DataTypeHint("STRING") StringData c) {
        if (s == null) {
            return 0;
        }
        byte wanted = c.toBytes()[0];
        long count = 0;
        for (byte b : s.toBytes()) {
            if (b == wanted) {
                count++;
            }
        }
        return count;
    }
}

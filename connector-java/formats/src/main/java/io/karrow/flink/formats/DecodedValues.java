package io.karrow.flink.formats;

import org.apache.flink.table.data.RowData;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The rows a {@link ValueBatchDecoder} decoded from a batch of Kafka values: all rows in value order,
 * and for each value where its rows end. A value may yield no row (a null value, an empty JSON array)
 * or several (a JSON top-level array).
 *
 * <p>Value {@code i} owns the rows {@code [rowStart(i), rowEnd(i))}. Immutable once built; the arrays
 * are owned by this object.
 */
public final class DecodedValues {

    private static final DecodedValues EMPTY = new DecodedValues(new RowData[0], new int[0]);

    private final RowData[] rows;
    private final int[] valueRowEnds;

    /**
     * Wraps decoded rows.
     *
     * @param rows the rows of all values in order; entries at and after {@code rowCount()} are unused
     * @param valueRowEnds per value {@code i}, the number of rows of values {@code 0..i} (non-decreasing)
     * @throws IllegalArgumentException if the ends decrease or exceed {@code rows.length}
     */
    public DecodedValues(RowData[] rows, int[] valueRowEnds) {
        this.rows = Objects.requireNonNull(rows, "rows");
        this.valueRowEnds = Objects.requireNonNull(valueRowEnds, "valueRowEnds");
        int previous = 0;
        for (int i = 0; i < valueRowEnds.length; i++) {
            int end = valueRowEnds[i];
            if (end < previous || end > rows.length) {
                throw new IllegalArgumentException("value " + i + " ends at row " + end + " after row " + previous
                        + " of " + rows.length);
            }
            previous = end;
        }
    }

    /** No values, no rows. */
    public static DecodedValues empty() {
        return EMPTY;
    }

    /** Number of decoded values. */
    public int valueCount() {
        return valueRowEnds.length;
    }

    /** Number of rows of all values. */
    public int rowCount() {
        return valueRowEnds.length == 0 ? 0 : valueRowEnds[valueRowEnds.length - 1];
    }

    /** Index of the first row of value {@code value}. */
    public int rowStart(int value) {
        Objects.checkIndex(value, valueRowEnds.length);
        return value == 0 ? 0 : valueRowEnds[value - 1];
    }

    /** Index after the last row of value {@code value}. */
    public int rowEnd(int value) {
        return valueRowEnds[Objects.checkIndex(value, valueRowEnds.length)];
    }

    /** Row {@code index} of all values, {@code 0 <= index < rowCount()}. */
    public RowData row(int index) {
        return rows[Objects.checkIndex(index, rowCount())];
    }

    /** The rows of value {@code value}, in order (a view; empty when the value yields no row). */
    public List<RowData> rowsOf(int value) {
        return Arrays.asList(rows).subList(rowStart(value), rowEnd(value));
    }
}

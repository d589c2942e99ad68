package io.karrow.bench;

import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.functions.ScalarFunction;

import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * SQL scalar function hashing all seven columns of one bid into 40 bits, so that {@code
 * SUM(BID_DIGEST(...))} over a table is an order-independent digest of every value that cannot
 * overflow a BIGINT for up to 2^23 rows. Nulls hash differently from every value.
 */
public class BidDigest extends ScalarFunction {

    private static final long serialVersionUID = 1L;
    private static final long MASK_40 = (1L << 40) - 1;
    private static final long NULL_MARK = 0x9E3779B97F4A7C15L;

    private final long seed;

    /** Creates the function with a seed (two seeds give two independent digests). */
    public BidDigest(long seed) {
        this.seed = seed;
    }

    /** Hashes one bid. */
    public long eval(
            Long auction,
            Long bidder,
            Long price,
            String channel,
            String url,
            @DataTypeHint("TIMESTAMP(3)") LocalDateTime dateTime,
            String extra) {
        long h = seed;
        h = mix(h, auction);
        h = mix(h, bidder);
        h = mix(h, price);
        h = mix(h, channel);
        h = mix(h, url);
        h = dateTime == null
                ? mix(h, (Long) null)
                : mix(mix(h, dateTime.toEpochSecond(ZoneOffset.UTC)), (long) dateTime.getNano());
        h = mix(h, extra);
        return finish(h) & MASK_40;
    }

    private static long mix(long h, Long value) {
        return step(h, value == null ? NULL_MARK : value);
    }

    private static long mix(long h, String value) {
        if (value == null) {
            return step(h, NULL_MARK);
        }
        long s = 0xCBF29CE484222325L; // FNV-1a over UTF-16 code units, then mixed in with the length
        for (int i = 0; i < value.length(); i++) {
            s = (s ^ value.charAt(i)) * 0x100000001B3L;
        }
        return step(step(h, s), value.length());
    }

    private static long step(long h, long v) {
        return finish(h ^ (v + 0x9E3779B97F4A7C15L + (h << 6) + (h >>> 2)));
    }

    /** The SplitMix64 finalizer. */
    private static long finish(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}

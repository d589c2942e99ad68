package io.karrow.bench.nexmark;

import java.util.List;

/** How the outputs of the two sides of one query in one round compared. */
record Comparison(Verdict verdict, String detail, List<String> differences) {

    enum Verdict {
        /** Equal as the query's comparison defines it. */
        EQUAL,
        /** Different: fails the run. */
        DIFFERENT,
        /** Not compared: a side failed. */
        NOT_COMPARED,
        /** The query's output is not determined by its input ({@code -- compare: none: why}); not a failure. */
        NOT_COMPARABLE
    }

    static Comparison equal(String detail) {
        return new Comparison(Verdict.EQUAL, detail, List.of());
    }

    static Comparison different(String detail, List<String> differences) {
        return new Comparison(Verdict.DIFFERENT, detail, differences);
    }

    static Comparison notComparable(String detail) {
        return new Comparison(Verdict.NOT_COMPARABLE, detail, List.of());
    }

    static Comparison notCompared(String detail) {
        return new Comparison(Verdict.NOT_COMPARED, detail, List.of());
    }
}

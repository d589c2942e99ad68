package io.karrow.flink.nativebridge;

/**
 * The kinds of native session a handle can name, with the codes {@link KarrowNative#open} takes
 * (mirrored by {@code SessionKind} in {@code connector-java/native/src/session.rs}; see {@code
 * docs/jni-contract.md}).
 */
public enum SessionKind {
    /** {@code avro-confluent-native} decoder. */
    AVRO_DECODER(1, "Avro decoder"),
    /** {@code avro-confluent-native} encoder; registers its writer schema when it opens. */
    AVRO_ENCODER(2, "Avro encoder"),
    /** {@code json-native} / {@code json-confluent-native} decoder. */
    JSON_DECODER(3, "JSON decoder"),
    /** {@code json-native} / {@code json-confluent-native} encoder. */
    JSON_ENCODER(4, "JSON encoder"),
    /** {@code protobuf-native} / {@code protobuf-confluent-native} decoder (bytes: a descriptor set). */
    PROTOBUF_DECODER(5, "Protobuf decoder"),
    /** {@code protobuf-native} / {@code protobuf-confluent-native} encoder (bytes: a descriptor set). */
    PROTOBUF_ENCODER(6, "Protobuf encoder"),
    /** The native fetch of the {@code kafka-native} source. */
    FETCH(7, "fetch session"),
    /**
     * An operator pipeline (configJson: the plan of {@code docs/operator-plan.md}): row images in,
     * the Calc's kept and projected rows out ({@link KarrowNative#decodeBatch}); {@link
     * KarrowNative#control} answers {@code {"op":"decline_reason","plan":...}}.
     */
    OPERATOR_ROWS(8, "operator pipeline"),
    /** The native producer of the {@code kafka-native} sink (and its committer's EndTxn). */
    PRODUCE(9, "native producer"),
    /**
     * The encoded records of one fetched batch of a fully fused pipeline ({@link NativeEncodedBatch}):
     * made by {@link KarrowNative#runBatch}, handed to a producer by {@link KarrowNative#handOver};
     * never opened.
     */
    ENCODED_BATCH(10, "encoded batch");

    /** One more than the largest code: the number of per-kind entries {@link KarrowNative#stats} reports. */
    static final int CODES = 11;

    private final int code;
    private final String description;

    SessionKind(int code, String description) {
        this.code = code;
        this.description = description;
    }

    /** The code native code knows this kind by. */
    public int code() {
        return code;
    }

    /** The kind's name in messages, e.g. "JSON decoder". */
    public String description() {
        return description;
    }
}

package io.karrow.bench;

/**
 * {@link ProtobufEncodeBenchmark} over {@code karrow.bench.Order} rows (a nested address, repeated
 * line items with repeated tags, a string map, a repeated int64): Flink's {@code protobuf} format
 * against {@code protobuf-native} per record and batch, bytes checked equal in {@code @Setup}.
 */
public class ProtobufOrderEncodeBenchmark extends ProtobufEncodeBenchmark {

    @Override
    protected ProtobufMessages.Kind kind() {
        return ProtobufMessages.Kind.ORDER;
    }
}

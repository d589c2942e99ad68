package io.karrow.bench;

/**
 * {@link ProtobufDecodeBenchmark} over {@code karrow.bench.Order} messages (a nested address,
 * repeated line items with repeated tags, a string map, a repeated int64; ~250 bytes): Flink's {@code
 * protobuf} format against {@code protobuf-native} per record and batch, rows checked equal in
 * {@code @Setup}.
 */
public class ProtobufOrderDecodeBenchmark extends ProtobufDecodeBenchmark {

    @Override
    protected ProtobufMessages.Kind kind() {
        return ProtobufMessages.Kind.ORDER;
    }
}

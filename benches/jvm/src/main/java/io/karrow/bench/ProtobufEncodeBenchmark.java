package io.karrow.bench;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;

import java.util.HexFormat;

/**
 * Encodes {@value #MESSAGES} Nexmark bid rows ({@link BinaryRowData}, as rows reach a sink) into
 * Protobuf {@code karrow.test.Bid} values ({@link ProtobufOrderEncodeBenchmark}: nested orders) three
 * ways, in one JMH run ({@link ThreeWayEncodeBenchmark}): Flink's {@code protobuf} format (flink-protobuf's {@code
 * PbRowDataSerializationSchema}, what {@code 'format' = 'protobuf'} runs), the {@code protobuf-native}
 * format's per-record {@code serialize}, and its batch encoder (row images copied into direct memory,
 * one native call: the {@code kafka-native} sink's path). Both formats are created through {@code
 * FactoryUtil}. Scores are messages per second; {@code @Setup} fails unless all bytes are equal.
 */
public class ProtobufEncodeBenchmark extends ThreeWayEncodeBenchmark {

    /** Builds the rows, opens the encoders and checks that their bytes agree. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        ProtobufMessages.Kind kind = kind();
        RowDataSerializer toBinary = new RowDataSerializer(kind.rowType());
        BinaryRowData[] rows = new BinaryRowData[MESSAGES];
        RowData[] generic = kind.rows(MESSAGES);
        for (int i = 0; i < MESSAGES; i++) {
            rows[i] = toBinary.toBinaryRow(generic[i]).copy();
        }
        start(rows, ProtobufMessages.encoder(ProtobufMessages.FLINK, kind),
                ProtobufMessages.encoder(ProtobufMessages.NATIVE, kind), "flink-protobuf", HexFormat.of()::formatHex);
        System.out.printf("%n[setup] %d %s rows: native Protobuf bytes equal flink-protobuf's%n", MESSAGES, kind);
    }

    /** The message type encoded (the bid here; {@link ProtobufOrderEncodeBenchmark} overrides it). */
    protected ProtobufMessages.Kind kind() {
        return ProtobufMessages.Kind.BID;
    }
}

package io.karrow.bench;

import io.karrow.flink.formats.DecodedValues;
import io.karrow.flink.testutils.RowDataDiff;

import org.apache.flink.table.data.RowData;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;

import java.io.IOException;

/**
 * Decodes {@value #MESSAGES} Protobuf Nexmark bids ({@code karrow.test.Bid}, written by the generated
 * class; {@link ProtobufOrderDecodeBenchmark}: nested orders) into Flink rows three ways, in one JMH
 * run: Flink's {@code protobuf} format (flink-protobuf's {@code PbRowDataDeserializationSchema}, what
 * {@code 'format' = 'protobuf'} runs), the {@code protobuf-native} format's per-record {@code
 * deserialize}, and its batch decoder (one native call for all values, as the {@code kafka-native}
 * source makes per fetched batch). Both formats are created through {@code FactoryUtil} as a SQL
 * table gets them. Scores are messages per second.
 *
 * <p>{@code @Setup} fails unless both native paths give Flink's rows for every message. The batch
 * values are copied into direct memory once in {@code @Setup}, as a fetch buffer would hold them.
 */
public class ProtobufDecodeBenchmark extends ThreeWayDecodeBenchmark {

    /** Writes the messages with the generated class, opens the decoders and checks that their rows agree. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        ProtobufMessages.Kind kind = kind();
        byte[][] written = kind.messages(MESSAGES);
        long bytes = start(kind.rowType(), written, ProtobufMessages.decoder(ProtobufMessages.FLINK, kind),
                ProtobufMessages.decoder(ProtobufMessages.NATIVE, kind));
        verifyParity();
        System.out.printf("%n[setup] %d Protobuf %s messages, %.1f bytes/message on average: native rows equal"
                + " flink-protobuf's%n", MESSAGES, kind, (double) bytes / MESSAGES);
    }

    /** The message type decoded (the bid here; {@link ProtobufOrderDecodeBenchmark} overrides it). */
    protected ProtobufMessages.Kind kind() {
        return ProtobufMessages.Kind.BID;
    }

    private void verifyParity() throws IOException {
        DecodedValues batch = batchDecoder.decode(values, MESSAGES);
        if (batch.valueCount() != MESSAGES) {
            throw new IllegalStateException("the batch gave " + batch.valueCount() + " value entries for " + MESSAGES);
        }
        for (int i = 0; i < MESSAGES; i++) {
            RowData expected = oracle.deserialize(messages[i]);
            RowData single = perRecord.deserialize(messages[i]);
            if (expected == null || single == null || batch.rowEnd(i) - batch.rowStart(i) != 1) {
                throw new IllegalStateException("message " + i + " did not give exactly one row everywhere");
            }
            String diff = RowDataDiff.diff(rowType, expected, single);
            String batchDiff = RowDataDiff.diff(rowType, expected, batch.row(batch.rowStart(i)));
            if (diff != null || batchDiff != null) {
                throw new IllegalStateException("native rows differ from flink-protobuf's at message " + i + ": "
                        + (diff != null ? diff : batchDiff));
            }
        }
    }
}

package io.karrow.bench;

import io.karrow.flink.formats.json.JsonEncoderConfig;
import io.karrow.flink.formats.json.JsonNativeSerializationSchema;

import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.JsonRowDataSerializationSchema;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;

/**
 * Encodes {@value #MESSAGES} Nexmark bid rows ({@link BinaryRowData}, as rows reach a sink) into
 * JSON three ways, in one JMH run ({@link ThreeWayEncodeBenchmark}): flink-json's {@code
 * JsonRowDataSerializationSchema} (what {@code 'format' = 'json'} runs), the {@code json-native}
 * format's per-record {@code serialize}, and its batch encoder (row images copied into direct memory,
 * one native call: the {@code kafka-native} sink's path). Scores are messages per second; {@code
 * @Setup} fails unless all bytes are equal.
 */
public class JsonEncodeBenchmark extends ThreeWayEncodeBenchmark {

    /** Builds the rows, opens the encoders and checks that their bytes agree. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        RowType rowType = NexmarkBids.rowType();
        RowDataSerializer toBinary = new RowDataSerializer(rowType);
        NexmarkBids.Generator generator = new NexmarkBids.Generator(0, 42L);
        BinaryRowData[] rows = new BinaryRowData[MESSAGES];
        for (int i = 0; i < MESSAGES; i++) {
            rows[i] = toBinary.toBinaryRow(generator.nextRow()).copy();
        }
        JsonRowDataSerializationSchema oracle = new JsonRowDataSerializationSchema(
                rowType, TimestampFormat.SQL, JsonFormatOptions.MapNullKeyMode.FAIL, "null", false, false);
        oracle.open(null);
        JsonNativeSerializationSchema perRecord =
                new JsonNativeSerializationSchema(rowType, new JsonEncoderConfig("SQL", "FAIL", "null", false, false));
        perRecord.open(null);
        start(rows, oracle, perRecord, "flink-json", String::new);
        System.out.printf("%n[setup] %d bid rows: native JSON bytes equal flink-json's%n", MESSAGES);
    }
}

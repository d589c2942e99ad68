package io.karrow.bench;

/** Command-line options shared by the Kafka jobs of the benches (demo, source benchmark). */
final class JobOptions {
    long records;
    String bootstrap = "127.0.0.1:9092";
    String registry = "http://127.0.0.1:8081";
    String topic;
    int partitions = 2;
    int parallelism = 2;
    int rounds;
    /**
     * The value format family: {@code avro} (Confluent Avro, the default), {@code json} or {@code
     * protobuf} (the {@code karrow.test.Bid} message; source benchmark only).
     */
    String format = "avro";
    /** Runs only the configuration with this label (e.g. {@code native}, for profiling); null runs all. */
    String only;
    /** Extra {@code 'key' = 'value'} options for every source table ({@code --option key=value}, repeatable). */
    final java.util.List<String> sourceOptions = new java.util.ArrayList<>();
    /** Extra {@code 'key' = 'value'} options for every sink table ({@code --sink-option key=value}, repeatable). */
    final java.util.List<String> sinkOptions = new java.util.ArrayList<>();
    /**
     * Demo only: also runs karrow with native produce ({@code 'sink.produce-mode' = 'native'}), so
     * the same run compares the stock job, karrow with Kafka's Java producer and karrow with native
     * produce ({@code --native-produce true}).
     */
    boolean nativeProduce;

    /** {@code KEY=VALUE} as a SQL table option. */
    private static String tableOption(String flag, String value) {
        int eq = value.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException(flag + " takes KEY=VALUE, got " + value);
        }
        return "'" + value.substring(0, eq) + "' = '" + value.substring(eq + 1) + "'";
    }

    /**
     * Parses {@code --records --bootstrap --registry --topic --partitions --parallelism --rounds --format --only --option
     * --sink-option --native-produce}.
     *
     * @param program the name printed by {@code --help}
     * @param records default record count
     * @param topicPrefix prefix of the default topic name (a timestamp follows)
     * @param rounds default number of rounds
     */
    static JobOptions parse(String[] args, String program, long records, String topicPrefix, int rounds) {
        JobOptions o = new JobOptions();
        o.records = records;
        o.topic = topicPrefix + System.currentTimeMillis();
        o.rounds = rounds;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (name.equals("-h") || name.equals("--help")) {
                System.out.println("usage: " + program + " [--records N] [--bootstrap HOST:PORT] [--registry URL]"
                        + " [--topic NAME] [--partitions N] [--parallelism N] [--rounds N] [--format avro|json|protobuf]"
                        + " [--only LABEL] [--option KEY=VALUE]... [--sink-option KEY=VALUE]... [--native-produce true]");
                System.exit(0);
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value for " + name);
            }
            String value = args[++i];
            switch (name) {
                case "--records" -> o.records = Long.parseLong(value.replace("_", "").replace(",", ""));
                case "--bootstrap" -> o.bootstrap = value;
                case "--registry" -> o.registry = value;
                case "--topic" -> o.topic = value;
                case "--partitions" -> o.partitions = Integer.parseInt(value);
                case "--parallelism" -> o.parallelism = Integer.parseInt(value);
                case "--rounds" -> o.rounds = Integer.parseInt(value);
                case "--format" -> o.format = value;
                case "--only" -> o.only = value;
                case "--option" -> o.sourceOptions.add(tableOption(name, value));
                case "--sink-option" -> o.sinkOptions.add(tableOption(name, value));
                case "--native-produce" -> o.nativeProduce = Boolean.parseBoolean(value);
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (!o.format.equals("avro") && !o.format.equals("json") && !o.format.equals("protobuf")) {
            throw new IllegalArgumentException("--format must be avro, json or protobuf, got " + o.format);
        }
        if (o.records < 1 || o.partitions < 1 || o.parallelism < 1 || o.rounds < 1) {
            throw new IllegalArgumentException("--records, --partitions, --parallelism and --rounds must be >= 1");
        }
        return o;
    }
}

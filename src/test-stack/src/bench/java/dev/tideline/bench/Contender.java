package dev.tideline.bench;

/** Who did the work being measured. */
enum Contender {
    /** The MongoDB driver or Kafka client alone, in the benchmark JVM: the machine's and the stand-in's limit. */
    RAW("raw"),
    TIDELINE("Tideline"),
    /** MongoDB's official connector, org.mongodb.kafka:mongo-kafka-connect. */
    OFFICIAL("official");

    private final String label;

    Contender(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }
}

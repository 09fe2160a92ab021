package dev.tideline.bench;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The two connectors configured for the same work. Both run one task, emit BSON (their lossless form)
 * through ByteArrayConverter, and read 1,000 documents per round trip (Tideline's default, set
 * explicitly on the official one), so the comparison is of the connectors, not of converters or
 * batch sizes.
 */
final class ConnectorConfigs {
    static final String DB = "bench";
    static final String COLL = "c";
    static final String NAMESPACE = DB + "." + COLL;
    private static final String BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter";

    private ConnectorConfigs() {
    }

    /** How a source starts: from an operation time before a backlog, or with a copy of the collection. */
    sealed interface Start permits StreamFrom, CopyExisting {
    }

    record StreamFrom(Instant operationTime) implements Start {
    }

    record CopyExisting() implements Start {
    }

    /** The topic both sources write {@code bench.c} to, given their prefix. */
    static String topic(String prefix) {
        return prefix + "." + NAMESPACE;
    }

    static Map<String, String> source(Contender who, String uri, String prefix, Start start) {
        Map<String, String> c = converters();
        c.put("tasks.max", "1");
        if (who == Contender.TIDELINE) {
            c.put("connector.class", "dev.tideline.source.TidelineSourceConnector");
            c.put("mongodb.uri", uri);
            c.put("database.include", DB);
            c.put("collection.include", DB + "\\." + COLL);
            c.put("topic.prefix", prefix);
            c.put("output.format", "bson");
            c.put("initial.sync", start instanceof StreamFrom s ? s.operationTime().toString() : "full");
            settings(c, "", System.getProperty("bench.tideline.source", ""));
        } else if (who == Contender.OFFICIAL) {
            c.put("connector.class", "com.mongodb.kafka.connect.MongoSourceConnector");
            c.put("connection.uri", uri);
            c.put("database", DB);
            c.put("collection", COLL);
            c.put("topic.prefix", prefix);
            // The stand-in's change events carry no ns, which the official connector needs (docs/mongodb-stand-in.md).
            c.put("pipeline", "[{\"$addFields\": {\"ns\": {\"db\": \"" + DB + "\", \"coll\": \"" + COLL + "\"}}}]");
            c.put("output.format.key", "bson");
            c.put("output.format.value", "bson");
            // Its default (0) lets the server choose: the stand-in then answers the first aggregate with the
            // whole backlog, over the driver's 48 MB limit (it failed so at 50,000 x 1 KB). 1,000 as Tideline.
            c.put("batch.size", "1000");
            if (start instanceof StreamFrom s) {
                c.put("startup.mode", "timestamp");
                c.put("startup.mode.timestamp.start.at.operation.time", s.operationTime().toString());
            } else {
                c.put("startup.mode", "copy_existing");
            }
        } else {
            throw new IllegalArgumentException("no connector for " + who);
        }
        return c;
    }

    /**
     * A sink applying {@code topic} onto {@code bench.c}. Tideline reads its own envelopes; the
     * official sink reads change-stream documents with its ChangeStreamHandler (what its source emits).
     * {@code -Dbench.consumer} ({@code key=value,...}, e.g. {@code max.poll.records=1000}) sets both sinks' consumer
     * ({@code consumer.override.*}); {@code -Dbench.tideline.sink} sets Tideline's sink settings.
     */
    static Map<String, String> sink(Contender who, String uri, String topic) {
        Map<String, String> c = converters();
        c.put("tasks.max", "1");
        c.put("topics", topic);
        settings(c, "consumer.override.", System.getProperty("bench.consumer", ""));
        if (who == Contender.TIDELINE) {
            c.put("connector.class", "dev.tideline.sink.TidelineSinkConnector");
            c.put("mongodb.uri", uri);
            settings(c, "", System.getProperty("bench.tideline.sink", ""));
        } else if (who == Contender.OFFICIAL) {
            c.put("connector.class", "com.mongodb.kafka.connect.MongoSinkConnector");
            c.put("connection.uri", uri);
            c.put("database", DB);
            c.put("collection", COLL);
            c.put("change.data.capture.handler", "com.mongodb.kafka.connect.sink.cdc.mongodb.ChangeStreamHandler");
        } else {
            throw new IllegalArgumentException("no connector for " + who);
        }
        return c;
    }

    /**
     * The converters, plus the producer settings of {@code -Dbench.producer} ({@code key=value,...}, e.g.
     * {@code batch.size=1048576}) as {@code producer.override.*}: the same for every connector, to see how
     * much of a rate is the producer's.
     */
    private static Map<String, String> converters() {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("key.converter", BYTES);
        c.put("value.converter", BYTES);
        settings(c, "producer.override.", System.getProperty("bench.producer", ""));
        return c;
    }

    /**
     * Puts {@code key=value,...} into the config, each key prefixed. {@code -Dbench.tideline.source} sets Tideline's
     * source settings this way (e.g. {@code records.in.flight.max=2000}), to see what a setting does to a figure.
     */
    private static void settings(Map<String, String> c, String prefix, String list) {
        for (String kv : list.split(",")) {
            if (!kv.isBlank()) {
                if (kv.indexOf('=') < 1) {
                    throw new IllegalArgumentException("not key=value: '" + kv + "' in '" + list + "'");
                }
                c.put(prefix + kv.substring(0, kv.indexOf('=')).trim(), kv.substring(kv.indexOf('=') + 1).trim());
            }
        }
    }
}

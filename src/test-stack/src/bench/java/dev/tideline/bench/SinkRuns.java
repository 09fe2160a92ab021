package dev.tideline.bench;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;

/**
 * The two sinks applying the same {@code n} inserts of 1 KB documents onto a fresh destination, each
 * from a topic in the form its own source writes: Tideline's envelope, and the change-stream document
 * the official source emits (applied by its ChangeStreamHandler). The topics are filled once and read
 * from the beginning by every run (a new connector name is a new consumer group).
 */
final class SinkRuns {
    private static final Duration STALL = Duration.ofSeconds(60);
    private static final Namespace NS = new Namespace(ConnectorConfigs.DB, ConnectorConfigs.COLL);

    private SinkRuns() {
    }

    /**
     * @param cpuSeconds       worker CPU over the run
     * @param standIn          the destination stand-in's CPU over the same run
     * @param examinedPerWrite documents the destination examined per record applied (1 or so: an {@code _id} lookup
     *                         per write; the whole collection when a filter is a scan)
     */
    record Apply(double rate, double cpuSeconds, StandInCpu.Share standIn, double examinedPerWrite) {
    }

    /** Writes the change records of {@code who}'s form to a new topic; returns its name. */
    static String produceTopic(BenchContext ctx, Contender who, int n) {
        String topic = ctx.unique("sink-input-" + who.label().toLowerCase());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, ctx.stack.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 5), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < n; i++) {
                BsonTimestamp clusterTime = new BsonTimestamp(1_700_000_000 + i / 1000, i % 1000 + 1);
                BsonDocument doc = BenchDocs.bson(i);
                if (who == Contender.TIDELINE) {
                    ChangeEvent e = new ChangeEvent(Op.INSERT, NS, new BsonInt32(i), doc, clusterTime, 1_700_000_000_000L + i, null);
                    producer.send(new ProducerRecord<>(topic, (byte[]) EnvelopeCodec.toKey(e.id(), ValueFormat.BSON),
                            (byte[]) EnvelopeCodec.toValue(e, ValueFormat.BSON)));
                } else {
                    producer.send(new ProducerRecord<>(topic, EnvelopeCodec.toBytes(officialKey(i)),
                            EnvelopeCodec.toBytes(officialChange(i, doc, clusterTime))));
                }
            }
            producer.flush();
        }
        return topic;
    }

    /** The official source's key: the resume token document. */
    private static BsonDocument officialKey(int i) {
        return new BsonDocument("_id", new BsonDocument("_data", new BsonString(String.format("%016x", i))));
    }

    /** An insert as a change stream reports it (the fields the official ChangeStreamHandler reads, and ns). */
    private static BsonDocument officialChange(int i, BsonDocument doc, BsonTimestamp clusterTime) {
        return new BsonDocument("_id", officialKey(i).get("_id"))
                .append("operationType", new BsonString("insert"))
                .append("clusterTime", clusterTime)
                .append("fullDocument", doc)
                .append("ns", new BsonDocument("db", new BsonString(NS.db())).append("coll", new BsonString(NS.coll())))
                .append("documentKey", new BsonDocument("_id", new BsonInt32(i)));
    }

    /**
     * How a sink run differs from the defaults.
     *
     * @param guardOff       Tideline with {@code stale.guard=off} (no version sidecar)
     * @param maxPollRecords the sink's consumer's {@code max.poll.records} ({@code consumer.override.}), 0 for Kafka's
     *                       default (500): how many records one {@code put} gets, so how many documents one bulk write
     *                       carries at most (the raw writer sends {@value RawLimits#BULK})
     */
    record Variant(boolean guardOff, int maxPollRecords) {
        static final Variant DEFAULTS = new Variant(false, 0);

        String suffix() {
            return (guardOff ? "-noguard" : "") + (maxPollRecords > 0 ? "-poll" + maxPollRecords : "");
        }

        String label() {
            return (guardOff ? " (stale.guard=off)" : "") + (maxPollRecords > 0 ? " (max.poll.records=" + maxPollRecords + ")" : "");
        }
    }

    /** Applies the {@code n} records of {@code topic} with {@code who}'s sink; docs/s from its first write to its n-th. */
    static Apply apply(BenchContext ctx, Contender who, String topic, int n, Variant variant) {
        try (Destination dest = Destination.start()) {
            String name = ctx.unique("sink-" + who.label().toLowerCase() + variant.suffix());
            ctx.quiesce();
            Path jfr = ctx.startJfr(name, who == Contender.TIDELINE);
            double cpu0 = ctx.worker.cpuSeconds();
            StandInCpu standInCpu = StandInCpu.start();
            long examined0 = dest.backend().documentsExamined();
            long start = System.nanoTime();
            Map<String, String> config = ConnectorConfigs.sink(who, dest.uri(), topic);
            if (variant.guardOff()) {
                config.put("stale.guard", "off");
            }
            if (variant.maxPollRecords() > 0) {
                config.put("consumer.override.max.poll.records", Integer.toString(variant.maxPollRecords()));
            }
            ctx.rest.putConnector(name, config);
            try {
                Progress.Result r = Progress.await(who.label() + " sink applying " + n + " records", start,
                        () -> dest.backend().distinctWritten(), n, STALL, () -> ctx.failure(name), null, 0);
                double cpu = ctx.worker.cpuSeconds() - cpu0;
                StandInCpu.Share standIn = standInCpu.stop();
                double examinedPerWrite = (double) (dest.backend().documentsExamined() - examined0) / n;
                // From the destination's own clock: first write to the write that completed the set.
                double rate = Stats.perSecond(n, dest.backend().lastNanos() - dest.backend().firstNanos());
                try (MongoClient client = MongoClients.create(dest.uri())) {
                    long stored = RawLimits.collection(client, org.bson.Document.class).countDocuments();
                    if (stored != n) {
                        throw new IllegalStateException(who.label() + " sink left " + stored + " documents, expected " + n);
                    }
                }
                BenchContext.log(String.format("%s%s sink applied %,d records in %d ms: %.0f docs/s, %.1f CPU-s, stand-in %.1f CPU-s "
                                + "(%.0f%% of a core), %.1f documents examined per record", who.label(), variant.label(), n,
                        r.elapsed().toMillis(), rate, cpu, standIn.cpuSeconds(), 100 * standIn.ofOneCore(), examinedPerWrite));
                return new Apply(rate, cpu, standIn, examinedPerWrite);
            } finally {
                ctx.stopJfr(name, jfr);
                ctx.deleteAndSettle(name);
            }
        }
    }
}

package dev.tideline.bench;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.WriteModel;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import dev.tideline.standin.MongoFixture;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.bson.RawBsonDocument;

/**
 * The limits of the parts the connectors are made of, measured with the MongoDB driver and the Kafka
 * producer alone in the benchmark JVM, on the same stand-in and broker: what no connector can beat.
 */
final class RawLimits {
    private RawLimits() {
    }

    /** Reads a pre-filled oplog of {@code n} inserts through a change stream from before it; events/s. */
    static double changeStreamRead(int n) {
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            Instant start = Instant.now().minusSeconds(2).truncatedTo(ChronoUnit.SECONDS);
            BenchContext.fill(mongo.client(), n);
            MongoCollection<RawBsonDocument> coll = collection(mongo.client(), RawBsonDocument.class);
            long t0 = System.nanoTime();
            try (MongoChangeStreamCursor<ChangeStreamDocument<RawBsonDocument>> cursor = coll.watch(RawBsonDocument.class)
                    .startAtOperationTime(new BsonTimestamp((int) start.getEpochSecond(), 0))
                    .batchSize(1000).cursor()) {
                for (int i = 0; i < n; i++) {
                    if (cursor.next().getFullDocument() == null) {
                        throw new IllegalStateException("insert event without its document");
                    }
                }
            }
            return Stats.perSecond(n, System.nanoTime() - t0);
        }
    }

    /** Reads a collection of {@code n} documents with {@code find}, 1,000 per batch; docs/s. */
    static double findRead(int n) {
        return findRead(n, false);
    }

    /**
     * {@code inIdOrder}: sorted by {@code _id}, as a resumable copy reads. MongoDB serves that order
     * from the {@code _id} index; the stand-in sorts the whole collection in memory for it.
     */
    static double findRead(int n, boolean inIdOrder) {
        try (MongoFixture mongo = MongoFixture.withoutOplog()) {
            BenchContext.fill(mongo.client(), n);
            MongoCollection<RawBsonDocument> coll = collection(mongo.client(), RawBsonDocument.class);
            long t0 = System.nanoTime();
            int read = 0;
            var find = inIdOrder ? coll.find().sort(new org.bson.Document("_id", 1)) : coll.find();
            try (MongoCursor<RawBsonDocument> cursor = find.batchSize(1000).cursor()) {
                while (cursor.hasNext()) {
                    cursor.next();
                    read++;
                }
            }
            if (read != n) {
                throw new IllegalStateException("find read " + read + " of " + n + " documents");
            }
            return Stats.perSecond(n, System.nanoTime() - t0);
        }
    }

    /** Documents per bulk write of {@link #bulkUpsert}. */
    static final int BULK = 1000;

    /** Unordered bulk upserts (replace by _id) of {@code n} documents in chunks of {@value #BULK} onto a fresh destination; docs/s. */
    static double bulkUpsert(int n) {
        try (Destination dest = Destination.start();
             MongoClient client = MongoClients.create(dest.uri())) {
            MongoCollection<Document> coll = collection(client, Document.class);
            ReplaceOptions upsert = new ReplaceOptions().upsert(true);
            BulkWriteOptions unordered = new BulkWriteOptions().ordered(false);
            List<List<WriteModel<Document>>> chunks = new ArrayList<>();
            for (int from = 0; from < n; from += BULK) {
                List<WriteModel<Document>> chunk = new ArrayList<>();
                for (Document d : BenchDocs.docs(from, Math.min(n, from + BULK))) {
                    chunk.add(new ReplaceOneModel<>(Filters.eq("_id", d.get("_id")), d, upsert));
                }
                chunks.add(chunk);
            }
            long t0 = System.nanoTime();
            for (List<WriteModel<Document>> chunk : chunks) {
                coll.bulkWrite(chunk, unordered);
            }
            long elapsed = System.nanoTime() - t0;
            if (dest.backend().distinctWritten() != n) {
                throw new IllegalStateException("bulk upsert wrote " + dest.backend().distinctWritten() + " of " + n);
            }
            return Stats.perSecond(n, elapsed);
        }
    }

    /** Sends {@code n} records of 1 KB to a new topic (acks=all, as Connect's producers) and flushes; records/s. */
    static double kafkaProduce(String bootstrap, String topic, int n) {
        return kafkaProduce(bootstrap, topic, n, false);
    }

    /**
     * {@code asCopyRecords}: each record of the size and shape a copy sends (docs/record-formats.md): a 14-byte key
     * ({_id: int32}), a value the size of a copied 1 KB document's envelope and the five headers of a change record,
     * so the limit it gives is the producer's for the copy's own records, not for bare 1 KB values.
     */
    static double kafkaProduce(String bootstrap, String topic, int n, boolean asCopyRecords) {
        byte[] value = new byte[asCopyRecords ? COPY_RECORD_VALUE_BYTES : BenchDocs.BYTES];
        String producerId = java.util.UUID.randomUUID().toString();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 5,
                ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024), new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, new byte[0], value)); // topic creation and metadata, not timed
            producer.flush();
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                byte[] key = asCopyRecords ? copyKey(i) : Integer.toString(i).getBytes();
                ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, key, value);
                if (asCopyRecords) {
                    r.headers().add("tl.kind", "change".getBytes()).add("tl.ns", "bench.c".getBytes())
                            .add("tl.producer", producerId.getBytes()).add("tl.op", "read".getBytes())
                            .add("tl.seq", Integer.toString(i).getBytes());
                }
                producer.send(r);
            }
            producer.flush();
            return Stats.perSecond(n, System.nanoTime() - t0);
        }
    }

    /** The size of the bson envelope of a {@link BenchDocs} document as a copy sends it (1,132 bytes). */
    static final int COPY_RECORD_VALUE_BYTES = ((byte[]) dev.tideline.event.EnvelopeCodec.toValue(dev.tideline.event.ChangeEvent.read(
            new dev.tideline.event.Namespace(ConnectorConfigs.DB, ConnectorConfigs.COLL), new org.bson.BsonInt32(1),
            new RawBsonDocument(BenchDocs.bson(1), new org.bson.codecs.BsonDocumentCodec()), new BsonTimestamp(1, 1), 1L),
            dev.tideline.event.ValueFormat.BSON)).length;

    private static byte[] copyKey(int id) {
        return new byte[] {14, 0, 0, 0, 0x10, '_', 'i', 'd', 0, (byte) id, (byte) (id >>> 8), (byte) (id >>> 16), (byte) (id >>> 24), 0};
    }

    static <T> MongoCollection<T> collection(MongoClient client, Class<T> type) {
        return client.getDatabase(ConnectorConfigs.DB).getCollection(ConnectorConfigs.COLL, type);
    }
}

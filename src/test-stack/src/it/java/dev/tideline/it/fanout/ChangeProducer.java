package dev.tideline.it.fanout;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;

/**
 * Writes change records as the source writes them (BSON envelope, tl.* headers, the document id as
 * key) straight to a topic, so a test controls tenants, versions, replays and timing exactly.
 */
public final class ChangeProducer implements AutoCloseable {
    /** One record written: where it landed and what it carried. */
    public record Sent(String tenant, int doc, int version, int partition, long offset, boolean delete, byte[] value) {
    }

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final Namespace ns;
    private int clusterSeconds = (int) (System.currentTimeMillis() / 1000);
    private int increment;

    public ChangeProducer(String bootstrap, String topic, String db, String coll) {
        this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.LINGER_MS_CONFIG, 0, ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000),
                new ByteArraySerializer(), new ByteArraySerializer());
        this.topic = topic;
        this.ns = new Namespace(db, coll);
    }

    /** A new version of a document of a tenant (an insert for version 1). */
    public Sent change(String tenant, int doc, int version) {
        BsonDocument d = new BsonDocument("_id", new BsonInt32(doc)).append("tenant", new BsonString(tenant))
                .append("v", new BsonInt32(version)).append("sentAt", new BsonInt64(System.currentTimeMillis()));
        ChangeEvent e = new ChangeEvent(version == 1 ? Op.INSERT : Op.UPDATE, ns, new BsonInt32(doc), d, nextClusterTime(),
                System.currentTimeMillis(), null);
        return send(tenant, doc, version, e, tenant, false);
    }

    /** A delete, with or without the tenant header (the source sets it only where pre-images are enabled). */
    public Sent delete(String tenant, int doc, int version, boolean withTenantHeader) {
        ChangeEvent e = new ChangeEvent(Op.DELETE, ns, new BsonInt32(doc), null, nextClusterTime(), System.currentTimeMillis(), null);
        return send(tenant, doc, version, e, withTenantHeader ? tenant : null, true);
    }

    /** A record with this exact value and headers again, as a source replays after a crash. */
    public Sent replay(Sent original) {
        ProducerRecord<byte[], byte[]> r = record(original.doc(), original.value(), original.delete() ? null : original.tenant(),
                original.delete() ? "delete" : "update");
        RecordMetadata m = await(r);
        return new Sent(original.tenant(), original.doc(), original.version(), m.partition(), m.offset(), original.delete(), original.value());
    }

    /** Any value with change headers (a poison record, say). */
    public Sent raw(String tenant, int doc, byte[] value) {
        RecordMetadata m = await(record(doc, value, tenant, "insert"));
        return new Sent(tenant, doc, 0, m.partition(), m.offset(), false, value);
    }

    private BsonTimestamp nextClusterTime() {
        return new BsonTimestamp(clusterSeconds, ++increment);
    }

    private Sent send(String tenant, int doc, int version, ChangeEvent e, String tenantHeader, boolean delete) {
        byte[] value = EnvelopeCodec.toBytes(EnvelopeCodec.toBson(e));
        RecordMetadata m = await(record(doc, value, tenantHeader, e.op().wireName()));
        return new Sent(tenant, doc, version, m.partition(), m.offset(), delete, value);
    }

    private ProducerRecord<byte[], byte[]> record(int doc, byte[] value, String tenant, String op) {
        byte[] key = EnvelopeCodec.toBytes(new BsonDocument("_id", new BsonInt32(doc)));
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, key, value);
        r.headers().add(EventHeaders.KIND, EventHeaders.KIND_CHANGE.getBytes(StandardCharsets.UTF_8));
        r.headers().add(EventHeaders.OP, op.getBytes(StandardCharsets.UTF_8));
        r.headers().add(EventHeaders.NAMESPACE, ns.fullName().getBytes(StandardCharsets.UTF_8));
        if (tenant != null) {
            r.headers().add(EventHeaders.TENANT, tenant.getBytes(StandardCharsets.UTF_8));
        }
        return r;
    }

    private RecordMetadata await(ProducerRecord<byte[], byte[]> r) {
        try {
            return producer.send(r).get(150, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("could not write to " + topic + ": " + e, e);
        }
    }

    public static List<Sent> ofTenant(List<Sent> all, String tenant) {
        List<Sent> out = new ArrayList<>();
        for (Sent s : all) {
            if (s.tenant().equals(tenant)) {
                out.add(s);
            }
        }
        return out;
    }

    @Override
    public void close() {
        producer.close(java.time.Duration.ofSeconds(5));
    }
}

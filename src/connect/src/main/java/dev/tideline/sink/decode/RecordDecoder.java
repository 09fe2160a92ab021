package dev.tideline.sink.decode;

import dev.tideline.bson.DottedPath;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.record.EnvelopeStruct;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.MalformedRecordException;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.sink.check.DocumentRules;
import dev.tideline.sink.check.IdRules;
import dev.tideline.sink.check.RecordShape;
import dev.tideline.sink.check.ShardKeys;
import dev.tideline.event.RefusedRecordException;
import dev.tideline.sink.config.TombstoneAction;
import java.util.Optional;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Reads a sink record in any accepted form into a {@link SinkChange}:
 * <ul>
 *   <li>a Tideline change envelope: BSON bytes (ByteArrayConverter), a schemaless map
 *       (JsonConverter, schemas off), JSON text (StringConverter) or the envelope Struct (JsonConverter
 *       with schemas on);</li>
 *   <li>a change event of MongoDB's official source connector ({@link OfficialChangeEvent}) or of
 *       Debezium's MongoDB connector ({@link DebeziumChangeEvent});</li>
 *   <li>a plain document keyed by {@code _id}: schemaless map, JSON text, BSON bytes or a Struct → a write;</li>
 *   <li>a Kafka tombstone (null value) → a delete of the key's {@code _id}, or a skip.</li>
 * </ul>
 * Anything else throws {@link MalformedRecordException} (a per-record problem).
 */
public final class RecordDecoder {
    private static final String ID = "_id";

    private final TombstoneAction tombstoneAction;
    private final Optional<String> versionField;
    private final boolean rawDocuments;
    private final RecordShape shape;

    /**
     * @param rawDocuments whether the document of a BSON envelope is kept as the bytes it arrived in
     *                     (checked by reading it all the same): for a writer that only sends it on,
     *                     it then costs no second encoding; reading its fields one by one costs more
     */
    public RecordDecoder(TombstoneAction tombstoneAction, Optional<String> versionField, boolean rawDocuments,
                         RecordShape shape) {
        this.tombstoneAction = tombstoneAction;
        this.versionField = versionField;
        this.rawDocuments = rawDocuments;
        this.shape = shape;
    }

    /**
     * @throws MalformedRecordException for a record that cannot be read as a change
     * @throws dev.tideline.event.RefusedRecordException for one that could harm the destination (see {@link #checked})
     */
    public Decoded decode(SinkRecord record) {
        return checked(read(record));
    }

    /**
     * What every change must pass whatever form it came in: an {@code _id} that matches by value only
     * ({@link IdRules}), and a document MongoDB can take as a replacement.
     */
    private static Decoded checked(Decoded d) {
        if (d instanceof SinkChange c) {
            IdRules.problem(c.id()).ifPresent(p -> {
                throw new RefusedRecordException("refused: its " + p);
            });
            ShardKeys.problem(c.shardKey()).ifPresent(p -> {
                throw new RefusedRecordException("refused: its " + p);
            });
            c.txnOpIndex(); // a tie-breaker that is not an index is refused here, before anything compares it
            if (c.document() != null) {
                DocumentRules.replacementProblem(c.document()).ifPresent(p -> {
                    throw new RefusedRecordException("refused: the document of _id " + Ids.show(c.id()) + " " + p);
                });
            }
        }
        return d;
    }

    private Decoded read(SinkRecord record) {
        // size (and a Struct's depth) before anything decodes: the codecs recurse once per level
        shape.check(record.key(), "record key");
        shape.check(record.value(), "record value");
        String kind = header(record, EventHeaders.KIND);
        if (kind != null && !EventHeaders.KIND_CHANGE.equals(kind)) {
            return new Decoded.Skip("a " + kind + " record, not a change");
        }
        Object value = record.value();
        if (value == null) {
            return tombstone(record);
        }
        BsonDocument doc;
        if (value instanceof Struct struct) {
            if (EnvelopeStruct.isEnvelope(struct)) {
                return envelope(record, EnvelopeCodec.fromBson(EnvelopeStruct.toEnvelope(struct)));
            }
            doc = StructConverter.toDocument(struct);
        } else if (rawDocuments && value instanceof byte[] bytes) {
            doc = EnvelopeCodec.fromBytesKeepingDocument(bytes); // an envelope's document stays a checked view of the bytes
        } else {
            doc = EnvelopeCodec.readDocument(value);
        }
        if (EnvelopeCodec.looksLikeEnvelope(doc)) {
            return envelope(record, EnvelopeCodec.fromBson(doc));
        }
        if (OfficialChangeEvent.matches(doc)) {
            return withVersion(OfficialChangeEvent.decode(record, doc));
        }
        if (DebeziumChangeEvent.matches(doc)) {
            return withVersion(DebeziumChangeEvent.decode(record, doc));
        }
        return plainDocument(record, doc);
    }

    /** A foreign change without a cluster time takes the configured version field of its document, as ours do. */
    private Decoded withVersion(Decoded d) {
        if (d instanceof SinkChange c && c.version() == null && c.document() != null) {
            return new SinkChange(c.record(), c.kind(), c.sourceNs(), c.id(), c.document(), versionOf(c.document()),
                    c.updates(), c.shardKey());
        }
        return d;
    }

    private Decoded tombstone(SinkRecord record) {
        if (tombstoneAction == TombstoneAction.IGNORE) {
            return new Decoded.Skip("tombstone ignored (tombstone.action=ignore)");
        }
        BsonValue id = KeyReader.id(record.key());
        return new SinkChange(record, SinkChange.Kind.DELETE, headerNamespace(record), id, null, null);
    }

    private Decoded envelope(SinkRecord record, ChangeEvent e) {
        if (e.op() == Op.DELETE) {
            return new SinkChange(record, SinkChange.Kind.DELETE, e.ns(), e.id(), null, e.clusterTime()).withShardKey(e.shardKey());
        }
        BsonDocument doc = e.document();
        if (doc == null || !doc.containsKey(ID)) {
            if (e.op() == Op.UPDATE || e.op() == Op.REPLACE) {
                // The source looked the document up after it was deleted (MongoDB sends fullDocument null
                // then): there is nothing to write, and the delete that follows removes it.
                return new Decoded.Skip("the source could no longer read the document of this " + e.op().wireName());
            }
            throw new MalformedRecordException("an " + e.op().wireName() + " change must carry the whole document with its _id");
        }
        if (!doc.get(ID).equals(e.id())) {
            throw new MalformedRecordException("the document's _id " + Ids.show(doc.get(ID)) + " differs from the change's id " + Ids.show(e.id()));
        }
        BsonValue version = e.clusterTime() != null ? e.clusterTime() : versionOf(doc);
        // from BSON bytes with raw documents, doc is a view of the record's bytes: written as they came, not encoded again
        return new SinkChange(record, SinkChange.Kind.WRITE, e.ns(), e.id(), doc, version).withShardKey(e.shardKey());
    }

    private Decoded plainDocument(SinkRecord record, BsonDocument doc) {
        BsonValue id = doc.get(ID);
        if (id == null) {
            if (record.key() == null) {
                throw new MalformedRecordException("a plain document needs an _id, in the document or as the record key");
            }
            id = KeyReader.id(record.key());
            BsonDocument withId = new BsonDocument(ID, id); // _id first, as MongoDB stores it
            withId.putAll(doc);
            doc = withId;
        }
        return new SinkChange(record, SinkChange.Kind.WRITE, headerNamespace(record), id, doc, versionOf(doc));
    }

    /** The configured version field of a document (dotted paths reach into embedded documents), or null. */
    private BsonValue versionOf(BsonDocument doc) {
        if (versionField.isEmpty()) {
            return null;
        }
        BsonValue v = DottedPath.get(doc, versionField.get());
        return v == null || v.isNull() ? null : v;
    }

    private static Namespace headerNamespace(SinkRecord record) {
        String ns = header(record, EventHeaders.NAMESPACE);
        if (ns == null) {
            return null;
        }
        try {
            return Namespace.parse(ns);
        } catch (IllegalArgumentException e) {
            throw new MalformedRecordException("header " + EventHeaders.NAMESPACE + ": " + e.getMessage(), e);
        }
    }

    private static String header(SinkRecord record, String name) {
        Header h = record.headers().lastWithName(name);
        if (h == null || h.value() == null) {
            return null;
        }
        Object v = h.value();
        return v instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8) : v.toString();
    }
}

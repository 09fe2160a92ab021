package dev.tideline.verify;

import dev.tideline.peer.ContentHash;
import dev.tideline.peer.PeerStamp;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.DecoderContext;

/**
 * When two versions of a document count as equal.
 *
 * <ul>
 *   <li>By default, BSON equality: the same elements in the same order with the same types and values,
 *       compared as the bytes the servers sent ({@link DocumentBytes}). A sink fed {@code bson} records
 *       writes documents byte for byte.</li>
 *   <li>{@code ignoreFieldOrder}: the same fields with the same types and values in any order
 *       ({@link ContentHash}), for pipelines that carry documents as JSON maps, which do not keep the
 *       order. That hash never looks at a top-level {@value PeerStamp#FIELD}.</li>
 * </ul>
 * Top-level fields in {@code ignoredFields} (the peer stamp between peers) are left out in both.
 */
public record DocumentComparison(Set<String> ignoredFields, boolean ignoreFieldOrder) {
    /** BSON equality, nothing ignored: a destination fed by a sink. */
    public static final DocumentComparison EXACT = new DocumentComparison(Set.of(), false);
    /** Between peer clusters: everything but the peer stamp each cluster writes for itself. */
    public static final DocumentComparison PEERS = new DocumentComparison(Set.of(PeerStamp.FIELD), false);

    public DocumentComparison {
        ignoredFields = Set.copyOf(ignoredFields);
    }

    public boolean same(RawBsonDocument a, RawBsonDocument b) {
        if (ignoreFieldOrder) {
            return fingerprint(a).equals(fingerprint(b));
        }
        return DocumentBytes.content(a, ignoredFields).equals(DocumentBytes.content(b, ignoredFields));
    }

    /**
     * Whether two versions this comparison finds different hold the same fields and values in another order (always
     * false when it already ignores the order).
     */
    public boolean differInFieldOrderOnly(RawBsonDocument a, RawBsonDocument b) {
        return !ignoreFieldOrder && !same(a, b) && new DocumentComparison(ignoredFields, true).same(a, b);
    }

    /**
     * 128 bits that stand for the document's content under this comparison (32 hex characters): equal
     * documents have equal fingerprints, and different ones differ but with negligible probability.
     */
    public String fingerprint(RawBsonDocument doc) {
        if (ignoreFieldOrder) {
            BsonDocument decoded = new BsonDocumentCodec().decode(doc.asBsonReader(), DecoderContext.builder().build());
            ignoredFields.forEach(decoded::remove);
            return ContentHash.of(decoded);
        }
        MessageDigest sha = sha256();
        sha.update(DocumentBytes.content(doc, ignoredFields));
        return HexFormat.of().formatHex(sha.digest(), 0, 16);
    }

    /** A short description for reports: {@code bytes}, {@code bytes without _tl}, {@code fields in any order}... */
    public String describe() {
        String base = ignoreFieldOrder ? "fields in any order" : "bytes";
        return ignoredFields.isEmpty() ? base : base + " without " + String.join(",", ignoredFields.stream().sorted().toList());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}

package dev.tideline.peer;

import dev.tideline.sign.KeyRing;
import dev.tideline.sign.Mac128;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The secret shared by the connectors of a peer link ({@code peer.stamp.key}, and during a rotation
 * {@code peer.stamp.key.previous}): every stamp, tombstone and delete record carries an HMAC-SHA256
 * made with it, so an application that can write the documents (but does not hold the key) cannot make
 * a change look like a peer sink's write, nor a peer's record look like another cluster's.
 *
 * <p>What a MAC binds: the cluster where the stamp was written (or whose source emitted the record), the
 * namespace, the document's {@code _id}, the version, the content hash ({@code null} for a delete) and the
 * base version. A stamp copied to another cluster, collection or document, or onto other content, no
 * longer verifies there. Each MAC names its key by a fingerprint ({@link #keyId()}), so stamps made with
 * the previous key still verify during a rotation. The key machinery (rotation, fingerprints, constant-time
 * comparison) is {@link KeyRing}'s, shared with signed change records.
 */
public final class StampKeys {
    /** what the fingerprints of stamp keys are made of: unchanged, so stamps already written keep their key's name */
    static final String KEY_ID_LABEL = "tideline-peer-stamp-key-id";
    private static final String DOMAIN = "tl-peer-v1";

    /** What a MAC is about (see the class comment). */
    public record Bound(String cluster, String namespace, BsonValue id, Version version, String content, Version base) {
    }

    private final KeyRing keys;

    /**
     * @param current  the key that signs (and verifies)
     * @param previous a key that still verifies (a rotation in progress), null or empty when none
     */
    public StampKeys(String current, String previous) {
        this(ring(current, previous));
    }

    StampKeys(KeyRing keys) {
        this.keys = keys;
    }

    private static KeyRing ring(String current, String previous) {
        if (current == null || current.isEmpty()) {
            throw new IllegalArgumentException("peer mode needs " + PeerKeySettings.KEY);
        }
        return new KeyRing(current, previous, KEY_ID_LABEL);
    }

    /** The fingerprint of the signing key (safe to show: it reveals nothing of the key). */
    public String keyId() {
        return keys.keyId();
    }

    public Mac128 sign(Bound b) {
        return keys.sign(input(b));
    }

    /** True when {@code m} was made for {@code b} with one of the configured keys. */
    public boolean verify(Mac128 m, Bound b) {
        return keys.verify(m, input(b));
    }

    private static KeyRing.Input input(Bound b) {
        return f -> f.text(DOMAIN).text(b.cluster()).text(b.namespace())
                .text(ContentHash.of(new BsonDocument("_id", b.id()))) // typed: an int32 1 and a string "1" differ
                .text(b.version().toText())
                .text(b.content() == null ? "-" : b.content())
                .text(b.base() == null ? "-" : b.base().toText());
    }
}

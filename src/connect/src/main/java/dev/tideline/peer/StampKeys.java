package dev.tideline.peer;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
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
 * the previous key still verify during a rotation. 128 bits of the HMAC are kept (32 hex characters).
 */
public final class StampKeys {
    private static final String ALGORITHM = "HmacSHA256";
    private static final byte[] KEY_ID_LABEL = "tideline-peer-stamp-key-id".getBytes(StandardCharsets.UTF_8);

    private record Key(String id, SecretKeySpec spec) {
    }

    /** What a MAC is about (see the class comment). */
    public record Bound(String cluster, String namespace, BsonValue id, Version version, String content, Version base) {
    }

    /** A MAC and the fingerprint of the key that made it. */
    public record Mac128(String keyId, String mac) {
    }

    private final List<Key> keys;

    /**
     * @param current  the key that signs (and verifies)
     * @param previous a key that still verifies (a rotation in progress), null or empty when none
     */
    public StampKeys(String current, String previous) {
        if (current == null || current.isEmpty()) {
            throw new IllegalArgumentException("peer mode needs peer.stamp.key");
        }
        List<Key> k = new ArrayList<>();
        k.add(key(current));
        if (previous != null && !previous.isEmpty() && !previous.equals(current)) {
            k.add(key(previous));
        }
        this.keys = List.copyOf(k);
    }

    /** The fingerprint of the signing key (safe to show: it reveals nothing of the key). */
    public String keyId() {
        return keys.get(0).id();
    }

    public Mac128 sign(Bound b) {
        Key k = keys.get(0);
        return new Mac128(k.id(), HexFormat.of().formatHex(mac(k.spec(), b), 0, 16));
    }

    /** True when {@code m} was made for {@code b} with one of the configured keys. */
    public boolean verify(Mac128 m, Bound b) {
        if (m == null || m.keyId() == null || m.mac() == null) {
            return false;
        }
        for (Key k : keys) {
            if (k.id().equals(m.keyId())) {
                byte[] expected = HexFormat.of().formatHex(mac(k.spec(), b), 0, 16).getBytes(StandardCharsets.US_ASCII);
                return MessageDigest.isEqual(expected, m.mac().getBytes(StandardCharsets.US_ASCII));
            }
        }
        return false;
    }

    private static Key key(String secret) {
        SecretKeySpec spec = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM);
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(spec);
            return new Key(HexFormat.of().formatHex(mac.doFinal(KEY_ID_LABEL), 0, 4), spec);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("every Java runtime has " + ALGORITHM, e);
        }
    }

    private static byte[] mac(SecretKeySpec spec, Bound b) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(spec);
            field(mac, "tl-peer-v1");
            field(mac, b.cluster());
            field(mac, b.namespace());
            field(mac, ContentHash.of(new BsonDocument("_id", b.id()))); // typed: an int32 1 and a string "1" differ
            field(mac, b.version().toText());
            field(mac, b.content() == null ? "-" : b.content());
            field(mac, b.base() == null ? "-" : b.base().toText());
            return mac.doFinal();
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("every Java runtime has " + ALGORITHM, e);
        }
    }

    /** Length-prefixed, so no two different field lists give the same bytes. */
    private static void field(Mac mac, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        mac.update(new byte[] {(byte) (b.length >>> 24), (byte) (b.length >>> 16), (byte) (b.length >>> 8), (byte) b.length});
        mac.update(b);
    }
}

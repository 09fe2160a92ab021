package dev.tideline.sign;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret keys of one purpose (peer stamps, signed change records): the current key, which signs and verifies,
 * and during a rotation the previous one, which still verifies. Every MAC is an HMAC-SHA256 cut to 128 bits and
 * names its key by a fingerprint ({@link #keyId()}, an HMAC of a label of the purpose: it reveals nothing of the
 * key), so the connectors can be given a new key one by one. Verification compares in constant time
 * ({@link MessageDigest#isEqual}). What a MAC is about is written by the caller as a list of length-prefixed fields
 * ({@link Fields}), after a domain string of its own: no two different field lists, and no two purposes sharing a
 * secret, give the same input.
 */
public final class KeyRing {
    private static final String ALGORITHM = "HmacSHA256";
    private static final int MAC_BYTES = 16;
    private static final int KEY_ID_BYTES = 4;

    private record Key(String id, SecretKeySpec spec) {
    }

    /** Writes the fields a MAC is about, in a fixed order. */
    @FunctionalInterface
    public interface Input {
        void writeTo(Fields fields);
    }

    /** The input of one MAC, as length-prefixed fields. */
    public static final class Fields {
        private final Mac mac;

        private Fields(Mac mac) {
            this.mac = mac;
        }

        public Fields text(String s) {
            return bytes(s.getBytes(StandardCharsets.UTF_8));
        }

        public Fields bytes(byte[] b) {
            return bytes(b, 0, b.length);
        }

        public Fields bytes(byte[] b, int offset, int length) {
            mac.update(new byte[] {(byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length});
            mac.update(b, offset, length);
            return this;
        }
    }

    private final List<Key> keys;

    /**
     * @param current    the key that signs (and verifies); not empty
     * @param previous   a key that still verifies (a rotation in progress), null or empty when none
     * @param keyIdLabel what the fingerprints of this purpose's keys are made of (fixed per purpose)
     */
    public KeyRing(String current, String previous, String keyIdLabel) {
        if (current == null || current.isEmpty()) {
            throw new IllegalArgumentException("a key ring needs a current key");
        }
        List<Key> k = new ArrayList<>();
        k.add(key(current, keyIdLabel));
        if (previous != null && !previous.isEmpty() && !previous.equals(current)) {
            k.add(key(previous, keyIdLabel));
        }
        this.keys = List.copyOf(k);
    }

    /** The fingerprint of the signing key (safe to show). */
    public String keyId() {
        return keys.get(0).id();
    }

    public Mac128 sign(Input input) {
        Key k = keys.get(0);
        return new Mac128(k.id(), HexFormat.of().formatHex(mac(k.spec(), input), 0, MAC_BYTES));
    }

    /** True when {@code m} was made for {@code input} with one of the keys. */
    public boolean verify(Mac128 m, Input input) {
        if (m == null || m.keyId() == null || m.mac() == null) {
            return false;
        }
        for (Key k : keys) {
            if (k.id().equals(m.keyId())) {
                byte[] expected = HexFormat.of().formatHex(mac(k.spec(), input), 0, MAC_BYTES).getBytes(StandardCharsets.US_ASCII);
                return MessageDigest.isEqual(expected, m.mac().getBytes(StandardCharsets.US_ASCII));
            }
        }
        return false;
    }

    /** Whether a key of this ring has that fingerprint. */
    public boolean knows(String keyId) {
        return keys.stream().anyMatch(k -> k.id().equals(keyId));
    }

    private static Key key(String secret, String keyIdLabel) {
        SecretKeySpec spec = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM);
        Mac mac = newMac(spec);
        return new Key(HexFormat.of().formatHex(mac.doFinal(keyIdLabel.getBytes(StandardCharsets.UTF_8)), 0, KEY_ID_BYTES), spec);
    }

    private static byte[] mac(SecretKeySpec spec, Input input) {
        Mac mac = newMac(spec);
        input.writeTo(new Fields(mac));
        return mac.doFinal();
    }

    private static Mac newMac(SecretKeySpec spec) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(spec);
            return mac;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("every Java runtime has " + ALGORITHM, e);
        }
    }
}

package dev.tideline.peer.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.peer.PeerCollections;
import dev.tideline.peer.StampKeys;
import dev.tideline.peer.Version;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/** The cut-off for unsigned tombstones and stamps is configuration: nothing in the database moves it. */
class StampTrustTest {
    private static final StampKeys KEYS = new StampKeys("the stamp key of the link, 32+ characters", null);
    private static final Namespace NS = new Namespace("app", "docs");
    private static final Version OLD = new Version(new BsonTimestamp(1_600_000_000, 1), "B");

    private static BsonDocument unsignedTombstone(Version v) {
        return new BsonDocument("_id", PeerCollections.tombstoneKey(NS.coll(), new BsonInt32(1))).append("v", v.toBson());
    }

    @Test
    void withoutACutOffNoUnsignedTombstoneIsTrusted() {
        assertThat(new StampTrust("A", KEYS, 0).tombstone(NS, new BsonInt32(1), unsignedTombstone(OLD))).isNull();
    }

    @Test
    void anUnsignedTombstoneOlderThanTheConfiguredCutOffIsTrustedAndANewerOneIsNot() {
        StampTrust trust = new StampTrust("A", KEYS, 1_650_000_000L);
        assertThat(trust.tombstone(NS, new BsonInt32(1), unsignedTombstone(OLD))).isEqualTo(OLD);
        Version recent = new Version(new BsonTimestamp(1_700_000_000, 1), "B");
        assertThat(trust.tombstone(NS, new BsonInt32(1), unsignedTombstone(recent))).isNull();
    }

    @Test
    void aSignedTombstoneIsTrustedWhateverTheCutOff() {
        StampTrust trust = new StampTrust("A", KEYS, 0);
        var mac = trust.tombstoneMac(NS, new BsonInt32(1), OLD);
        BsonDocument signed = unsignedTombstone(OLD).append("k", new org.bson.BsonString(mac.keyId()))
                .append("m", new org.bson.BsonString(mac.mac()));
        assertThat(trust.tombstone(NS, new BsonInt32(1), signed)).isEqualTo(OLD);
    }
}

package dev.tideline.peer.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.peer.DocState;
import dev.tideline.peer.Version;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class LastLeftPresentTest {
    private static final PeerChange.DocKey X = new PeerChange.DocKey(Namespace.parse("db.docs"), new BsonString("x"));

    private static Version v(int secs, String origin) {
        return new Version(new BsonTimestamp(secs, 1), origin);
    }

    @Test
    void aDocumentNeverLeftPresentIsJustAbsent() {
        assertThat(new LastLeftPresent().absent(X, v(5, "B"))).isEqualTo(new DocState.Absent(v(5, "B"), false, null));
    }

    @Test
    void aDocumentLeftPresentAndFoundAbsentWasDeletedHereWithoutItsRecordYet() {
        LastLeftPresent left = new LastLeftPresent();
        left.remember(X, new DocState.Present("c", v(10, "A"), null), null);

        assertThat(left.absent(X, null)).isEqualTo(new DocState.Absent(null, true, v(10, "A")));
    }

    @Test
    void theRevealTimeCountsOnlyWhileTheDocumentHoldsTheVersionStamped() {
        LastLeftPresent left = new LastLeftPresent();
        BsonTimestamp at = new BsonTimestamp(10, 1);
        left.remember(X, new DocState.Present("c", v(10, "A"), null), at);

        assertThat(left.revealedAt(X, new DocState.Present("c", v(10, "A"), null))).isEqualTo(at);
        assertThat(left.revealedAt(X, new DocState.Present("d", v(11, "B"), null))).isNull();
        assertThat(left.revealedAt(X, new DocState.Present("d", null, null))).isNull();
        assertThat(left.revealedAt(X, new DocState.Absent(null))).isNull();
    }

    @Test
    void aLocalDeleteNotRecordedYetIsRememberedWithTheVersionLastHeldAndARecordedOneIsForgotten() {
        LastLeftPresent left = new LastLeftPresent();
        left.remember(X, new DocState.Present("c", v(10, "A"), null), new BsonTimestamp(10, 1));
        left.remember(X, new DocState.Absent(null, true, v(10, "A")), null);
        assertThat(left.absent(X, null)).isEqualTo(new DocState.Absent(null, true, v(10, "A")));
        assertThat(left.revealedAt(X, new DocState.Present("c", v(10, "A"), null))).isNull();

        left.remember(X, new DocState.Absent(v(11, "A")), null);
        assertThat(left.absent(X, v(11, "A"))).isEqualTo(new DocState.Absent(v(11, "A"), false, null));
        assertThat(left.size()).isZero();
    }

    @Test
    void memoryIsBounded() {
        LastLeftPresent left = new LastLeftPresent();
        for (int i = 0; i < LastLeftPresent.MEMORY + 10; i++) {
            left.remember(new PeerChange.DocKey(Namespace.parse("db.docs"), new BsonString("d" + i)),
                    new DocState.Present("c", v(10, "A"), null), null);
        }
        assertThat(left.size()).isEqualTo(LastLeftPresent.MEMORY);
    }
}

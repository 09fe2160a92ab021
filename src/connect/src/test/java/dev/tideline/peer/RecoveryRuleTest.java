package dev.tideline.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.peer.RecoveryRule.Action;
import dev.tideline.peer.RecoveryRule.Decision;
import dev.tideline.peer.RecoveryRule.Policy;
import dev.tideline.peer.RecoveryRule.Rule;
import dev.tideline.peer.RecoveryRule.Side;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RecoveryRuleTest {
    private static Version v(int seconds, String origin) {
        return new Version(new BsonTimestamp(seconds, 1), origin);
    }

    /** Decides both ways round: the rule must not depend on which peer verify took as the reference. */
    private static Decision decide(Side first, Side second, Policy policy) {
        Decision d = RecoveryRule.decide(first, second, policy);
        Decision swapped = RecoveryRule.decide(second, first, policy);
        assertThat(swapped.rule()).isEqualTo(d.rule());
        assertThat(swapped.action()).isEqualTo(d.action());
        assertThat(swapped.winner()).isEqualTo(d.winner() < 0 ? -1 : 1 - d.winner());
        assertThat(swapped.tombstone()).isEqualTo(d.tombstone());
        assertThat(swapped.restamp()).isEqualTo(d.restamp());
        return d;
    }

    private static void expect(Decision d, Rule rule, Action action, int winner) {
        assertThat(d.rule()).isEqualTo(rule);
        assertThat(d.action()).isEqualTo(action);
        assertThat(d.winner()).isEqualTo(winner);
        assertThat(d.loser()).isEqualTo(winner < 0 ? -1 : 1 - winner);
    }

    @ParameterizedTest
    @EnumSource(Policy.class)
    void bothAbsentOrSameContentIsNothingToDo(Policy policy) {
        expect(decide(Side.absent("A", v(5, "A")), Side.absent("B", null), policy), Rule.SAME, Action.NONE, -1);
        expect(decide(Side.stamped("A", "h1", v(5, "A")), Side.stamped("B", "h1", v(9, "B")), policy), Rule.SAME, Action.NONE, -1);
        expect(decide(Side.local("A", "h1", null), Side.stamped("B", "h1", v(9, "B")), policy), Rule.SAME, Action.NONE, -1);
    }

    @ParameterizedTest
    @EnumSource(Policy.class)
    void bothStampedTheGreaterVersionWins(Policy policy) {
        Decision d = decide(Side.stamped("A", "h1", v(5, "A")), Side.stamped("B", "h2", v(7, "B")), policy);
        expect(d, Rule.NEWER_STAMP, Action.COPY, 1);
        assertThat(d.restamp()).isFalse();
        // same time: the origin id orders them, as last-writer-wins does
        expect(decide(Side.stamped("A", "h1", v(5, "B")), Side.stamped("B", "h2", v(5, "A")), policy), Rule.NEWER_STAMP,
                Action.COPY, 0);
        // a third cluster's version is a version like any other
        expect(decide(Side.stamped("A", "h1", v(9, "C")), Side.stamped("B", "h2", v(7, "B")), policy), Rule.NEWER_STAMP,
                Action.COPY, 0);
    }

    @Test
    void oneVersionWithTwoContentsIsAConflict() {
        expect(decide(Side.stamped("A", "h1", v(5, "A")), Side.stamped("B", "h2", v(5, "A")), Policy.COPY), Rule.CONFLICT,
                Action.NONE, -1);
    }

    @ParameterizedTest
    @EnumSource(Policy.class)
    void aLocalWriteOnTopOfTheOtherSidesVersionWinsAndIsStamped(Policy policy) {
        Decision d = decide(Side.local("A", "h1", v(7, "B")), Side.stamped("B", "h2", v(7, "B")), policy);
        expect(d, Rule.LOCAL_WRITE_AFTER, Action.COPY, 0);
        assertThat(d.restamp()).isTrue();
        expect(decide(Side.local("A", "h1", v(8, "C")), Side.stamped("B", "h2", v(7, "B")), policy), Rule.LOCAL_WRITE_AFTER,
                Action.COPY, 0);
    }

    @ParameterizedTest
    @EnumSource(Policy.class)
    void aLocalWriteWhoseOrderIsUnknownIsAConflictWhateverThePolicy(Policy policy) {
        // based on an older version than the other side's: both changed it since, in an unknown order
        expect(decide(Side.local("A", "h1", v(5, "A")), Side.stamped("B", "h2", v(7, "B")), policy), Rule.CONFLICT, Action.NONE, -1);
        // no stale stamp: nothing known of when it was made
        expect(decide(Side.local("A", "h1", null), Side.stamped("B", "h2", v(7, "B")), policy), Rule.CONFLICT, Action.NONE, -1);
        // two local writes, neither cluster saw the other's: concurrent by construction
        expect(decide(Side.local("A", "h1", v(5, "A")), Side.local("B", "h2", v(5, "A")), policy), Rule.CONFLICT, Action.NONE, -1);
        expect(decide(Side.local("A", "h1", v(9, "A")), Side.local("B", "h2", null), policy), Rule.CONFLICT, Action.NONE, -1);
    }

    @ParameterizedTest
    @EnumSource(Policy.class)
    void aTombstoneNewerThanThePresentVersionWins(Policy policy) {
        Decision d = decide(Side.absent("A", v(9, "C")), Side.stamped("B", "h2", v(7, "B")), policy);
        expect(d, Rule.NEWER_TOMBSTONE, Action.DELETE, 0);
        assertThat(d.tombstone()).isEqualTo(v(9, "C"));
    }

    @ParameterizedTest
    @EnumSource(Policy.class)
    void aVersionNewerThanTheTombstoneWins(Policy policy) {
        Decision d = decide(Side.absent("A", v(5, "A")), Side.stamped("B", "h2", v(7, "B")), policy);
        expect(d, Rule.NEWER_THAN_TOMBSTONE, Action.COPY, 1);
        assertThat(d.restamp()).isFalse();
        // a local write made on top of a version newer than the delete
        Decision local = decide(Side.absent("A", v(5, "A")), Side.local("B", "h2", v(6, "C")), policy);
        expect(local, Rule.LOCAL_WRITE_AFTER, Action.COPY, 1);
        assertThat(local.restamp()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(Policy.class)
    void aDocumentGoneFromTheClusterThatWroteItWasDeletedThere(Policy policy) {
        Decision d = decide(Side.absent("A", null), Side.stamped("B", "h2", v(7, "A")), policy);
        expect(d, Rule.DELETED_BY_ORIGIN, Action.DELETE, 0);
        assertThat(d.tombstone()).as("the delete's version is unknown: a new one is made").isNull();
        // an older tombstone left there does not make the version newer than the delete that removed it
        expect(decide(Side.absent("A", v(3, "B")), Side.stamped("B", "h2", v(7, "A")), policy), Rule.DELETED_BY_ORIGIN,
                Action.DELETE, 0);
    }

    @Test
    void presenceNothingDecidesGoesByThePolicy() {
        Side absent = Side.absent("A", null);
        for (Side present : new Side[] {Side.stamped("B", "h2", v(7, "B")), Side.stamped("B", "h2", v(7, "C")),
                Side.local("B", "h2", null), Side.local("B", "h2", v(4, "A")),
                // a local write and a delete, each after the same version: in an unknown order
                Side.local("B", "h2", v(4, "C"))}) {
            expect(decide(absent, present, Policy.REPORT), Rule.AMBIGUOUS, Action.NONE, -1);
            Decision copy = decide(absent, present, Policy.COPY);
            expect(copy, Rule.AMBIGUOUS, Action.COPY, 1);
            assertThat(copy.restamp()).isEqualTo(present.stamp() == null);
            Decision delete = decide(absent, present, Policy.DELETE);
            expect(delete, Rule.AMBIGUOUS, Action.DELETE, 0);
            assertThat(delete.tombstone()).isNull();
        }
        // a local write based on a version older than the tombstone: deleted and changed, order unknown
        expect(decide(Side.absent("A", v(6, "A")), Side.local("B", "h2", v(4, "C")), Policy.REPORT), Rule.AMBIGUOUS,
                Action.NONE, -1);
    }

    @Test
    void policiesParseByName() {
        assertThat(Policy.parse(" Copy ")).isEqualTo(Policy.COPY);
        assertThat(Policy.parse("report")).isEqualTo(Policy.REPORT);
        assertThat(Policy.parse("delete")).isEqualTo(Policy.DELETE);
        assertThatThrownBy(() -> Policy.parse("newest")).hasMessageContaining("report, copy or delete");
    }
}

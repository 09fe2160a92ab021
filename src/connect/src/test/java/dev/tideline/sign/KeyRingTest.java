package dev.tideline.sign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KeyRingTest {
    private static final String OLD = "the old secret of the deployment, 32+ chars";
    private static final String NEW = "the new secret of the deployment, 32+ chars";
    private static final String LABEL = "test-key-id";
    private static final KeyRing.Input HELLO = f -> f.text("domain").text("hello");

    @Test
    void aMacVerifiesForItsInputOnlyAndNamesItsKey() {
        KeyRing ring = new KeyRing(NEW, null, LABEL);
        Mac128 mac = ring.sign(HELLO);
        assertThat(mac.keyId()).isEqualTo(ring.keyId()).hasSize(8);
        assertThat(mac.mac()).hasSize(32);
        assertThat(ring.verify(mac, HELLO)).isTrue();
        assertThat(ring.verify(mac, f -> f.text("domain").text("hellO"))).isFalse();
        assertThat(ring.verify(new Mac128(mac.keyId(), mac.mac().replace(mac.mac().charAt(0), mac.mac().charAt(0) == 'a' ? 'b' : 'a')),
                HELLO)).isFalse();
        assertThat(ring.verify(null, HELLO)).isFalse();
    }

    @Test
    void fieldsAreLengthPrefixedSoTheirBoundariesCount() {
        KeyRing ring = new KeyRing(NEW, null, LABEL);
        assertThat(ring.verify(ring.sign(f -> f.text("ab").text("c")), f -> f.text("a").text("bc"))).isFalse();
    }

    @Test
    void duringARotationThePreviousKeyStillVerifiesAndTheNewOneSigns() {
        KeyRing old = new KeyRing(OLD, null, LABEL);
        KeyRing rotating = new KeyRing(NEW, OLD, LABEL);
        KeyRing after = new KeyRing(NEW, null, LABEL);
        Mac128 madeBefore = old.sign(HELLO);
        assertThat(rotating.verify(madeBefore, HELLO)).isTrue();
        assertThat(rotating.knows(old.keyId())).isTrue();
        assertThat(rotating.sign(HELLO).keyId()).isEqualTo(after.keyId()).isNotEqualTo(old.keyId());
        assertThat(after.verify(madeBefore, HELLO)).as("once the previous key is dropped").isFalse();
        assertThat(old.verify(rotating.sign(HELLO), HELLO)).isFalse();
    }

    @Test
    void fingerprintsDependOnThePurposeSoKeysOfOnePurposeAreNotTakenForAnother() {
        assertThat(new KeyRing(NEW, null, "a").keyId()).isNotEqualTo(new KeyRing(NEW, null, "b").keyId());
        KeyRing a = new KeyRing(NEW, null, "a");
        assertThat(new KeyRing(NEW, null, "b").verify(a.sign(HELLO), HELLO)).as("named by another fingerprint").isFalse();
    }

    @Test
    void aRingNeedsAKey() {
        assertThatThrownBy(() -> new KeyRing("", null, LABEL)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void headerTextRoundTrips() {
        Mac128 m = new KeyRing(NEW, null, LABEL).sign(HELLO);
        assertThat(Mac128.parse(m.text())).isEqualTo(m);
        assertThat(Mac128.parse("nocolon")).isNull();
        assertThat(Mac128.parse(":x")).isNull();
        assertThat(Mac128.parse(null)).isNull();
    }
}

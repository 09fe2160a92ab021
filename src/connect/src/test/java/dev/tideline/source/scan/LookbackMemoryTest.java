package dev.tideline.source.scan;

import static org.assertj.core.api.Assertions.assertThat;

import org.bson.BsonDateTime;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;

class LookbackMemoryTest {
    private final LookbackMemory memory = new LookbackMemory();

    @Test
    void sameIdSameKeyIsAlreadyEmittedAChangedKeyIsNot() {
        memory.remember(new BsonInt32(1), new BsonDateTime(1000));
        assertThat(memory.alreadyEmitted(new BsonInt32(1), new BsonDateTime(1000))).isTrue();
        assertThat(memory.alreadyEmitted(new BsonInt32(1), new BsonDateTime(1500))).isFalse();
        assertThat(memory.alreadyEmitted(new BsonInt32(2), new BsonDateTime(1000))).isFalse();
    }

    @Test
    void forgetsWhatFellOutOfTheWindow() {
        for (int i = 0; i < 10; i++) {
            memory.remember(new BsonInt32(i), new BsonDateTime(1000L * i));
        }
        memory.forgetBefore(new BsonDateTime(7000));
        assertThat(memory.size()).isEqualTo(3);
        assertThat(memory.alreadyEmitted(new BsonInt32(6), new BsonDateTime(6000))).isFalse();
        assertThat(memory.alreadyEmitted(new BsonInt32(7), new BsonDateTime(7000))).isTrue();
    }
}

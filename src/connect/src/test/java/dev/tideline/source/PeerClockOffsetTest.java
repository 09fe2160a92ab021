package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.source.capture.InvalidOffsetException;
import dev.tideline.source.capture.SourceOffset;
import java.util.HashMap;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/** The peer origin clock rides in the source offset: written with each record, read back on restart, validated. */
class PeerClockOffsetTest {
    @Test
    void theClockIsKeptWithTheOffsetAndReadBack() {
        SourceOffset position = SourceOffset.streamAfter(new BsonDocument("_data", new BsonString("826553F100000000072B0229296E04")));
        Map<String, Object> stored = new HashMap<>(SourceOffset.withPeerClock(position.recordOffset(), new BsonTimestamp(1_700_000_000, 7)));
        assertThat(SourceOffset.peerClock(stored)).isEqualTo(new BsonTimestamp(1_700_000_000, 7));
        assertThat(SourceOffset.fromMap(stored)).as("the position itself is unchanged").isEqualTo(position);
        assertThat(SourceOffset.peerClock(position.toMap())).as("an offset written without peer mode").isNull();
    }

    @Test
    void aMalformedClockIsRefusedNamingTheKey() {
        Map<String, Object> stored = new HashMap<>(SourceOffset.streamFrom(new BsonTimestamp(5, 1)).toMap());
        stored.put("peerClock", "soon");
        assertThatThrownBy(() -> SourceOffset.fromMap(stored)).isInstanceOf(InvalidOffsetException.class).hasMessageContaining("peerClock");
    }
}

package dev.tideline.fanout.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class EventCursorTest {
    @Test
    void roundTrips() {
        String id = EventCursor.format("ab12", new long[] {5, 0, 17});

        assertThat(id).isEqualTo("ab12:5,0,17");
        assertThat(EventCursor.parse(id, 3)).contains(new EventCursor("ab12", List.of(5L, 0L, 17L)));
    }

    @Test
    void refusesCursorsOfAnotherShape() {
        assertThat(EventCursor.parse("ab12:5,0", 3)).isEmpty();
        assertThat(EventCursor.parse("ab12:5,-1,2", 3)).isEmpty();
        assertThat(EventCursor.parse(":5", 1)).isEmpty();
        assertThat(EventCursor.parse("ab12:x", 1)).isEmpty();
        assertThat(EventCursor.parse("ab12:", 1)).isEmpty();
        assertThat(EventCursor.parse("ab12:99999999999999999999", 1)).isEmpty();
        assertThat(EventCursor.parse(null, 1)).isEmpty();
    }
}

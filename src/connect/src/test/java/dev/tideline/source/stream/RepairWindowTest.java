package dev.tideline.source.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.SourceOffset;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

class RepairWindowTest {
    private static final SourceOffset AT = SourceOffset.streamFrom(new BsonTimestamp(1, 1));
    private final List<Integer> kept = new ArrayList<>();
    private final List<BsonValue> gone = new ArrayList<>();
    private int lows;

    private RepairWindow window() {
        return new RepairWindow("w", new DatabaseStreamTest.Recorder().handle("c"), new RepairWindow.Emitter() {
            @Override
            public List<Captured> atLow(BsonTimestamp low, SourceOffset position) {
                lows++;
                return List.of(new Captured.Heartbeat(position));
            }

            @Override
            public List<Captured> atHigh(BsonTimestamp high, SourceOffset position, List<RawBsonDocument> k, List<BsonValue> g) {
                k.forEach(r -> kept.add(r.getInt32("_id").getValue()));
                gone.addAll(g);
                return List.of(new Captured.Heartbeat(position));
            }
        });
    }

    private static RawBsonDocument row(int id) {
        return RawBsonDocument.parse("{_id: " + id + ", v: 1}");
    }

    @Test
    void rowsOfDocumentsChangedInTheWindowAreLeftToTheStream() {
        RepairWindow w = window();
        w.changed(new BsonInt32(1)); // before the low watermark: not in the window
        assertThat(w.low(new BsonTimestamp(2, 1), AT)).hasSize(1);
        w.changed(new BsonInt64(2)); // the same _id as int 2 for MongoDB
        w.offer(new RepairWindow.Chunk(List.of(row(1), row(2), row(3)), List.of()));
        w.changed(new BsonInt32(3));
        assertThat(w.high(new BsonTimestamp(3, 1), AT)).hasSize(1);
        assertThat(kept).containsExactly(1);
        assertThat(w.closed()).isNotDone(); // until the batch is handed over
        w.handedOver();
        assertThat(w.closed()).isCompletedWithValue(1);
    }

    @Test
    void listedIdsNotFoundAndNotChangedAreGone() {
        RepairWindow w = window();
        w.low(new BsonTimestamp(2, 1), AT);
        w.changed(new BsonInt32(5));
        w.offer(new RepairWindow.Chunk(List.of(row(1)), List.of(new BsonInt32(1), new BsonInt32(4), new BsonInt32(5))));
        w.high(new BsonTimestamp(3, 1), AT);
        assertThat(kept).containsExactly(1);
        assertThat(gone).containsExactly(new BsonInt32(4));
    }

    @Test
    void aLowWatermarkReadAgainSendsNothingMoreAndAHighOneReadAgainRecomputes() {
        RepairWindow w = window();
        w.low(new BsonTimestamp(2, 1), AT);
        assertThat(w.low(new BsonTimestamp(2, 1), AT)).isEmpty();
        assertThat(lows).isEqualTo(1);
        w.offer(new RepairWindow.Chunk(List.of(row(1), row(2)), List.of()));
        w.high(new BsonTimestamp(3, 1), AT);
        // the batch was lost and is read again: a change read this time counts too
        kept.clear();
        w.changed(new BsonInt32(2));
        w.high(new BsonTimestamp(3, 1), AT);
        assertThat(kept).containsExactly(1);
    }

    @Test
    void aHighWatermarkWithoutItsChunkFailsTheWindow() {
        RepairWindow w = window();
        w.low(new BsonTimestamp(2, 1), AT);
        assertThat(w.high(new BsonTimestamp(3, 1), AT)).isEmpty();
        assertThat(w.closed()).isCompletedExceptionally();
        RepairWindow never = window();
        never.offer(new RepairWindow.Chunk(List.of(row(1)), List.of()));
        assertThat(never.high(new BsonTimestamp(3, 1), AT)).isEmpty();
        assertThat(never.closed()).isCompletedExceptionally();
    }

    @Test
    void changesOfTheWholeDocumentKeyCount() {
        RepairWindow w = window();
        w.low(new BsonTimestamp(2, 1), AT);
        w.changed(BsonDocument.parse("{a: 1}"));
        w.offer(new RepairWindow.Chunk(List.of(RawBsonDocument.parse("{_id: {a: 1}}")), List.of()));
        w.high(new BsonTimestamp(3, 1), AT);
        assertThat(kept).as("the row whose whole key changed in the window").isEmpty();
        w.handedOver();
        assertThat(w.closed()).isCompletedWithValue(0);
    }
}

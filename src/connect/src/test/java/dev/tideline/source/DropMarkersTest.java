package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.CollectionHandle;
import dev.tideline.source.capture.ControlType;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.StreamPosition;
import dev.tideline.source.config.CaptureSettings.DropPolicy;
import dev.tideline.source.stream.StreamOutput.Delivery;
import java.util.List;
import org.apache.kafka.connect.source.SourceRecord;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class DropMarkersTest {
    private static final Namespace ORDERS = new Namespace("shop", "orders");

    private static SourceOffset after(int seconds) {
        String hex = String.format("82%08X%08X01", seconds, 1);
        return SourceOffset.streamAfter(new BsonDocument("_data", new BsonString(hex)));
    }

    /** The collection as the drop markers see it: its namespace and where it stands. */
    private record Orders(SourceOffset position) implements CollectionHandle {
        @Override
        public Namespace ns() {
            return ORDERS;
        }

        @Override
        public void append(Captured item, List<SourceRecord> out) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void published(List<Captured> items) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void historyLost(StreamPosition position, boolean afterCopy, RuntimeException cause) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void recopy(String reason, BsonTimestamp replacedAt) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void park(String reason) {
            throw new UnsupportedOperationException();
        }
    }

    private static CollectionHandle orders(SourceOffset position) {
        return new Orders(position);
    }

    private static Captured.Control drop(int seconds) {
        return new Captured.Control(ControlType.DROP, "drop of shop.orders at ...", after(seconds));
    }

    @Test
    void applyPutsACopyOfNothingAtTheDropsClusterTimeBeforeItsControlRecord() {
        CollectionHandle c = orders(after(100));
        List<Delivery> out = new DropMarkers(DropPolicy.APPLY, x -> 3)
                .expand(List.of(new Delivery(c, drop(200))));
        assertThat(out).hasSize(3);
        ResnapshotMarker begin = ((Captured.Marker) out.get(0).item()).marker();
        ResnapshotMarker complete = ((Captured.Marker) out.get(1).item()).marker();
        assertThat(begin.stage()).isEqualTo(ResnapshotMarker.Stage.BEGIN);
        assertThat(complete.stage()).isEqualTo(ResnapshotMarker.Stage.COMPLETE);
        assertThat(begin.epoch()).isEqualTo(new BsonTimestamp(200, 1)).isEqualTo(complete.epoch());
        assertThat(begin.partitions()).isEqualTo(3);
        assertThat(begin.scope().isAll()).isTrue();
        // crash-safe: until the complete marker is committed, the collection resumes before the drop and reads it again
        assertThat(out.get(0).item().offset()).isEqualTo(after(100));
        assertThat(out.get(1).item().offset()).isEqualTo(after(200));
        Captured.Control control = (Captured.Control) out.get(2).item();
        assertThat(control.type()).isEqualTo(ControlType.DROP);
        assertThat(control.detail()).startsWith("drop of shop.orders").contains("applied (drop.policy=apply)")
                .doesNotContain("not applied");
        assertThat(control.offset()).isEqualTo(after(200));
    }

    @Test
    void theBeginMarkerStandsAfterTheCollectionsEarlierEventsOfTheSameBatch() {
        CollectionHandle c = orders(after(100));
        Captured insert = new Captured.Heartbeat(after(150));
        List<Delivery> out = new DropMarkers(DropPolicy.APPLY, x -> 1)
                .expand(List.of(new Delivery(c, insert), new Delivery(c, drop(200)), new Delivery(c, new Captured.Heartbeat(after(300)))));
        assertThat(out).hasSize(5);
        assertThat(out.get(0).item()).isSameAs(insert);
        assertThat(out.get(1).item().offset()).isEqualTo(after(150));
        assertThat(out.get(4).item().offset()).isEqualTo(after(300));
    }

    @Test
    void aRenameAwayEmptiesTheNameToo() {
        CollectionHandle c = orders(after(100));
        Captured.Control rename = new Captured.Control(ControlType.RENAME, "rename of shop.orders to shop.old", after(200));
        assertThat(new DropMarkers(DropPolicy.APPLY, x -> 1).expand(List.of(new Delivery(c, rename)))).hasSize(3);
    }

    @Test
    void reportSaysTheDropIsNotApplied() {
        CollectionHandle c = orders(after(100));
        List<Delivery> dropped = List.of(new Delivery(c, drop(200)));
        List<Delivery> reported = new DropMarkers(DropPolicy.REPORT, x -> 1).expand(dropped);
        assertThat(reported).hasSize(1);
        assertThat(((Captured.Control) reported.get(0).item()).detail()).isEqualTo("drop of shop.orders at ...: reported, not "
                + "applied (drop.policy=report): the destination keeps the documents written before it");
        assertThat(reported.get(0).item().offset()).isEqualTo(after(200));
    }

    @Test
    void dropDatabaseAndInvalidateAreReportedNotAppliedWhateverThePolicyAndOtherControlRecordsAreLeftAsTheyAre() {
        CollectionHandle c = orders(after(100));
        Captured.Control parked = new Captured.Control(ControlType.PARKED, "shop.orders is PARKED: ...", after(100));
        for (DropPolicy policy : DropPolicy.values()) {
            List<Delivery> out = new DropMarkers(policy, x -> 1).expand(List.of(
                    new Delivery(c, new Captured.Control(ControlType.DROP_DATABASE, "dropDatabase of shop at ...", after(200))),
                    new Delivery(c, new Captured.Control(ControlType.INVALIDATE, "invalidate of shop at ...", after(200))),
                    new Delivery(c, parked)));
            assertThat(out).extracting(d -> ((Captured.Control) d.item()).detail()).as("%s", policy).containsExactly(
                    "dropDatabase of shop at ...: reported, not applied", "invalidate of shop at ...: reported, not applied",
                    parked.detail());
            assertThat(out).extracting(d -> d.item().offset()).containsExactly(after(200), after(200), after(100));
        }
    }
}

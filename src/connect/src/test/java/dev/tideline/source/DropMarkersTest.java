package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.source.config.CaptureSettings.DropPolicy;
import java.util.List;
import java.util.Map;
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

    private static CapturedCollection orders(SourceOffset position) {
        return new CapturedCollection(ORDERS, null, null, new BsonDocument(), position);
    }

    private static Captured.Control drop(int seconds) {
        return new Captured.Control("drop", "drop of shop.orders at ...", after(seconds));
    }

    @Test
    void applyPutsACopyOfNothingAtTheDropsClusterTimeBeforeItsControlRecord() {
        CapturedCollection c = orders(after(100));
        List<Map.Entry<CapturedCollection, Captured>> out = new DropMarkers(DropPolicy.APPLY, x -> 3)
                .expand(List.of(Map.entry(c, drop(200))));
        assertThat(out).hasSize(3);
        ResnapshotMarker begin = ((Captured.Marker) out.get(0).getValue()).marker();
        ResnapshotMarker complete = ((Captured.Marker) out.get(1).getValue()).marker();
        assertThat(begin.stage()).isEqualTo(ResnapshotMarker.Stage.BEGIN);
        assertThat(complete.stage()).isEqualTo(ResnapshotMarker.Stage.COMPLETE);
        assertThat(begin.epoch()).isEqualTo(new BsonTimestamp(200, 1)).isEqualTo(complete.epoch());
        assertThat(begin.partitions()).isEqualTo(3);
        assertThat(begin.scope().isAll()).isTrue();
        // crash-safe: until the complete marker is committed, the collection resumes before the drop and reads it again
        assertThat(out.get(0).getValue().offset()).isEqualTo(after(100));
        assertThat(out.get(1).getValue().offset()).isEqualTo(after(200));
        Captured.Control control = (Captured.Control) out.get(2).getValue();
        assertThat(control.type()).isEqualTo("drop");
        assertThat(control.detail()).startsWith("drop of shop.orders").contains("applied (drop.policy=apply)")
                .doesNotContain("not applied");
        assertThat(control.offset()).isEqualTo(after(200));
    }

    @Test
    void theBeginMarkerStandsAfterTheCollectionsEarlierEventsOfTheSameBatch() {
        CapturedCollection c = orders(after(100));
        Captured insert = new Captured.Heartbeat(after(150));
        List<Map.Entry<CapturedCollection, Captured>> out = new DropMarkers(DropPolicy.APPLY, x -> 1)
                .expand(List.of(Map.entry(c, insert), Map.entry(c, drop(200)), Map.entry(c, new Captured.Heartbeat(after(300)))));
        assertThat(out).hasSize(5);
        assertThat(out.get(0).getValue()).isSameAs(insert);
        assertThat(out.get(1).getValue().offset()).isEqualTo(after(150));
        assertThat(out.get(4).getValue().offset()).isEqualTo(after(300));
    }

    @Test
    void aRenameAwayEmptiesTheNameToo() {
        CapturedCollection c = orders(after(100));
        Captured.Control rename = new Captured.Control("rename", "rename of shop.orders to shop.old", after(200));
        assertThat(new DropMarkers(DropPolicy.APPLY, x -> 1).expand(List.of(Map.entry(c, rename)))).hasSize(3);
    }

    @Test
    void reportAndOtherControlRecordsAreLeftAsTheyAre() {
        CapturedCollection c = orders(after(100));
        List<Map.Entry<CapturedCollection, Captured>> dropped = List.of(Map.entry(c, drop(200)));
        List<Map.Entry<CapturedCollection, Captured>> reported = new DropMarkers(DropPolicy.REPORT, x -> 1).expand(dropped);
        assertThat(reported).hasSize(1);
        assertThat(((Captured.Control) reported.get(0).getValue()).detail()).contains("not applied (drop.policy=report)");
        assertThat(reported.get(0).getValue().offset()).isEqualTo(after(200));
        List<Map.Entry<CapturedCollection, Captured>> invalidate = List.of(
                Map.entry(c, new Captured.Control("invalidate", "invalidate", after(200))),
                Map.entry(c, new Captured.Control("dropDatabase", "dropDatabase", after(200))));
        assertThat(new DropMarkers(DropPolicy.APPLY, x -> 1).expand(invalidate)).isEqualTo(invalidate);
    }
}

package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tideline.source.StartPlanner.Phase;
import dev.tideline.source.StartPlanner.Plan;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.StreamPosition;
import dev.tideline.source.config.CaptureSettings.InitialSync;
import dev.tideline.source.config.CaptureSettings.Mode;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/**
 * Offsets the first release wrote (version 1), as Connect stores them (JSON; numbers come back as
 * Long), are read by this one without a copy: a streaming collection streams on from its token, a copy
 * in progress continues after its last _id, a resnapshot in progress too (and ends with its marker, as
 * every copy now does), a scan scans on.
 */
class OffsetUpgradeTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final InitialSync FULL = new InitialSync(InitialSync.Kind.FULL, null);
    private static final BsonTimestamp NOW = new BsonTimestamp(1_800_000_000, 0);

    private static Map<String, Object> stored(String json) throws Exception {
        return JSON.readValue(json, new TypeReference<Map<String, Object>>() { });
    }

    private static Plan plan(Map<String, Object> v1) {
        return StartPlanner.plan(SourceOffset.fromMap(v1), Mode.AUTO, FULL, true, () -> new StartPlanner.SkipStart(NOW, true));
    }

    @Test
    void aStreamingCollectionStreamsOnFromItsTokenWhoseClusterTimeTheTokenSays() throws Exception {
        // what version 1 wrote after an event of MongoDB 6.0 at Timestamp(1718000000, 3)
        Map<String, Object> v1 = stored("{\"v\":1,\"phase\":\"stream\",\"token\":\"{\\\"_data\\\": "
                + "\\\"8266669980000000032B022C0100296E5A10046C1A2F\\\"}\"}");
        Plan plan = plan(v1);
        assertThat(plan.phase()).isEqualTo(Phase.STREAM);
        assertThat(plan.offset().token()).isEqualTo(new BsonDocument("_data", new BsonString("8266669980000000032B022C0100296E5A10046C1A2F")));
        assertThat(plan.offset().streamPosition().clusterTime()).isEqualTo(new BsonTimestamp(1_718_000_000, 3));
        // comparable with what this release writes for another collection of the same stream
        StreamPosition later = StreamPosition.afterToken(new BsonDocument("_data", new BsonString("8266669980000000042B")), null);
        assertThat(plan.offset().streamPosition().covers(later)).isFalse();
        assertThat(later.covers(plan.offset().streamPosition())).isTrue();
        // and written back in this release's form, with its cluster time
        assertThat(plan.offset().toMap()).containsEntry("v", 2).containsEntry("ct", new BsonTimestamp(1_718_000_000, 3).getValue());
    }

    @Test
    void aCollectionStreamingFromAStartTimeStreamsOnFromIt() throws Exception {
        Plan plan = plan(stored("{\"v\":1,\"phase\":\"stream\",\"startAt\":" + new BsonTimestamp(1_718_000_000, 0).getValue() + "}"));
        assertThat(plan).isEqualTo(new Plan(Phase.STREAM, SourceOffset.streamFrom(new BsonTimestamp(1_718_000_000, 0))));
        assertThat(plan.offset().isAfterCopy()).isFalse();
    }

    @Test
    void aCopyInProgressContinuesAfterItsLastIdInsteadOfStartingOver() throws Exception {
        long start = new BsonTimestamp(1_718_000_000, 0).getValue();
        Plan first = plan(stored("{\"v\":1,\"phase\":\"backfill\",\"startAt\":" + start + ",\"lastId\":\"{\\\"v\\\": {\\\"$numberInt\\\": \\\"41\\\"}}\"}"));
        assertThat(first).isEqualTo(new Plan(Phase.BACKFILL, SourceOffset.backfill(new BsonTimestamp(start), new BsonInt32(41))));
        Plan resnapshot = plan(stored("{\"v\":1,\"phase\":\"backfill\",\"startAt\":" + start
                + ",\"lastId\":\"{\\\"v\\\": {\\\"$numberInt\\\": \\\"7\\\"}}\",\"resnap\":true}"));
        assertThat(resnapshot).isEqualTo(new Plan(Phase.BACKFILL, SourceOffset.backfill(new BsonTimestamp(start), new BsonInt32(7))));
    }

    @Test
    void aScanScansOn() throws Exception {
        Plan plan = StartPlanner.plan(SourceOffset.fromMap(stored("{\"v\":1,\"phase\":\"scan\",\"scanKey\":"
                + "\"{\\\"v\\\": {\\\"$date\\\": {\\\"$numberLong\\\": \\\"1718000000000\\\"}}}\",\"scanId\":\"{\\\"v\\\": {\\\"$numberInt\\\": \\\"3\\\"}}\"}")),
                Mode.SCAN, FULL, false, () -> new StartPlanner.SkipStart(NOW, true));
        assertThat(plan.phase()).isEqualTo(Phase.SCAN);
        assertThat(plan.offset().scanId()).isEqualTo(new BsonInt32(3));
    }
}

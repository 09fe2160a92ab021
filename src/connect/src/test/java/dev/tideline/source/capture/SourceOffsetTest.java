package dev.tideline.source.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tideline.event.Namespace;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.bson.BsonBinary;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SourceOffsetTest {
    private static final BsonTimestamp START = new BsonTimestamp(1_714_521_600, 17);
    private static final BsonDocument TOKEN = new BsonDocument("_data",
            new BsonString("8266F1A2B3000000012B022C0100296E5A1004")).append("extra", new BsonBinary(new byte[] {1, 2}));

    static Stream<Arguments> offsets() {
        return Stream.of(
                Arguments.of("backfill before first id", SourceOffset.backfill(START, null)),
                Arguments.of("backfill after ObjectId", SourceOffset.backfill(START, new BsonObjectId(new ObjectId("65f1a2b3c4d5e6f708192a3b")))),
                Arguments.of("backfill after string", SourceOffset.backfill(START, new BsonString("order-42 ✓"))),
                Arguments.of("backfill after int64", SourceOffset.backfill(START, new BsonInt64(5L))),
                Arguments.of("backfill after int32", SourceOffset.backfill(START, new BsonInt32(5))),
                Arguments.of("backfill split across tasks", SourceOffset.backfillSplit(new CopyPlan(START,
                        java.util.List.of(new BsonInt32(5), new BsonString("k"), new BsonObjectId(new ObjectId("65f1a2b3c4d5e6f708192a3b")))))),
                Arguments.of("a chunk copied whole", SourceOffset.chunkDone(START, new BsonString("k"))),
                Arguments.of("an empty chunk copied", SourceOffset.chunkDone(START, null)),
                Arguments.of("stream with token", SourceOffset.streamAfter(TOKEN)),
                Arguments.of("stream with an unreadable token and its cluster time", SourceOffset.streamAt(
                        dev.tideline.source.capture.StreamPosition.afterToken(new BsonDocument("_data", new BsonBinary(new byte[] {7})),
                                START))),
                Arguments.of("stream after a split event", SourceOffset.streamAt(
                        dev.tideline.source.capture.StreamPosition.afterSplitEvent(TOKEN, new BsonTimestamp(0x66F1A2B3, 1)))),
                Arguments.of("stream from startAt", SourceOffset.streamFrom(START)),
                Arguments.of("stream after a copy", SourceOffset.streamAfterCopy(START)),
                Arguments.of("scan from start", SourceOffset.scan(null, null)),
                Arguments.of("scan key only", SourceOffset.scan(new BsonDateTime(1_714_521_600_000L), null)),
                Arguments.of("scan all four", SourceOffset.scan(new BsonDateTime(1_714_521_600_000L), new BsonInt64(9L),
                        new BsonDateTime(-5L), new BsonObjectId(new ObjectId("000000000000000000000007")))));
    }

    private static void assertSame(SourceOffset actual, SourceOffset expected) {
        assertThat(actual.phase()).isEqualTo(expected.phase());
        assertThat(actual.token()).isEqualTo(expected.token());
        assertThat(actual.startAt()).isEqualTo(expected.startAt());
        assertThat(actual.lastId()).isEqualTo(expected.lastId());
        assertThat(actual.scanKey()).isEqualTo(expected.scanKey());
        assertThat(actual.scanId()).isEqualTo(expected.scanId());
        assertThat(actual.deleteAt()).isEqualTo(expected.deleteAt());
        assertThat(actual.deleteId()).isEqualTo(expected.deleteId());
        assertThat(actual.isAfterCopy()).isEqualTo(expected.isAfterCopy());
        if (expected.phase() == SourceOffset.Phase.STREAM) {
            assertThat(actual.streamPosition()).isEqualTo(expected.streamPosition());
        }
        assertThat(actual).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("offsets")
    void mapRoundTrip(String name, SourceOffset offset) {
        assertSame(SourceOffset.fromMap(offset.toMap()), offset);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("offsets")
    void jsonRoundTripAsConnectStoresIt(String name, SourceOffset offset) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        String json = mapper.writeValueAsString(offset.toMap());
        Map<String, Object> stored = mapper.readValue(json, new TypeReference<Map<String, Object>>() { });
        // Connect may hand numbers back as Long whatever they were written as
        Map<String, Object> asLongs = new HashMap<>();
        stored.forEach((k, v) -> asLongs.put(k, v instanceof Number n ? (Object) n.longValue() : v));

        assertSame(SourceOffset.fromMap(stored), offset);
        assertSame(SourceOffset.fromMap(asLongs), offset);
    }

    @Test
    void mapHoldsOnlyStringsAndNumbers() {
        Map<String, Object> m = SourceOffset.scan(new BsonDateTime(1L), new BsonInt64(2L), new BsonDateTime(3L), new BsonInt32(4)).toMap();
        assertThat(m).containsEntry("v", 2).containsEntry("phase", "scan");
        assertThat(m.values()).allMatch(v -> v instanceof String || v instanceof Number);
        assertThat(SourceOffset.backfill(START, null).toMap()).containsEntry("startAt", START.getValue()).doesNotContainKey("lastId");
    }

    @Test
    void startAtWithSecondsAfter2038RoundTrips() {
        // BsonTimestamp seconds are unsigned 32-bit: t >= 2^31 (after January 2038) makes getValue() negative
        BsonTimestamp late = new BsonTimestamp((int) 0x8000_0000L, 1);
        SourceOffset offset = SourceOffset.streamFrom(late);
        assertSame(SourceOffset.fromMap(offset.toMap()), offset);
    }

    private static Map<String, Object> valid(SourceOffset o) {
        return new HashMap<>(o.toMap());
    }

    private static void assertRejected(Map<String, Object> m, String... messageParts) {
        assertThatThrownBy(() -> SourceOffset.fromMap(m)).isInstanceOf(InvalidOffsetException.class)
                .satisfies(e -> assertThat(e.getMessage()).contains(messageParts));
    }

    @Test
    void rejectsMissingVersion() {
        Map<String, Object> m = valid(SourceOffset.streamFrom(START));
        m.remove("v");
        assertRejected(m, "'v'", "must be 2", "got null");
    }

    @Test
    void rejectsAVersionItDoesNotKnow() {
        Map<String, Object> m = valid(SourceOffset.streamFrom(START));
        m.put("v", 3L);
        assertRejected(m, "'v'", "got 3");
    }

    /** A restart after an event that arrived in fragments opens at its cluster time, never at the fragment's token. */
    @Test
    void aSplitEventsPositionIsStoredSoThatARestartOpensAtItsClusterTime() {
        BsonTimestamp ct = new BsonTimestamp(0x66F1A2B3, 1);
        SourceOffset stored = SourceOffset.fromMap(SourceOffset.streamAt(
                dev.tideline.source.capture.StreamPosition.afterSplitEvent(TOKEN, ct)).toMap());
        assertThat(stored.streamPosition().isSplitEvent()).isTrue();
        assertThat(stored.streamPosition().openingPoint()).isEqualTo(dev.tideline.source.capture.StreamPosition.atOperationTime(ct));
        assertThat(SourceOffset.fromMap(SourceOffset.streamAfter(TOKEN).toMap()).streamPosition().isSplitEvent()).isFalse();
    }

    /**
     * An older version stored a split event's last fragment's token as the position (no startAt): read back, it is
     * re-anchored after the split event, so the stream opens at the event's cluster time (never at the fragment's
     * token, which MongoDB answers 280 once the document changed) and drops the event, split again or whole.
     */
    @Test
    void aFragmentsTokenStoredByAnOlderVersionIsReadAsAfterItsSplitEvent() {
        BsonTimestamp ct = new BsonTimestamp(0x66F1A2B3, 1);
        String event = "8266F1A2B3000000012B042C0100296E5A1004" + "0123456789ABCDEF0123456789ABCDEF" + "46" + "2B5F696400" + "2B0E" + "00"; // event identifier {_id: 7}
        BsonDocument lastFragment = new BsonDocument("_data", new BsonString(event + "2B02" + "04")); // fragment 2 of 2
        Map<String, Object> older = new HashMap<>();
        older.put("v", 2L);
        older.put("phase", "stream");
        older.put("token", lastFragment.toJson());
        older.put("ct", ct.getValue());

        SourceOffset read = SourceOffset.fromMap(older);

        StreamPosition position = read.streamPosition();
        assertThat(position.isSplitEvent()).isTrue();
        assertThat(position.openingPoint()).isEqualTo(StreamPosition.atOperationTime(ct));
        BsonDocument firstFragment = new BsonDocument("_data", new BsonString(event + "29" + "04"));
        BsonDocument whole = new BsonDocument("_data", new BsonString(event + "04"));
        assertThat(position.covers(StreamPosition.afterSplitEvent(firstFragment, ct)))
                .as("the event split again (it carries its first fragment's token)").isTrue();
        assertThat(position.covers(StreamPosition.afterToken(whole, ct))).as("the event, whole now").isTrue();
        assertThat(read.toMap()).as("written back in the current form").containsEntry("startAt", ct.getValue());
        older.put("token", whole.toJson());
        assertThat(SourceOffset.fromMap(older).streamPosition().isSplitEvent()).as("an event's own token stays a token").isFalse();
    }

    @Test
    void aTokenKeepsItsClusterTimeSoEveryStoredPositionCanBeOrdered() {
        Map<String, Object> m = SourceOffset.streamAfter(TOKEN).toMap();
        assertThat(m).containsEntry("ct", new BsonTimestamp(0x66F1A2B3, 1).getValue());
        BsonDocument unreadable = new BsonDocument("_data", new BsonBinary(new byte[] {1}));
        Map<String, Object> noTime = new HashMap<>(m);
        noTime.put("token", unreadable.toJson());
        noTime.remove("ct");
        assertRejected(noTime, "'token'", "cluster time", "'ct'");
        noTime.put("ct", "soon");
        assertRejected(noTime, "'ct'", "soon");
    }

    @Test
    void rejectsUnknownPhase() {
        Map<String, Object> m = valid(SourceOffset.streamFrom(START));
        m.put("phase", "snapshot");
        assertRejected(m, "'phase'", "snapshot");
    }

    @Test
    void rejectsBackfillWithoutStartAt() {
        Map<String, Object> m = valid(SourceOffset.backfill(START, new BsonInt32(1)));
        m.remove("startAt");
        assertRejected(m, "'startAt'", "backfill");
    }

    @Test
    void rejectsZeroStartAt() {
        Map<String, Object> m = valid(SourceOffset.streamFrom(START));
        m.put("startAt", 0L);
        assertRejected(m, "'startAt'");
    }

    @Test
    void rejectsNonNumericStartAt() {
        Map<String, Object> m = valid(SourceOffset.backfill(START, null));
        m.put("startAt", "yesterday");
        assertRejected(m, "'startAt'", "yesterday");
    }

    @Test
    void rejectsStreamWithoutTokenOrStartAt() {
        Map<String, Object> m = valid(SourceOffset.streamFrom(START));
        m.remove("startAt");
        assertRejected(m, "'token'", "'startAt'");
    }

    @Test
    void rejectsTokenThatIsNotJson() {
        Map<String, Object> m = valid(SourceOffset.streamAfter(TOKEN));
        m.put("token", "82abc-not-json");
        assertRejected(m, "'token'");
    }

    @Test
    void rejectsTokenThatIsAJsonArray() {
        Map<String, Object> m = valid(SourceOffset.streamAfter(TOKEN));
        m.put("token", "[1, 2]");
        assertRejected(m, "'token'");
    }

    @Test
    void rejectsTokenThatIsNotAString() {
        Map<String, Object> m = valid(SourceOffset.streamAfter(TOKEN));
        m.put("token", 42L);
        assertRejected(m, "'token'", "42");
    }

    @Test
    void rejectsLastIdThatIsNotExtendedJson() {
        Map<String, Object> m = valid(SourceOffset.backfill(START, new BsonInt32(1)));
        m.put("lastId", "{\"v\": {\"$oid\": \"xyz\"}}");
        assertRejected(m, "'lastId'");
        m.put("lastId", "not json at all");
        assertRejected(m, "'lastId'");
        m.put("lastId", "{\"w\": 1}");
        assertRejected(m, "'lastId'");
        m.put("lastId", 17L);
        assertRejected(m, "'lastId'");
        m.put("lastId", "{\"v\": {\"$date\": \"not a date\"}}");
        assertRejected(m, "'lastId'");
    }

    @Test
    void rejectsScanCursorThatIsNotExtendedJson() {
        Map<String, Object> m = valid(SourceOffset.scan(new BsonInt32(1), new BsonInt32(2)));
        m.put("scanId", "{");
        assertRejected(m, "'scanId'");
    }

    @Test
    void partitionRoundTripAndRejections() {
        Namespace ns = new Namespace("shop", "orders.archive");
        assertThat(SourcePartition.of(ns)).isEqualTo(Map.of("db", "shop", "coll", "orders.archive"));
        assertThat(SourcePartition.namespace(SourcePartition.of(ns))).isEqualTo(ns);

        assertThatThrownBy(() -> SourcePartition.namespace(Map.of("coll", "orders")))
                .isInstanceOf(InvalidOffsetException.class).hasMessageContaining("'db'");
        assertThatThrownBy(() -> SourcePartition.namespace(Map.of("db", "shop")))
                .isInstanceOf(InvalidOffsetException.class).hasMessageContaining("'coll'");
        assertThatThrownBy(() -> SourcePartition.namespace(Map.of("db", "", "coll", "x")))
                .isInstanceOf(InvalidOffsetException.class).hasMessageContaining("'db'");
        assertThatThrownBy(() -> SourcePartition.namespace(Map.of("db", 1, "coll", "x")))
                .isInstanceOf(InvalidOffsetException.class).hasMessageContaining("'db'");
        assertThatThrownBy(() -> SourcePartition.namespace(null))
                .isInstanceOf(InvalidOffsetException.class).hasMessageContaining("'db'");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("offsets")
    void aRecordsDeferredOffsetIsTheSameMapAndSerializesTheSame(String name, SourceOffset offset) {
        Map<String, Object> deferred = offset.recordOffset();
        org.apache.kafka.connect.json.JsonConverter json = new org.apache.kafka.connect.json.JsonConverter();
        json.configure(Map.of("schemas.enable", "false"), false);
        assertThat(json.fromConnectData("offsets", null, deferred)).isEqualTo(json.fromConnectData("offsets", null, offset.toMap()));
        assertThat(deferred).isEqualTo(offset.toMap()).hasSameHashCodeAs(offset.toMap());
        assertThat(SourceOffset.fromMap(deferred)).isEqualTo(offset);
    }

    @Test
    void rejectsACopiedFlagThatIsNotABoolean() {
        Map<String, Object> m = valid(SourceOffset.streamAfterCopy(START));
        m.put(SourceOffset.K_COPIED, "yes");
        assertRejected(m, "'" + SourceOffset.K_COPIED + "'");
    }

    @Test
    void aSplitCopyKeepsItsPlanAndAChunkItsEnd() {
        CopyPlan plan = new CopyPlan(START, java.util.List.of(new BsonInt32(5), new BsonString("k")));
        SourceOffset split = SourceOffset.fromMap(SourceOffset.backfillSplit(plan).toMap());

        assertThat(split.split()).isEqualTo(plan);
        assertThat(split.startAt()).isEqualTo(START);
        assertThat(split.lastId()).isNull();
        assertThat(SourceOffset.backfill(START, null).split()).isNull();
        assertThat(SourceOffset.fromMap(SourceOffset.chunkDone(START, new BsonInt32(9)).toMap()).isChunkDone()).isTrue();
        assertThat(SourceOffset.backfill(START, new BsonInt32(9)).isChunkDone()).isFalse();
    }

    @Test
    void rejectsASplitThatIsNotAnArrayOfIdsAndAChunkFlagThatIsNotABoolean() {
        Map<String, Object> m = valid(SourceOffset.backfill(START, null));
        m.put(SourceOffset.K_SPLIT, "{\"v\": 5}");
        assertRejected(m, "'" + SourceOffset.K_SPLIT + "'");
        m.put(SourceOffset.K_SPLIT, "{\"v\": [{\"$numberInt\": \"7\"}, {\"$numberInt\": \"3\"}]}");
        assertThatThrownBy(() -> SourceOffset.fromMap(m)).isInstanceOf(InvalidOffsetException.class)
                .hasMessageContaining("'" + SourceOffset.K_SPLIT + "'");
        Map<String, Object> d = valid(SourceOffset.backfill(START, null));
        d.put(SourceOffset.K_CHUNK_DONE, "yes");
        assertRejected(d, "'" + SourceOffset.K_CHUNK_DONE + "'");
    }

    @Test
    void aChunksPartitionIsItsCollectionsPlusTheCopyAndTheChunk() {
        Namespace ns = new Namespace("shop", "orders");
        Map<String, Object> chunk = SourcePartition.chunk(ns, START, 2);

        assertThat(SourcePartition.namespace(chunk)).isEqualTo(ns);
        assertThat(SourcePartition.isChunk(chunk)).isTrue();
        assertThat(SourcePartition.isChunk(SourcePartition.of(ns))).isFalse();
        assertThat(chunk).isNotEqualTo(SourcePartition.chunk(ns, new BsonTimestamp(START.getTime() + 1, 0), 2))
                .isNotEqualTo(SourcePartition.chunk(ns, START, 1));
    }
}

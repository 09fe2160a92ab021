package dev.tideline.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/** A repair's marker carries its id range in headers, exactly (type, value, field order), through any header converter. */
class ResnapshotMarkerScopeTest {
    private static final Namespace NS = new Namespace("shop", "orders");
    private static final BsonTimestamp EPOCH = new BsonTimestamp(1_700_000_000, 3);
    private static final JsonWriterSettings CANONICAL = JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

    private static final List<BsonValue> IDS = List.of(
            new BsonObjectId(new ObjectId("65f1a2b3c4d5e6f708192a3b")),
            new BsonString("order-17"),
            new BsonInt32(42),
            new BsonDocument("region", new BsonString("eu")).append("n", new BsonInt64(7L)), // field order matters
            new BsonDecimal128(Decimal128.parse("1.10")), // trailing zero kept: not the same bits as 1.1
            // what the default header converter would mangle if it were not re-quoted as written
            new BsonString("a\"b, c}:{x \\ \n  "), new BsonString("123"), new BsonString("true"), new BsonString(""));

    private static ResnapshotMarker marker(ResnapshotMarker.Stage stage, IdScope scope) {
        return new ResnapshotMarker(stage, NS, EPOCH, 3, scope);
    }

    private static Map<String, Object> headersOf(ResnapshotMarker m) {
        Map<String, Object> h = new HashMap<>(m.headers());
        h.put(EventHeaders.NAMESPACE, m.ns().fullName());
        return h;
    }

    /** What a sink gets under the worker's default header converter, which parses JSON-looking text into a Map. */
    private static Map<String, Object> throughSimpleHeaderConverter(Map<String, Object> headers) {
        SimpleHeaderConverter converter = new SimpleHeaderConverter();
        converter.configure(Map.of());
        Map<String, Object> parsed = new HashMap<>();
        headers.forEach((k, v) -> parsed.put(k,
                converter.toConnectHeader("t", k, converter.fromConnectHeader("t", k, Schema.STRING_SCHEMA, v)).value()));
        return parsed;
    }

    private static List<IdScope> everyBoundCombination(BsonValue a, BsonValue b) {
        return List.of(new IdScope(a, null), new IdScope(null, b), new IdScope(a, b));
    }

    /** Type-exact and order-exact, unlike BsonDocument.equals. */
    private static void assertSameBounds(IdScope actual, IdScope expected) {
        assertThat(actual).isEqualTo(expected);
        assertThat(json(actual.from())).isEqualTo(json(expected.from()));
        assertThat(json(actual.to())).isEqualTo(json(expected.to()));
    }

    private static String json(BsonValue v) {
        return v == null ? "none" : new BsonDocument("v", v).toJson(CANONICAL);
    }

    @Test
    void roundTripsEveryBoundCombinationAsStringsBytesAndThroughTheDefaultHeaderConverter() {
        for (int i = 0; i < IDS.size(); i++) {
            for (IdScope scope : everyBoundCombination(IDS.get(i), IDS.get((i + 1) % IDS.size()))) {
                for (ResnapshotMarker.Stage stage : ResnapshotMarker.Stage.values()) {
                    ResnapshotMarker m = marker(stage, scope);
                    Map<String, Object> bytes = new HashMap<>();
                    headersOf(m).forEach((k, v) -> bytes.put(k, v.toString().getBytes(StandardCharsets.UTF_8)));
                    for (Map<String, Object> h : List.of(headersOf(m), bytes, throughSimpleHeaderConverter(headersOf(m)))) {
                        ResnapshotMarker back = ResnapshotMarker.fromHeaders(h::get).orElseThrow();
                        assertThat(back).isEqualTo(m);
                        assertSameBounds(back.scope(), scope);
                    }
                }
            }
        }
    }

    @Test
    void theDefaultHeaderConverterReallyHandsAMapOver() {
        // guards the test above: it only covers the Map path while the converter parses scope headers
        Map<String, Object> h = throughSimpleHeaderConverter(headersOf(marker(ResnapshotMarker.Stage.COMPLETE,
                new IdScope(IDS.get(0), null))));
        assertThat(h.get(EventHeaders.SCOPE_FROM)).isInstanceOf(Map.class);
    }

    @Test
    void everyBsonTypeIsABoundThatSurvivesTheTrip() {
        List<BsonValue> values = new ArrayList<>(BsonCorpus.document().values());
        values.add(BsonCorpus.document()); // a compound id holding all of them, in its field order
        for (BsonValue v : values) {
            ResnapshotMarker m = marker(ResnapshotMarker.Stage.COMPLETE, new IdScope(v, v));
            for (Map<String, Object> h : List.of(headersOf(m), throughSimpleHeaderConverter(headersOf(m)))) {
                assertSameBounds(ResnapshotMarker.fromHeaders(h::get).orElseThrow().scope(), m.scope());
            }
        }
    }

    @Test
    void boundsAreCanonicalExtendedJsonOfAWrapperDocument() {
        ResnapshotMarker m = marker(ResnapshotMarker.Stage.COMPLETE, new IdScope(new BsonInt32(5), new BsonDecimal128(Decimal128.parse("1.10"))));
        assertThat(m.headers()).containsEntry(EventHeaders.SCOPE_FROM, "{\"v\": {\"$numberInt\": \"5\"}}")
                .containsEntry(EventHeaders.SCOPE_TO, "{\"v\": {\"$numberDecimal\": \"1.10\"}}");
        assertThat(marker(ResnapshotMarker.Stage.COMPLETE, new IdScope(null, new BsonInt64(5L))).headers())
                .doesNotContainKey(EventHeaders.SCOPE_FROM).containsEntry(EventHeaders.SCOPE_TO, "{\"v\": {\"$numberLong\": \"5\"}}");
    }

    @Test
    void aMarkerWithoutScopeHeadersCoversTheWholeCollection() {
        ResnapshotMarker whole = new ResnapshotMarker(ResnapshotMarker.Stage.COMPLETE, NS, EPOCH, 3);
        assertThat(whole.scope()).isSameAs(IdScope.ALL);
        assertThat(whole.headers()).doesNotContainKeys(EventHeaders.SCOPE_FROM, EventHeaders.SCOPE_TO);
        // as an older source writes it
        Map<String, Object> old = Map.of(EventHeaders.MARKER, "resnapshot.complete", EventHeaders.NAMESPACE, "shop.orders",
                EventHeaders.EPOCH, Long.toString(EPOCH.getValue()), EventHeaders.PARTITIONS, "3");
        ResnapshotMarker read = ResnapshotMarker.fromHeaders(old::get).orElseThrow();
        assertThat(read.scope().isAll()).isTrue();
        assertThat(read).isEqualTo(whole);
        assertThat(new IdScope(new BsonInt32(1), null).isAll()).isFalse();
        assertThat(new IdScope(null, new BsonInt32(1)).isAll()).isFalse();
    }

    @Test
    void aScopeHeaderThatIsNotAWrapperDocumentNamesTheHeaderAndTheForm() {
        ResnapshotMarker m = marker(ResnapshotMarker.Stage.COMPLETE, new IdScope(new BsonInt32(1), new BsonInt32(9)));
        for (String bad : List.of("banana", "42", "{\"w\": 1}", "{\"v\": 1, \"w\": 2}", "{\"v\": {\"$oid\": \"nothex\"}}", "{\"v\": ")) {
            for (String key : List.of(EventHeaders.SCOPE_FROM, EventHeaders.SCOPE_TO)) {
                Map<String, Object> h = headersOf(m);
                h.put(key, bad);
                assertThatThrownBy(() -> ResnapshotMarker.fromHeaders(h::get)).as("%s = %s", key, bad)
                        .isInstanceOf(MalformedRecordException.class)
                        .hasMessageContaining("header " + key).hasMessageContaining("resnapshot.complete")
                        .hasMessageContaining("\"v\"").hasMessageContaining(bad);
            }
        }
    }

    @Test
    void identicalMarkersAreOneInASetAndOtherRangesAreNot() {
        ResnapshotMarker a = marker(ResnapshotMarker.Stage.COMPLETE, new IdScope(new BsonString("a"), new BsonString("m")));
        ResnapshotMarker same = marker(ResnapshotMarker.Stage.COMPLETE, new IdScope(new BsonString("a"), new BsonString("m")));
        ResnapshotMarker other = marker(ResnapshotMarker.Stage.COMPLETE, new IdScope(new BsonString("m"), null));
        assertThat(new LinkedHashSet<>(List.of(a, same, other, a))).containsExactly(a, other);
        assertThat(marker(ResnapshotMarker.Stage.COMPLETE, IdScope.ALL)).isEqualTo(new ResnapshotMarker(ResnapshotMarker.Stage.COMPLETE, NS, EPOCH, 3))
                .isNotEqualTo(a);
        assertThatThrownBy(() -> marker(ResnapshotMarker.Stage.COMPLETE, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("IdScope.ALL");
    }

    @Test
    void theValueShowsABoundedScopeForPeople() {
        BsonDocument v = marker(ResnapshotMarker.Stage.COMPLETE, new IdScope(new BsonInt32(10), new BsonDouble(20.5))).value(1L);
        assertThat(v.getDocument("scope")).isEqualTo(new BsonDocument("from", new BsonInt32(10)).append("to", new BsonDouble(20.5)));
        assertThat(v.getString("detail").getValue()).contains("the ids from 10 (inclusive) to 20.5 (exclusive)")
                .contains("shop.orders").contains("outside it stay");
        BsonDocument begin = marker(ResnapshotMarker.Stage.BEGIN, new IdScope(null, new BsonString("k"))).value(1L);
        assertThat(begin.getDocument("scope")).isEqualTo(new BsonDocument("to", new BsonString("k")));
        assertThat(begin.getString("detail").getValue()).contains("the ids below \"k\"");
        assertThat(marker(ResnapshotMarker.Stage.BEGIN, new IdScope(new BsonObjectId(new ObjectId("65f1a2b3c4d5e6f708192a3b")), null))
                .value(1L).getString("detail").getValue()).contains("the ids from {\"$oid\": \"65f1a2b3c4d5e6f708192a3b\"} (inclusive) on");
        BsonDocument whole = new ResnapshotMarker(ResnapshotMarker.Stage.COMPLETE, NS, EPOCH, 3).value(1L);
        assertThat(whole.containsKey("scope")).isFalse();
        assertThat(whole.getString("detail").getValue()).doesNotContain("the ids");
    }
}

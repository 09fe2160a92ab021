package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;

import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The compiled change-stream {@code $match} decides every event it decides as mongo-java-server's generic matcher
 * does, on random events and random filters of its grammar (and beyond it: what does not compile stays generic).
 */
class EventMatchTest {
    private static final String[] PATHS = {"operationType", "ns.db", "ns.coll", "to.db", "to.coll", "clusterTime",
            "fullDocument.a", "fullDocument.b.c", "fullDocument.arr", "fullDocument.n", "missing", "ns.missing.deeper"};
    private static final String[] OPS = {"$eq", "$ne", "$in", "$gt", "$gte", "$lt", "$lte"};

    private final Random random = new Random(2026_12_04);

    @Test
    void decidesAsTheGenericMatcherOnRandomEventsAndFilters() {
        int decided = 0;
        int compared = 0;
        int matched = 0;
        for (int f = 0; f < 1_500; f++) {
            Document filter = filter(2);
            EventMatch compiled = EventMatch.compile(filter);
            if (compiled == null) {
                continue;
            }
            Aggregation generic = Aggregation.fromPipeline(List.of(new Document("$match", filter)), null, null, null, null);
            for (int e = 0; e < 40; e++) {
                Document event = event();
                boolean expected = generic.runStages(Stream.of(event)).size() == 1;
                EventMatch.Verdict v = compiled.test(event);
                compared++;
                if (v != EventMatch.Verdict.UNKNOWN) {
                    decided++;
                    assertThat(v == EventMatch.Verdict.MATCH).as("filter %s on event %s", filter, event).isEqualTo(expected);
                    matched += expected ? 1 : 0;
                }
            }
        }
        assertThat(compared).isGreaterThan(20_000);
        assertThat(decided).as("events the compiled match decided itself").isGreaterThan(compared * 6 / 10);
        System.out.printf("compiled match: %,d events compared, %,d decided, %,d of them matches%n", compared, decided, matched);
        assertThat(matched).as("decided matches, so both answers were exercised").isGreaterThan(decided / 40);
    }

    /** A source stream's own filter: namespaces, event types and a cluster time bound, all decided without the generic matcher. */
    @Test
    void compilesAndDecidesASourceStreamsFilter() {
        Document filter = new Document("$or", List.of(
                new Document("operationType", new Document("$in", List.of("drop", "rename", "dropDatabase", "invalidate"))),
                new Document("operationType", "rename").append("to.db", "shop").append("$or", List.of(
                        new Document("to.coll", new Document("$in", List.of("orders"))).append("clusterTime",
                                new Document("$gte", new BsonTimestamp(100L << 32))))),
                new Document("ns.coll", new Document("$in", List.of("orders", "lines")))
                        .append("clusterTime", new Document("$gte", new BsonTimestamp(100L << 32)))));
        EventMatch compiled = EventMatch.compile(filter);
        assertThat(compiled).isNotNull();
        Document insert = new Document("operationType", "insert").append("ns", new Document("db", "shop").append("coll", "orders"))
                .append("clusterTime", new BsonTimestamp(101L << 32)).append("fullDocument", new Document("_id", 1));
        Document other = new Document(insert).append("ns", new Document("db", "shop").append("coll", "audit"));
        Document early = new Document(insert).append("clusterTime", new BsonTimestamp(99L << 32));
        assertThat(compiled.test(insert)).isEqualTo(EventMatch.Verdict.MATCH);
        assertThat(compiled.test(other)).isEqualTo(EventMatch.Verdict.NO_MATCH);
        assertThat(compiled.test(early)).isEqualTo(EventMatch.Verdict.NO_MATCH);
    }

    @Test
    void leavesWhatItDoesNotKnowToTheGenericMatcher() {
        assertThat(EventMatch.compile(new Document("a", new Document("$regex", "x")))).isNull();
        assertThat(EventMatch.compile(new Document("$expr", new Document("$eq", List.of("$a", 1))))).isNull();
        assertThat(EventMatch.compile(new Document("a", new Document("b", 1)))).isNull(); // a whole-document equality
        assertThat(EventMatch.compile(new Document("a", null))).isNull();
        EventMatch eq = EventMatch.compile(new Document("a.b", 1));
        assertThat(eq.test(new Document("a", List.of(new Document("b", 1))))).isEqualTo(EventMatch.Verdict.UNKNOWN);
        assertThat(eq.test(new Document("a", new Document("b", List.of(1, 2))))).isEqualTo(EventMatch.Verdict.UNKNOWN);
    }

    private Document filter(int depth) {
        Document d = new Document();
        int keys = 1 + random.nextInt(2);
        for (int k = 0; k < keys; k++) {
            int kind = random.nextInt(depth > 0 ? 10 : 8);
            if (kind >= 8) {
                List<Document> branches = new ArrayList<>();
                for (int b = 0, n = 1 + random.nextInt(3); b < n; b++) {
                    branches.add(filter(depth - 1));
                }
                d.put(kind == 8 ? "$or" : "$and", branches);
            } else {
                String path = PATHS[random.nextInt(PATHS.length)];
                if (random.nextInt(3) == 0) {
                    d.put(path, scalar());
                } else {
                    Document ops = new Document();
                    for (int o = 0, n = 1 + random.nextInt(2); o < n; o++) {
                        String op = OPS[random.nextInt(OPS.length)];
                        ops.put(op, op.equals("$in") ? Arrays.asList(scalar(), scalar()) : scalar());
                    }
                    d.put(path, ops);
                }
            }
        }
        return d;
    }

    /** Few distinct values of every bracket, so that equal, ordered and cross-type pairs all come up. */
    private Object scalar() {
        switch (random.nextInt(8)) {
            case 0: return random.nextInt(3);
            case 1: return (long) random.nextInt(3);
            case 2: return random.nextInt(3) + 0.5;
            case 3: return new String[] {"insert", "update", "rename", "orders", "shop", "a"}[random.nextInt(6)];
            case 4: return random.nextBoolean();
            case 5: return new BsonTimestamp(((long) (100 + random.nextInt(3)) << 32) | random.nextInt(2));
            case 6: return random.nextInt(10) == 0 ? 0.0 : 2;
            default: return random.nextInt(10) == 0 ? Double.NaN : 1;
        }
    }

    private Document event() {
        Document e = new Document("operationType", new String[] {"insert", "update", "rename", "drop"}[random.nextInt(4)]);
        e.put("ns", new Document("db", random.nextBoolean() ? "shop" : "a").append("coll", random.nextBoolean() ? "orders" : "a"));
        if (random.nextInt(3) == 0) {
            e.put("to", new Document("db", "shop").append("coll", random.nextBoolean() ? "orders" : scalar()));
        }
        e.put("clusterTime", new BsonTimestamp(((long) (100 + random.nextInt(3)) << 32) | random.nextInt(2)));
        if (random.nextInt(4) != 0) {
            Document doc = new Document("_id", random.nextInt(5));
            if (random.nextBoolean()) {
                doc.put("a", scalar());
            }
            if (random.nextBoolean()) {
                doc.put("b", random.nextInt(4) == 0 ? List.of(new Document("c", scalar())) : new Document("c", scalar()));
            }
            if (random.nextInt(3) == 0) {
                doc.put("arr", Arrays.asList(scalar(), scalar()));
            }
            if (random.nextInt(3) == 0) {
                doc.put("n", random.nextInt(5) == 0 ? null : scalar());
            }
            e.put("fullDocument", doc);
        }
        return e;
    }
}

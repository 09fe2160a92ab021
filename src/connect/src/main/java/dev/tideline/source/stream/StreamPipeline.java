package dev.tideline.source.stream;

import dev.tideline.event.Namespace;
import dev.tideline.source.capture.StreamPosition;
import dev.tideline.source.repair.RepairSignals;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;

/**
 * Where a change stream (one database's, or the deployment's: {@link StreamScope}) opens and what it
 * asks the server to send: a pure function of the collections it reads and their positions.
 *
 * <p>The stream opens at the earliest position among its collections. Collections further ahead sit in
 * groups whose {@code $match} branch carries a lower bound, {@code clusterTime >= t}, so a stream
 * reopened far back for one collection (one that just finished its copy, or was moved from another
 * task) re-reads the oplog for that one, and the server sends the others only what they have not had.
 * At most {@value #MAX_GROUPS} groups, cut at the widest gaps between positions: the bound of a group
 * is its earliest member's time, and each collection drops what it already has by itself
 * ({@link StreamPosition#covers}), so a coarse group costs a few events sent twice, never one missed.
 *
 * <p>A deployment stream's branches also name their database ({@code ns.db}, {@code to.db}), so one stream
 * reads the collections of many databases and the server sends nothing of the others.
 *
 * <p>Always passed: {@code dropDatabase} and {@code invalidate} (they carry no collection), the
 * repair signal collection where repairs are on (a watermark must be read in order with the changes), and a
 * {@code rename} whose target is one of the collections (its documents are replaced without events), bounded
 * by the target's group like its other events, so a stream rewound for another collection does not send a
 * target the rename it was copied after ({@link StreamMembers} also drops what the target's position covers).
 * A collection's filter applies to inserts, updates and replaces; everything else passes
 * ({@link FilterRewriter}). Last, {@code $changeStreamSplitLargeEvent} where the server has it, so an
 * event over 16 MB arrives in fragments instead of failing the stream.
 */
public final class StreamPipeline {
    static final int MAX_GROUPS = 8;
    private static final List<String> DATABASE_EVENTS = List.of("dropDatabase", "invalidate");
    private static final List<String> LARGE_FIELDS = List.of("fullDocument", "fullDocumentBeforeChange", "updateDescription");

    /** One collection the stream reads: its namespace, its filter (may be empty), its position. */
    public record Member(Namespace ns, BsonDocument filter, StreamPosition position) {
    }

    /** Where to open and the stages after {@code $changeStream}. */
    public record Opening(StreamPosition start, List<BsonDocument> pipeline) {
    }

    private StreamPipeline() {
    }

    /**
     * @param db            the database the stream watches
     * @param members       at least one
     * @param splitLarge    append {@code $changeStreamSplitLargeEvent}
     * @param trimmed       drop the documents and update descriptions from every event: to read past an
     *                      event too large to send whole, on a server that cannot split it
     */
    public static Opening plan(String db, List<Member> members, boolean splitLarge, boolean trimmed) {
        return plan(StreamScope.database(db), members, splitLarge, trimmed, false);
    }

    /**
     * @param scope   what the stream watches: on a deployment stream every branch also names its database
     *                ({@code ns.db}, {@code to.db}), on a database stream the server already did
     * @param signals also read the repair signal collection ({@link RepairSignals#COLLECTION}) of each database:
     *                its signals and the repairs' watermarks, which must come in the same order as the changes
     */
    public static Opening plan(StreamScope scope, List<Member> members, boolean splitLarge, boolean trimmed, boolean signals) {
        if (members.isEmpty()) {
            throw new IllegalArgumentException("a stream reads at least one collection");
        }
        List<Member> sorted = new ArrayList<>(members);
        sorted.sort(Comparator.comparing(Member::position));
        StreamPosition start = sorted.get(0).position().openingPoint();
        List<String> databases = sorted.stream().map(m -> m.ns().db()).distinct().sorted().toList();

        BsonArray branches = new BsonArray();
        branches.add(inDatabases(scope, "ns", databases).append("operationType", in(DATABASE_EVENTS)));
        if (signals) {
            branches.add(inDatabases(scope, "ns", databases).append("ns.coll", new BsonString(RepairSignals.COLLECTION)));
        }
        BsonArray renames = new BsonArray();
        BsonDocument renameBranch = new BsonDocument("operationType", new BsonString("rename"));
        if (!scope.isDeployment()) {
            renameBranch.append("to.db", new BsonString(scope.database()));
        }
        branches.add(renameBranch.append("$or", renames));
        for (List<Member> group : groups(sorted)) {
            BsonTimestamp bound = group.get(0).position().clusterTime();
            for (Map.Entry<String, List<Member>> inDb : byDatabase(group).entrySet()) {
                // bounded like the group's own events: a rename the target already has (it was copied since) is not sent again
                renames.add(inDatabase(scope, "to", inDb.getKey())
                        .append("to.coll", in(inDb.getValue().stream().map(m -> m.ns().coll()).toList()))
                        .append("clusterTime", new BsonDocument("$gte", bound)));
                List<String> plain = new ArrayList<>();
                for (Member m : inDb.getValue()) {
                    if (m.filter() == null || m.filter().isEmpty()) {
                        plain.add(m.ns().coll());
                    } else {
                        BsonDocument branch = inDatabase(scope, "ns", inDb.getKey()).append("ns.coll", new BsonString(m.ns().coll()))
                                .append("clusterTime", new BsonDocument("$gte", bound));
                        branch.putAll(FilterRewriter.matchStage(m.filter()).getDocument("$match"));
                        branches.add(branch);
                    }
                }
                if (!plain.isEmpty()) {
                    branches.add(inDatabase(scope, "ns", inDb.getKey())
                            .append("ns.coll", plain.size() == 1 ? new BsonString(plain.get(0)) : in(plain))
                            .append("clusterTime", new BsonDocument("$gte", bound)));
                }
            }
        }
        List<BsonDocument> pipeline = new ArrayList<>();
        pipeline.add(new BsonDocument("$match", new BsonDocument("$or", branches)));
        if (trimmed) {
            BsonDocument without = new BsonDocument();
            LARGE_FIELDS.forEach(f -> without.append(f, new BsonInt32(0)));
            pipeline.add(new BsonDocument("$project", without));
        }
        if (splitLarge) {
            pipeline.add(new BsonDocument("$changeStreamSplitLargeEvent", new BsonDocument()));
        }
        return new Opening(start, List.copyOf(pipeline));
    }

    /** A group's members by database, in name order (one database on a database stream). */
    private static Map<String, List<Member>> byDatabase(List<Member> group) {
        Map<String, List<Member>> out = new TreeMap<>();
        group.forEach(m -> out.computeIfAbsent(m.ns().db(), d -> new ArrayList<>()).add(m));
        return out;
    }

    /** A branch's start: on a deployment stream, {@code <field>.db} is {@code db}; a database stream needs nothing. */
    private static BsonDocument inDatabase(StreamScope scope, String field, String db) {
        return scope.isDeployment() ? new BsonDocument(field + ".db", new BsonString(db)) : new BsonDocument();
    }

    /** A branch's start: on a deployment stream, {@code <field>.db} is one of {@code dbs}; a database stream needs nothing. */
    private static BsonDocument inDatabases(StreamScope scope, String field, List<String> dbs) {
        return scope.isDeployment() ? new BsonDocument(field + ".db", in(dbs)) : new BsonDocument();
    }

    /** Sorted members cut into at most {@link #MAX_GROUPS} runs, at the widest gaps in cluster time. */
    static List<List<Member>> groups(List<Member> sorted) {
        int n = sorted.size();
        List<Integer> cuts = new ArrayList<>();
        if (n > 1) {
            List<Integer> gaps = new ArrayList<>();
            for (int i = 1; i < n; i++) {
                gaps.add(i);
            }
            gaps.sort(Comparator.comparingLong((Integer i) -> gap(sorted, i)).reversed().thenComparing(i -> i));
            for (int i = 0; i < Math.min(MAX_GROUPS - 1, gaps.size()); i++) {
                if (gap(sorted, gaps.get(i)) > 0) {
                    cuts.add(gaps.get(i));
                }
            }
            cuts.sort(null);
        }
        List<List<Member>> groups = new ArrayList<>();
        int from = 0;
        for (int cut : cuts) {
            groups.add(sorted.subList(from, cut));
            from = cut;
        }
        groups.add(sorted.subList(from, n));
        return groups;
    }

    private static long gap(List<Member> sorted, int i) {
        return sorted.get(i).position().clusterTime().getValue() - sorted.get(i - 1).position().clusterTime().getValue();
    }

    private static BsonDocument in(List<String> values) {
        BsonArray a = new BsonArray();
        values.forEach(v -> a.add(new BsonString(v)));
        return new BsonDocument("$in", a);
    }
}

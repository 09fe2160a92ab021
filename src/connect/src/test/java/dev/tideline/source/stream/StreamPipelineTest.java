package dev.tideline.source.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.source.capture.StreamPosition;
import dev.tideline.source.capture.StreamPositionTest;
import dev.tideline.source.stream.StreamPipeline.Member;
import dev.tideline.source.stream.StreamPipeline.Opening;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

class StreamPipelineTest {
    private static Member member(String coll, int seconds) {
        return new Member(new Namespace("shop", coll), new BsonDocument(), StreamPosition.afterToken(StreamPositionTest.token(seconds, 1, "01"), null));
    }

    private static BsonArray branches(Opening o) {
        return o.pipeline().get(0).getDocument("$match").getArray("$or");
    }

    @Test
    void opensAtTheEarliestPositionAndBoundsTheOthersByClusterTime() {
        Opening o = StreamPipeline.plan("shop", List.of(member("orders", 1000), member("users", 900), member("items", 1000)), true, false);
        assertThat(o.start()).isEqualTo(member("users", 900).position());
        BsonArray or = branches(o);
        assertThat(or.get(0).asDocument().getDocument("operationType").getArray("$in"))
                .containsExactly(new BsonString("dropDatabase"), new BsonString("invalidate"));
        assertThat(or.get(1).asDocument().getString("to.db").getValue()).isEqualTo("shop");
        // users alone from 900; orders and items together from 1000
        BsonDocument users = or.get(2).asDocument();
        assertThat(users.getString("ns.coll").getValue()).isEqualTo("users");
        assertThat(users.getDocument("clusterTime").getTimestamp("$gte")).isEqualTo(new BsonTimestamp(900, 1));
        BsonDocument later = or.get(3).asDocument();
        assertThat(later.getDocument("ns.coll").getArray("$in")).containsExactlyInAnyOrder(new BsonString("orders"), new BsonString("items"));
        assertThat(later.getDocument("clusterTime").getTimestamp("$gte")).isEqualTo(new BsonTimestamp(1000, 1));
        assertThat(o.pipeline().get(o.pipeline().size() - 1).containsKey("$changeStreamSplitLargeEvent")).isTrue();
    }

    @Test
    void aCollectionWithAFilterHasItsOwnBranchAndDeletesStillPass() {
        BsonDocument filter = new BsonDocument("status", new BsonString("open"));
        Member filtered = new Member(new Namespace("shop", "orders"), filter, StreamPosition.atOperationTime(new BsonTimestamp(50, 0)));
        Opening o = StreamPipeline.plan("shop", List.of(filtered, member("users", 50)), false, false);
        assertThat(o.start()).isEqualTo(StreamPosition.atOperationTime(new BsonTimestamp(50, 0)));
        BsonDocument branch = branches(o).stream().map(BsonValue::asDocument)
                .filter(b -> b.get("ns.coll") != null && b.get("ns.coll").isString() && b.getString("ns.coll").getValue().equals("orders"))
                .findFirst().orElseThrow();
        assertThat(branch.getArray("$or").get(1).asDocument().getString("fullDocument.status").getValue()).isEqualTo("open");
        // an update or replace passes whatever its document: the source sends one that left the filter as a delete
        assertThat(branch.getArray("$or").get(0).asDocument().getDocument("operationType").getString("$ne").getValue())
                .isEqualTo("insert");
        assertThat(o.pipeline()).hasSize(1);
    }

    @Test
    void manyPositionsMakeAtMostEightGroupsCutAtTheWidestGaps() {
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            members.add(member("c" + i, 10_000 + i / 100 * 50 + i % 3));
        }
        Opening o = StreamPipeline.plan("db", members, false, false);
        long groups = branches(o).size() - 2;
        assertThat(groups).isEqualTo(StreamPipeline.MAX_GROUPS);
        // every collection is in exactly one branch, bounded at or below its own position
        int named = 0;
        for (BsonValue b : branches(o).subList(2, branches(o).size())) {
            BsonTimestamp bound = b.asDocument().getDocument("clusterTime").getTimestamp("$gte");
            for (BsonValue name : b.asDocument().getDocument("ns.coll").getArray("$in")) {
                named++;
                int i = Integer.parseInt(name.asString().getValue().substring(1));
                assertThat(bound.getTime()).isLessThanOrEqualTo(10_000 + i / 100 * 50 + i % 3);
            }
        }
        assertThat(named).isEqualTo(2_000);
    }

    @Test
    void aRenameOntoACollectionIsBoundedLikeItsOtherEvents() {
        // a stream rewound for users (at 900) must not send orders, copied again at 1000, the rename it was copied after
        Opening o = StreamPipeline.plan("shop", List.of(member("orders", 1000), member("users", 900)), false, false);
        BsonDocument renames = branches(o).get(1).asDocument();
        assertThat(renames.getString("operationType").getValue()).isEqualTo("rename");
        assertThat(renames.getArray("$or")).containsExactly(
                new BsonDocument("to.coll", new BsonDocument("$in", new BsonArray(List.of(new BsonString("users")))))
                        .append("clusterTime", new BsonDocument("$gte", new BsonTimestamp(900, 1))),
                new BsonDocument("to.coll", new BsonDocument("$in", new BsonArray(List.of(new BsonString("orders")))))
                        .append("clusterTime", new BsonDocument("$gte", new BsonTimestamp(1000, 1))));
    }

    @Test
    void trimmedDropsTheLargeFieldsBeforeTheSplit() {
        Opening o = StreamPipeline.plan("db", List.of(member("a", 1)), true, true);
        assertThat(o.pipeline().get(1).getDocument("$project").keySet())
                .containsExactly("fullDocument", "fullDocumentBeforeChange", "updateDescription");
        assertThat(o.pipeline().get(2).containsKey("$changeStreamSplitLargeEvent")).isTrue();
    }

    @Test
    void theSignalCollectionIsReadWholeOnlyWhereRepairsAreOn() {
        BsonDocument branch = new BsonDocument("ns.coll", new org.bson.BsonString(dev.tideline.source.repair.RepairSignals.COLLECTION));
        assertThat(StreamPipeline.plan(StreamScope.database("db"), List.of(member("a", 1)), false, false, true).pipeline().get(0)
                .getDocument("$match").getArray("$or")).contains(branch);
        assertThat(StreamPipeline.plan(StreamScope.database("db"), List.of(member("a", 1)), false, false, false).pipeline().get(0)
                .getDocument("$match").getArray("$or")).doesNotContain(branch);
    }

    @Test
    void anUnorderableTokenOpensAtTheStartOfItsClusterTime() {
        BsonDocument binData = new BsonDocument("_data", new org.bson.BsonBinary(new byte[] {1}));
        Member odd = new Member(new Namespace("shop", "a"), new BsonDocument(), StreamPosition.afterToken(binData, new BsonTimestamp(70, 2)));
        assertThat(StreamPipeline.plan("db", List.of(odd, member("b", 80)), false, false).start())
                .isEqualTo(StreamPosition.atOperationTime(new BsonTimestamp(70, 2)));
    }

    @Test
    void aDeploymentStreamNamesTheDatabaseInEveryBranch() {
        Member ax = new Member(new Namespace("a", "x"), new BsonDocument(), member("x", 1000).position());
        Member bx = new Member(new Namespace("b", "x"), new BsonDocument(), member("x", 1000).position());
        Opening o = StreamPipeline.plan(StreamScope.DEPLOYMENT, List.of(ax, bx), false, false, true);
        BsonArray or = branches(o);
        BsonArray dbs = new BsonArray(List.of(new BsonString("a"), new BsonString("b")));
        assertThat(or.get(0).asDocument().getDocument("ns.db").getArray("$in")).isEqualTo(dbs);
        assertThat(or.get(1).asDocument().getDocument("ns.db").getArray("$in")).isEqualTo(dbs);
        assertThat(or.get(1).asDocument().getString("ns.coll").getValue()).isEqualTo(dev.tideline.source.repair.RepairSignals.COLLECTION);
        BsonDocument renames = or.get(2).asDocument();
        assertThat(renames.containsKey("to.db")).isFalse();
        assertThat(renames.getArray("$or")).extracting(r -> r.asDocument().getString("to.db").getValue()).containsExactly("a", "b");
        // x of a and x of b: one branch each, never x of any database
        assertThat(or.subList(3, or.size())).extracting(b -> b.asDocument().getString("ns.db").getValue() + "."
                + b.asDocument().getString("ns.coll").getValue()).containsExactly("a.x", "b.x");
    }
}

package dev.tideline.source.repair;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import dev.tideline.source.repair.SignalStatus.State;
import dev.tideline.standin.MongoFixture;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The states written into signal documents, applied by the MongoDB stand-in: each move once, terminal states never overwritten. */
class SignalStatusTest {
    private static final String ME = "shop.source"; // a dot: the name is a value, never a field path
    private static final String OTHER = "audit-source";
    private MongoFixture mongo;
    private MongoCollection<BsonDocument> signals;

    @BeforeEach
    void start() {
        mongo = MongoFixture.withoutOplog();
        signals = mongo.client().getDatabase("shop").getCollection(RepairSignals.COLLECTION, BsonDocument.class);
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    private boolean apply(SignalStatus.Update u) {
        return signals.updateOne(u.filter(), u.update()).getModifiedCount() == 1;
    }

    private State state(int id, String connector) {
        return SignalStatus.of(signals.find(new BsonDocument("_id", new BsonInt32(id))).first(), connector);
    }

    private static BsonValue id(int i) {
        return new BsonInt32(i);
    }

    @Test
    void aSignalIsQueuedOnceThenDoneOnceAndStaysDone() {
        signals.insertOne(BsonDocument.parse("{_id: 1, collection: 'orders'}"));
        assertThat(state(1, ME)).isEqualTo(State.NEW);
        assertThat(apply(SignalStatus.queue(id(1), ME, 1))).isTrue();
        assertThat(apply(SignalStatus.queue(id(1), ME, 2))).as("queued twice").isFalse();
        assertThat(state(1, ME)).isEqualTo(State.QUEUED);
        assertThat(apply(SignalStatus.finish(id(1), ME, State.DONE, 3, null))).isTrue();
        assertThat(state(1, ME)).isEqualTo(State.DONE);
        assertThat(apply(SignalStatus.finish(id(1), ME, State.REFUSED, 4, "late"))).as("done is never overwritten").isFalse();
        assertThat(apply(SignalStatus.finish(id(1), ME, State.DONE, 4, null))).as("nor marked twice").isFalse();
        assertThat(apply(SignalStatus.queue(id(1), ME, 5))).as("done is never queued again").isFalse();
        assertThat(state(1, ME)).isEqualTo(State.DONE);
        BsonDocument status = signals.find().first().getDocument(SignalStatus.FIELD);
        assertThat(status.getArray("queued")).isEmpty();
        assertThat(status.getArray("done")).hasSize(1);
        assertThat(status.containsKey("refused")).isFalse();
    }

    @Test
    void eachConnectorHasItsOwnState() {
        signals.insertOne(BsonDocument.parse("{_id: 1, collection: 'orders'}"));
        assertThat(apply(SignalStatus.queue(id(1), ME, 1))).isTrue();
        assertThat(apply(SignalStatus.finish(id(1), OTHER, State.REFUSED, 2, "queue full"))).isTrue();
        assertThat(apply(SignalStatus.finish(id(1), ME, State.DONE, 3, null))).isTrue();
        assertThat(state(1, ME)).isEqualTo(State.DONE);
        assertThat(state(1, OTHER)).isEqualTo(State.REFUSED);
        assertThat(state(1, "third")).isEqualTo(State.NEW);
        BsonDocument other = signals.find().first().getDocument(SignalStatus.FIELD).getArray("refused").get(0).asDocument();
        assertThat(other.getString("reason").getValue()).isEqualTo("queue full");
    }

    @Test
    void aRefusalFromNothingOrFromQueuedIsWrittenOnce() {
        signals.insertOne(BsonDocument.parse("{_id: 1, collection: 'orders'}"));
        signals.insertOne(BsonDocument.parse("{_id: 2, collection: 'orders'}"));
        assertThat(apply(SignalStatus.finish(id(1), ME, State.REFUSED, 1, "bad"))).isTrue();
        assertThat(apply(SignalStatus.finish(id(1), ME, State.REFUSED, 2, "bad"))).isFalse();
        assertThat(apply(SignalStatus.queue(id(1), ME, 3))).as("refused is never queued").isFalse();
        assertThat(apply(SignalStatus.queue(id(2), ME, 1))).isTrue();
        assertThat(apply(SignalStatus.finish(id(2), ME, State.REFUSED, 2, "queue full"))).isTrue();
        assertThat(state(1, ME)).isEqualTo(State.REFUSED);
        assertThat(state(2, ME)).isEqualTo(State.REFUSED);
    }

    @Test
    void aFloodIsRefusedInOneUpdateThatLeavesDoneAndQueuedAlone() {
        for (int i = 1; i <= 5; i++) {
            signals.insertOne(new BsonDocument("_id", id(i)).append("collection", new org.bson.BsonString("orders")));
        }
        apply(SignalStatus.queue(id(1), ME, 1));
        apply(SignalStatus.finish(id(1), ME, State.DONE, 2, null));
        apply(SignalStatus.queue(id(2), ME, 1));
        SignalStatus.Update all = SignalStatus.finishAll(List.of(id(1), id(3), id(4), id(5)), ME, State.REFUSED, 3, "queue full");
        assertThat(signals.updateMany(all.filter(), all.update()).getModifiedCount()).isEqualTo(3);
        assertThat(state(1, ME)).as("done stays done").isEqualTo(State.DONE);
        assertThat(state(2, ME)).as("not in the list").isEqualTo(State.QUEUED);
        assertThat(List.of(state(3, ME), state(4, ME), state(5, ME))).containsOnly(State.REFUSED);
        assertThat(signals.updateMany(all.filter(), all.update()).getModifiedCount()).as("refused once").isZero();
    }

    @Test
    void theFiltersFindTheQueuedAndTheUnhandledOnly() {
        for (int i = 1; i <= 5; i++) {
            signals.insertOne(new BsonDocument("_id", id(i)).append("collection", new org.bson.BsonString("orders")));
        }
        apply(SignalStatus.queue(id(2), ME, 1));
        apply(SignalStatus.queue(id(3), ME, 1));
        apply(SignalStatus.finish(id(3), ME, State.DONE, 2, null));
        apply(SignalStatus.finish(id(4), ME, State.REFUSED, 1, "x"));
        apply(SignalStatus.queue(id(5), OTHER, 1));
        assertThat(ids(SignalStatus.queuedBy(ME))).containsExactly(id(2));
        assertThat(ids(SignalStatus.notHandledBy(ME))).containsExactly(id(1), id(5));
    }

    @Test
    void aTerminalStateWinsOverAQueuedOne() {
        BsonDocument s = BsonDocument.parse("{_id: 1, status: {queued: [{connector: '" + ME + "'}], done: [{connector: '" + ME + "'}]}}");
        assertThat(SignalStatus.of(s, ME)).as("done wins over an edited queued entry").isEqualTo(State.DONE);
        assertThat(SignalStatus.of(BsonDocument.parse("{_id: 1, status: 'not a document'}"), ME)).isEqualTo(State.NEW);
    }

    @Test
    void aStatusThatAnUpdateWouldFailOnIsUnmarkableAndSaysWhy() {
        assertThat(SignalStatus.unmarkable(BsonDocument.parse("{_id: 1, collection: 'c'}"))).isNull();
        assertThat(SignalStatus.unmarkable(BsonDocument.parse("{_id: 1, status: {done: []}}"))).isNull();
        assertThat(SignalStatus.unmarkable(BsonDocument.parse("{_id: 1, status: 5}"))).contains("\"status\" is not a document");
        assertThat(SignalStatus.unmarkable(BsonDocument.parse("{_id: 1, status: {refused: 'x'}}")))
                .contains("\"status.refused\" is not an array");
        // what the check spares: the server refuses an update of many on such a document
        signals.insertOne(BsonDocument.parse("{_id: 1, collection: 'orders', status: {queued: 'x'}}"));
        SignalStatus.Update u = SignalStatus.finishAll(List.of(id(1)), ME, State.REFUSED, 1, "r");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> signals.updateMany(u.filter(), u.update()))
                .isInstanceOf(com.mongodb.MongoException.class);
    }

    private List<BsonValue> ids(BsonDocument filter) {
        List<BsonValue> out = new ArrayList<>();
        signals.find(filter).sort(new BsonDocument("_id", new BsonInt32(1))).forEach(d -> out.add(d.get("_id")));
        return out;
    }
}

package dev.tideline.source;

import com.mongodb.client.MongoClient;
import com.mongodb.client.model.UpdateOptions;
import dev.tideline.source.repair.SignalStatus;
import java.util.List;
import org.bson.BsonValue;

/**
 * Writes a connector's state into repair signal documents ({@link SignalStatus}): each write is conditioned
 * on the state it leaves, so done and refused are written once and never overwritten. Needs update on
 * {@code <db>._tideline_signals}.
 */
final class SignalMarks {
    private final MongoClient client;
    private final String connector;

    SignalMarks(MongoClient client, String connector) {
        this.client = client;
        this.connector = connector;
    }

    /** NEW to QUEUED. @return whether this call queued it (false: the signal is gone, or another mark came first) */
    boolean queue(String db, BsonValue signal) {
        return apply(db, SignalStatus.queue(signal, connector, System.currentTimeMillis()));
    }

    /**
     * To DONE or REFUSED from QUEUED or NEW. @return whether this call marked it (false: it is gone, or already
     * done or refused)
     */
    boolean finish(String db, BsonValue signal, SignalStatus.State to, String reason) {
        return apply(db, SignalStatus.finish(signal, connector, to, System.currentTimeMillis(), reason));
    }

    /** To REFUSED (or DONE) from QUEUED or NEW, each of {@code signals}. @return how many this call marked */
    long finishAll(String db, List<BsonValue> signals, SignalStatus.State to, String reason) {
        SignalStatus.Update u = SignalStatus.finishAll(signals, connector, to, System.currentTimeMillis(), reason);
        return RepairRun.signals(client, db).updateMany(u.filter(), u.update()).getModifiedCount();
    }

    private boolean apply(String db, SignalStatus.Update u) {
        return RepairRun.signals(client, db).updateOne(u.filter(), u.update(), new UpdateOptions().upsert(false)).getModifiedCount() == 1;
    }
}

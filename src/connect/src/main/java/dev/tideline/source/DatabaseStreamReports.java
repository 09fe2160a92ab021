package dev.tideline.source;

import dev.tideline.health.SourceTaskMetrics;
import dev.tideline.log.LogText;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.stream.StreamOutput;
import dev.tideline.source.stream.StreamPosition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What one database's change stream reports back to its task's capture: batches to publish, and what went wrong. */
final class DatabaseStreamReports implements StreamOutput {
    private static final Logger log = LoggerFactory.getLogger(DatabaseStreamReports.class);
    private final String db;
    private final TaskCapture capture;
    private final Publisher publisher;
    private final CollectionCopies copies;
    private final RecordQueue queue;
    private final SourceTaskMetrics metrics;
    private final DropMarkers drops;

    DatabaseStreamReports(String db, TaskCapture capture, Publisher publisher, CollectionCopies copies, RecordQueue queue,
                          SourceTaskMetrics metrics, DropMarkers drops) {
        this.db = db;
        this.capture = capture;
        this.publisher = publisher;
        this.copies = copies;
        this.queue = queue;
        this.metrics = metrics;
        this.drops = drops;
    }

    @Override
    public void publish(List<StreamOutput.Delivery> batch) throws InterruptedException {
        List<Map.Entry<CapturedCollection, Captured>> items = new ArrayList<>(batch.size());
        for (StreamOutput.Delivery d : batch) {
            items.add(Map.entry(capture.collection(db, d.collection()), d.item()));
        }
        publisher.publish(drops.expand(items));
        for (StreamOutput.Delivery d : batch) {
            if (d.item() instanceof Captured.Control ctl && "event_too_large".equals(ctl.type())) {
                capture.collection(db, d.collection()).metrics().eventSkipped();
            }
        }
    }

    @Override
    public void historyLost(String coll, StreamPosition position, boolean afterCopy, RuntimeException cause) {
        capture.historyLost(capture.collection(db, coll), position, afterCopy, cause);
    }

    @Override
    public void recopy(String coll, String reason) {
        CapturedCollection c = capture.collection(db, coll);
        log.warn("{} is copied again: {}", LogText.escape(c.ns()), LogText.message(reason));
        copies.submit(c, null);
    }

    @Override
    public void parked(String coll, String reason) {
        CapturedCollection c = capture.collection(db, coll);
        c.state(CapturedCollection.State.PARKED);
        c.metrics().parked();
    }

    @Override
    public void failed(RuntimeException e) {
        if (MongoErrors.classify(e) == ErrorClass.AUTH) {
            queue.fail(new ConnectException("The change stream of " + db + " failed: authentication or authorization refused by "
                    + "the source (" + e.getMessage() + "). Check the user and password in mongodb.uri and that the user may "
                    + "open change streams on the database (changeStream and find on {db: \"" + db + "\", collection: \"\"}).", e));
        } else {
            queue.fail(new ConnectException("The change stream of " + db + " failed: " + e, e));
        }
    }

    @Override
    public void retrying(RuntimeException e, long delayMs) {
        metrics.streamRetrying(db, MongoErrors.isUnreachable(e));
    }

    @Override
    public void signals(List<org.bson.BsonValue> ids) {
        capture.signalled(db, ids);
    }

    @Override
    public void opened(int collectionCount) {
        metrics.streamOpened(db);
    }
}

package dev.tideline.sink.write;

import com.mongodb.MongoBulkWriteException;
import com.mongodb.MongoException;
import com.mongodb.bulk.BulkWriteError;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.WriteModel;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.sink.config.WriteMode;
import dev.tideline.sink.check.RecordFaults;
import dev.tideline.sink.decode.Ids;
import dev.tideline.sink.decode.SinkChange;
import dev.tideline.sink.plan.WriteFilter;
import dev.tideline.sink.plan.NamespaceBatch;
import dev.tideline.sink.route.RoutedChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.connect.errors.ConnectException;
import org.bson.BsonDocument;
import org.bson.BsonSerializationException;
import org.bson.RawBsonDocument;

/**
 * The one place that writes documents: each chunk of a {@link NamespaceBatch} as one unordered bulk
 * write. Unordered, because there is one write per document: the server applies every write it can
 * and reports each refusal with its index, which maps back to the record. Refusals of one document
 * (duplicate key, validation, too large) come back as {@link RecordFailure}s while the rest is
 * applied; a transient refusal of any write fails the whole call as retriable (the batch is
 * re-delivered, and every write is idempotent).
 */
public final class BulkWriteExecutor {
    private final MongoClient client;
    private final WriteMode mode;
    private final WriteFilter filter;

    public BulkWriteExecutor(MongoClient client, WriteMode mode, WriteFilter filter) {
        this.client = client;
        this.mode = mode;
        this.filter = filter;
    }

    /** @return the records the server refused; throws for failures that are not about one record */
    public List<RecordFailure> execute(NamespaceBatch batch, int chunkSize) {
        MongoCollection<BsonDocument> coll = client.getDatabase(batch.destination().db())
                .getCollection(batch.destination().coll(), BsonDocument.class);
        List<RecordFailure> failures = new ArrayList<>();
        for (List<RoutedChange> chunk : batch.chunks(chunkSize)) {
            List<RoutedChange> sent = new ArrayList<>(chunk.size());
            List<WriteModel<BsonDocument>> models = new ArrayList<>(chunk.size());
            for (RoutedChange rc : chunk) {
                RawBsonDocument encoded = null;
                if (!rc.change().isDelete()) {
                    Optional<String> unwritable = unwritable(rc.change());
                    if (unwritable.isPresent()) {
                        failures.add(new RecordFailure(rc.change().record(), "document _id " + Ids.show(rc.change().id())
                                + " for " + batch.destination() + " " + unwritable.get(), null));
                        continue;
                    }
                    try {
                        encoded = DocumentSize.encoded(rc.change().document());
                    } catch (BsonSerializationException | IllegalArgumentException e) {
                        failures.add(new RecordFailure(rc.change().record(), "document _id " + Ids.show(rc.change().id())
                                + " for " + batch.destination() + " cannot be encoded as BSON: " + e.getMessage(), e));
                        continue;
                    } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
                        failures.add(new RecordFailure(rc.change().record(), RecordFaults.reason("while encoding the document _id "
                                + Ids.show(rc.change().id()) + " for " + batch.destination(), e), e));
                        continue;
                    }
                    int size = encoded.getByteBuffer().remaining();
                    if (size > DocumentSize.MAX_BYTES) {
                        failures.add(new RecordFailure(rc.change().record(), "document _id " + Ids.show(rc.change().id())
                                + " for " + batch.destination() + " is " + size + " bytes, over MongoDB's limit of "
                                + DocumentSize.MAX_BYTES + " (code " + MongoErrors.BSON_OBJECT_TOO_LARGE
                                + " BSONObjectTooLarge, refused before sending)", null));
                        continue;
                    }
                }
                sent.add(rc);
                models.add(WriteModels.of(rc.change(), mode, encoded, filter));
            }
            if (!models.isEmpty()) {
                write(coll, batch, sent, models, failures);
            }
        }
        return failures;
    }

    /**
     * What makes a document unwritable whatever the server: a shard key field holding an array. Its top-level field
     * names were checked where the document came from ({@code RecordDecoder} for a record's, {@link PartialUpdates}
     * for one a partial update made whole), before its version was recorded.
     */
    private Optional<String> unwritable(SinkChange c) {
        return filter.problem(c).map(p -> "cannot be matched: " + p);
    }

    private static void write(MongoCollection<BsonDocument> coll, NamespaceBatch batch, List<RoutedChange> sent,
                              List<WriteModel<BsonDocument>> models, List<RecordFailure> failures) {
        String what = "writing " + models.size() + " changes to " + batch.destination();
        try {
            coll.bulkWrite(models, new BulkWriteOptions().ordered(false));
        } catch (MongoBulkWriteException e) {
            if (e.getWriteConcernError() != null) {
                // the writes are applied on the primary; a timeout clears up (retry), a wrong w never does (stop)
                throw WriteFailures.translate(e, what);
            }
            for (BulkWriteError err : e.getWriteErrors()) {
                ErrorClass c = MongoErrors.classifyWriteError(err.getCode());
                if (c != ErrorClass.PER_RECORD) {
                    throw WriteFailures.translate(new MongoException(err.getCode(), err.getMessage(), e), what);
                }
                RoutedChange rc = sent.get(err.getIndex());
                failures.add(new RecordFailure(rc.change().record(), "the destination refused the write of _id "
                        + Ids.show(rc.change().id()) + " to " + batch.destination() + ": code " + err.getCode() + ": "
                        + err.getMessage(), e, MongoErrors.isUniqueIndexConflict(err.getCode())));
            }
        } catch (MongoException e) {
            throw WriteFailures.translate(e, what);
        } catch (RuntimeException e) {
            // not a server answer (e.g. the driver refusing to encode): nothing says it is transient
            throw new ConnectException("unexpected failure while " + what + ": " + e, e);
        }
    }
}

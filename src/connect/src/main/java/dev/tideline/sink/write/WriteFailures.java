package dev.tideline.sink.write;

import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;

/**
 * Turns a failure of a whole write (not of one record) into what Connect understands, using the one
 * classification in {@link MongoErrors}: transient → {@link RetriableException} (the batch is
 * re-delivered; every write is idempotent), anything else → {@link ConnectException} with an
 * explanation of what to fix.
 */
public final class WriteFailures {
    private WriteFailures() {
    }

    public static RuntimeException translate(Throwable t, String what) {
        ErrorClass c = MongoErrors.classify(t);
        String cause = t.getClass().getSimpleName() + ": " + t.getMessage();
        switch (c) {
            case RETRIABLE:
                return new RetriableException("transient failure while " + what + " (" + cause
                        + "); the batch will be re-delivered and applied again", t);
            case AUTH:
                return new ConnectException("the destination refused our credentials or permissions while " + what
                        + " (" + cause + "): check the user in mongodb.uri and that it has readWrite on the destination "
                        + "database (documents and the _tideline_versions collection); the task stops until fixed", t);
            default:
                if (MongoErrors.isPermanentWriteConcernFailure(t)) {
                    return new ConnectException("the destination cannot satisfy the write concern asked for while " + what
                            + " (" + cause + "): the w (or its tag set) in mongodb.uri asks for more than the deployment "
                            + "can ever acknowledge, e.g. w=3 on a replica set of one member, or a mode the replica set "
                            + "does not define. Retrying cannot help; fix w in mongodb.uri and restart the task (the "
                            + "writes already sent are applied again, harmlessly)", t);
                }
                return new ConnectException("the destination failed permanently while " + what + " (" + cause
                        + "); the task stops so that no change is skipped: fix the cause and restart the task", t);
        }
    }
}

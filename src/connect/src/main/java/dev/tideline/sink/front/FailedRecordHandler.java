package dev.tideline.sink.front;

import dev.tideline.log.LogText;
import dev.tideline.sink.write.RecordFailure;
import java.util.List;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens to records the sink could not apply, once the rest of their batch is applied.
 * With {@code errors.tolerance=all} each goes to Connect's errant-record reporter (the DLQ topic,
 * with the reason in its headers when context headers are enabled), or is logged when the worker
 * has no reporter (no DLQ configured, or a worker older than Kafka 2.6). Otherwise the task fails
 * with the first failure's message (topic, partition, offset, and the reason).
 */
public final class FailedRecordHandler {
    private static final Logger log = LoggerFactory.getLogger(FailedRecordHandler.class);

    private final boolean tolerateAll;
    private final ErrantRecordReporter reporter;

    public FailedRecordHandler(SinkTaskContext context, boolean tolerateAll) {
        this.tolerateAll = tolerateAll;
        this.reporter = reporterOf(context);
    }

    public void handle(List<RecordFailure> failures) {
        if (failures.isEmpty()) {
            return;
        }
        if (!tolerateAll) {
            RecordFailure first = failures.get(0);
            String more = failures.size() > 1 ? " (and " + (failures.size() - 1) + " more failed records in this batch)" : "";
            // the worker logs this message: escaped, since a record's data may be in it
            throw new ConnectException(LogText.message(first.message()) + more
                    + ". The rest of the batch was applied. Set errors.tolerance=all and errors.deadletterqueue.topic.name "
                    + "to send such records to a dead letter queue instead of stopping", first.cause());
        }
        for (RecordFailure f : failures) {
            if (reporter != null) {
                reporter.report(f.record(), f.toException());
            } else {
                log.error("Skipping a record (errors.tolerance=all, no dead letter queue configured): {} ({})",
                        LogText.message(f.message()),
                        LogText.message(f.cause())); // the record's data may be in the cause: no raw stack trace
            }
        }
    }

    private static ErrantRecordReporter reporterOf(SinkTaskContext context) {
        try {
            return context.errantRecordReporter();
        } catch (NoSuchMethodError | NoClassDefFoundError e) {
            log.warn("This Connect worker predates the errant record reporter (Kafka 2.6): failed records are only logged");
            return null;
        }
    }
}

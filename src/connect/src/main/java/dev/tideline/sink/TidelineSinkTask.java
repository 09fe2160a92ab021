package dev.tideline.sink;

import com.mongodb.client.MongoClient;
import dev.tideline.health.SinkTaskMetrics;
import dev.tideline.health.TaskIdentity;
import dev.tideline.log.LogText;
import dev.tideline.retry.Backoff;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoClientFactory;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.sink.config.SinkConfig;
import dev.tideline.sink.front.ConfiguredSinkTask;
import dev.tideline.sink.front.FailedRecordHandler;
import dev.tideline.sink.config.RetrySettings;
import dev.tideline.sink.write.RecordFailure;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves each batch onto the destination through {@link BatchApplier}; owns one MongoClient.
 *
 * <p>Transient failures: the task sets {@code context.timeout(backoff)} and throws
 * {@link RetriableException}; Connect keeps the batch (no offsets are committed for it), waits, and
 * calls {@code put} again with the same records. Chosen over retrying in place because the worker
 * thread stays responsive (rebalances, pause, stop, and offset commits of other partitions are not
 * held up by a sleeping task), and because there is nothing to lose: every write is idempotent and
 * the stale guard lets equal versions through. Retries go on until the destination answers again,
 * with a capped exponential backoff, each logged.
 *
 * <p>A write a unique index refuses is held and retried with the later batches ({@link ConflictRetries}),
 * and the offsets committed for its partition stop at it ({@link #preCommit}) until it lands or is reported.
 */
public class TidelineSinkTask extends ConfiguredSinkTask {
    private static final Logger log = LoggerFactory.getLogger(TidelineSinkTask.class);

    private static final long CLOSE_WAIT_MS = 2_000;

    private MongoClient client;
    private BatchApplier applier;
    private FailedRecordHandler failedRecords;
    private Backoff backoff;
    private SinkTaskMetrics metrics;
    private ConflictRetries conflicts;
    private long conflictRetryEveryMs;
    private long conflictRetryMs;

    @Override
    protected void start(SinkConfig config, Map<String, String> props) {
        MongoClient c = MongoClientFactory.create(config.connection().uri().value(), "tideline-sink",
                config.connection().connectTimeoutMs());
        try {
            this.applier = BatchApplier.create(config, c);
            this.failedRecords = new FailedRecordHandler(context, config.tolerateAll());
            this.backoff = new Backoff(config.retry().initialBackoffMs(), config.retry().maxBackoffMs());
            this.conflicts = new ConflictRetries(config.retry().duplicateKeyRetryMs());
            this.conflictRetryEveryMs = config.retry().initialBackoffMs();
            this.conflictRetryMs = config.retry().duplicateKeyRetryMs();
            this.client = c;
            this.metrics = new SinkTaskMetrics(TaskIdentity.of(props), SinkTaskMetrics.destination(
                    MongoClientFactory.hostsOf(config.connection().uri().value()), config.routing().database())); // JMX; closed in stop()
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
        log.info("Tideline sink task started, writing to {}", MongoClientFactory.hostsOf(config.connection().uri().value()));
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        if (records.isEmpty() && conflicts.size() == 0) {
            return;
        }
        List<SinkRecord> batch = conflicts.withHeld(records);
        BatchOutcome outcome;
        try {
            outcome = applier.apply(batch);
        } catch (RetriableException e) {
            long wait = backoff.next();
            log.warn("Transient failure (attempt {}), the batch of {} records is re-delivered in {} ms: {}",
                    backoff.attempts(), records.size(), wait, LogText.message(e.getMessage()));
            context.timeout(wait);
            metrics.retrying(MongoErrors.isUnreachable(e));
            throw e;
        } catch (ConnectException e) {
            if (MongoErrors.classify(e) == ErrorClass.AUTH) {
                metrics.authFailed();
            }
            throw e;
        }
        backoff.reset();
        log.debug("Applied a batch: {}", outcome);
        int heldBefore = conflicts.size();
        List<RecordFailure> failures = conflicts.settle(outcome.failures(), System.currentTimeMillis());
        if (conflicts.size() > 0) {
            if (conflicts.size() != heldBefore) {
                log.warn("{} writes refused by a unique index (duplicate key) are held and retried with the next batches for up "
                        + "to {} ms, in case the change that frees the value is on another partition; the offsets of their "
                        + "partitions are not committed past them ({})", conflicts.size(), conflictRetryMs,
                        RetrySettings.DUPLICATE_KEY_RETRY_MS);
            }
            context.timeout(conflictRetryEveryMs); // put() is called again soon, records or not
        }
        // after the whole batch is applied, and only once (a retried batch reports its failures on the attempt that succeeds)
        failedRecords.handle(failures);
        metrics.applied(outcome.written(), outcome.stale(), failures.size(),
                records.stream().mapToLong(r -> r.timestamp() == null ? -1 : r.timestamp()).max().orElse(-1), System.currentTimeMillis());
    }

    /** Connect's offsets to commit, held back so that none passes a held record. */
    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        return conflicts == null ? currentOffsets : conflicts.holdBack(currentOffsets);
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        if (conflicts != null) {
            conflicts.forget(partitions); // offsets were held back: the next owner reads them again
        }
    }

    @Override
    public void stop() {
        if (metrics != null) {
            metrics.close();
        }
        // stop() also follows a start() that failed; bounded: a goodbye to a black-holed server must not hold a rebalance
        if (client != null && !MongoClientFactory.closeWithin(client, CLOSE_WAIT_MS)) {
            log.warn("The destination did not answer the client's goodbye within {} ms; it is abandoned", CLOSE_WAIT_MS);
        }
    }
}

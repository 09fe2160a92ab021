package dev.tideline.sink;

import com.mongodb.client.MongoClient;
import dev.tideline.TidelineVersion;
import dev.tideline.health.SinkTaskMetrics;
import dev.tideline.health.TaskIdentity;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoClientFactory;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.sink.config.SinkConfig;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
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
 */
public class TidelineSinkTask extends SinkTask {
    private static final Logger log = LoggerFactory.getLogger(TidelineSinkTask.class);

    private MongoClient client;
    private BatchApplier applier;
    private FailedRecordHandler failedRecords;
    private RetryBackoff backoff;
    private SinkTaskMetrics metrics;

    @Override
    public String version() {
        return TidelineVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        SinkConfig config = new SinkConfig(props);
        MongoClient c = MongoClientFactory.create(config.connection().uri().value(), "tideline-sink",
                config.connection().connectTimeoutMs());
        try {
            this.applier = BatchApplier.create(config, c);
            this.failedRecords = new FailedRecordHandler(context, config.tolerateAll());
            this.backoff = new RetryBackoff(config.retry().initialBackoffMs(), config.retry().maxBackoffMs());
            this.client = c;
            this.metrics = new SinkTaskMetrics(TaskIdentity.of(props)); // JMX; closed in stop()
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
        log.info("Tideline sink task started, writing to {}", MongoClientFactory.hostsOf(config.connection().uri().value()));
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        if (records.isEmpty()) {
            return;
        }
        BatchOutcome outcome;
        try {
            outcome = applier.apply(records);
        } catch (RetriableException e) {
            long wait = backoff.next();
            log.warn("Transient failure (attempt {}), the batch of {} records is re-delivered in {} ms: {}",
                    backoff.attempts(), records.size(), wait, e.getMessage());
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
        // after the whole batch is applied, and only once (a retried batch reports its failures on the attempt that succeeds)
        failedRecords.handle(outcome.failures());
        metrics.applied(outcome.written(), outcome.failures().size(),
                records.stream().mapToLong(r -> r.timestamp() == null ? -1 : r.timestamp()).max().orElse(-1), System.currentTimeMillis());
    }

    @Override
    public void stop() {
        if (metrics != null) {
            metrics.close();
        }
        if (client != null) { // stop() also follows a start() that failed
            client.close();
        }
    }
}

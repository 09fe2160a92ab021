package dev.tideline.verify.connect;

import dev.tideline.TidelineVersion;
import dev.tideline.health.TaskIdentity;
import dev.tideline.log.LogText;
import dev.tideline.verify.CollectionPair;
import dev.tideline.verify.Outcome;
import dev.tideline.verify.RunResult;
import dev.tideline.verify.VerifyListener;
import dev.tideline.verify.mongo.Verifier;
import dev.tideline.verify.report.ReportFormat;
import dev.tideline.verify.report.ReportLine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs verify on a schedule inside the worker. A run goes on a thread of its own; its report lines
 * come back through a bounded queue (a slow topic slows the run, memory stays bounded) and leave as
 * records on the report topic, each carrying the schedule as its offset, the summary's marking the
 * run finished. Its outcome becomes the task's health (JMX), and a log line.
 */
public class VerifyTask extends SourceTask {
    private static final Logger log = LoggerFactory.getLogger(VerifyTask.class);
    private static final int QUEUE = 1_000;
    private static final int RECORDS_PER_POLL = 1_000;
    private static final long IDLE_POLL_MS = 1_000;

    /** Queued by the run's thread after its last line. */
    private record RunEnded(RunResult result) {
    }

    /** Thrown into a run by its report consumer when the task stops: the run ends without a result. */
    private static final class Stopped extends RuntimeException {
        Stopped() {
            super("the verify task stopped", null, false, false);
        }
    }

    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(QUEUE);
    private VerifyConfig config;
    private TaskIdentity identity;
    private VerifyTaskMetrics metrics;
    private volatile Thread runner;
    private volatile Verifier verifier;
    private volatile boolean stopping;
    private long runStartMs;
    private long nextRunMs;

    @Override
    public String version() {
        return TidelineVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        config = new VerifyConfig(props);
        identity = TaskIdentity.of(props);
        VerifySchedule schedule = VerifySchedule.fromMap(context.offsetStorageReader().offset(VerifySchedule.PARTITION));
        long now = System.currentTimeMillis();
        nextRunMs = schedule.nextRunMs(config.intervalMs(), now);
        metrics = new VerifyTaskMetrics(identity);
        metrics.nextRun(nextRunMs);
        log.info("Verify task {} starts; next run at {}{}", identity, java.time.Instant.ofEpochMilli(nextRunMs),
                schedule.finished() ? "" : " (the last run, started at " + java.time.Instant.ofEpochMilli(schedule.lastStartMs())
                        + ", did not finish)");
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        long now = System.currentTimeMillis();
        if (runner == null && !stopping && now >= nextRunMs) {
            startRun(now);
        }
        List<SourceRecord> records = new ArrayList<>();
        Object first = queue.poll(runner == null ? Math.max(1, Math.min(IDLE_POLL_MS, nextRunMs - now)) : IDLE_POLL_MS,
                TimeUnit.MILLISECONDS);
        if (first == null) {
            return null;
        }
        List<Object> items = new ArrayList<>();
        items.add(first);
        queue.drainTo(items, RECORDS_PER_POLL - 1);
        for (Object item : items) {
            if (item instanceof ReportLine line) {
                records.add(record(line));
            } else if (item instanceof RunEnded ended) {
                runEnded(ended.result());
            }
        }
        return records.isEmpty() ? null : records;
    }

    private SourceRecord record(ReportLine line) {
        boolean last = ReportFormat.SUMMARY.equals(line.type());
        return new SourceRecord(VerifySchedule.PARTITION, new VerifySchedule(runStartMs, last).toMap(), config.reportTopic(), null,
                Schema.OPTIONAL_STRING_SCHEMA, line.namespace(), Schema.STRING_SCHEMA, line.json());
    }

    private void startRun(long now) {
        runStartMs = now;
        metrics.started(now);
        log.info("Verify task {}: run starts", identity);
        Thread t = new Thread(this::run, "tideline-verify-" + identity);
        t.setDaemon(true);
        runner = t;
        t.start();
    }

    private void run() {
        try {
            RunResult result;
            try (Verifier v = new Verifier(config.settings(), listener(), this::enqueue)) {
                verifier = v;
                result = v.run();
            } catch (Stopped stopped) {
                throw stopped;
            } catch (RuntimeException e) {
                // a run that could not start (a connection string the driver refuses): reported like a failed run
                result = new RunResult(List.of(), Outcome.FAILED, System.currentTimeMillis() - runStartMs,
                        "verify could not start: " + e.getMessage());
                enqueue(ReportFormat.summary(List.of(), Outcome.FAILED, result.millis(), java.time.Instant.now(), result.failure()));
            } finally {
                verifier = null;
            }
            // health and figures at once, whatever is still queued for the topic
            metrics.finished(result, Math.max(System.currentTimeMillis(), runStartMs + config.intervalMs()));
            enqueue(new RunEnded(result));
        } catch (Stopped stopped) {
            log.info("Verify task {}: the run in progress ends with the task; the next start runs again", identity);
        }
    }

    /** On poll()'s thread, after the run's last line was handed over: the next run may be scheduled. */
    private void runEnded(RunResult result) {
        runner = null;
        nextRunMs = Math.max(System.currentTimeMillis(), runStartMs + config.intervalMs());
        metrics.nextRun(nextRunMs);
    }

    private VerifyListener listener() {
        return new VerifyListener() {
            @Override
            public void note(String message) {
                log.info("Verify task {}: {}", identity, LogText.message(message));
            }

            @Override
            public void progress(CollectionPair collection, long documents, long candidates) {
                metrics.progress(documents);
            }
        };
    }

    /** Hands an item to poll(), waiting while the queue is full; ends the run ({@link Stopped}) when the task stops. */
    private void enqueue(Object item) {
        try {
            while (!queue.offer(item, 500, TimeUnit.MILLISECONDS)) {
                if (stopping) {
                    throw new Stopped();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Stopped();
        }
    }

    @Override
    public void stop() {
        stopping = true;
        Thread t = runner;
        if (t != null) {
            t.interrupt();
        }
        Verifier v = verifier;
        if (v != null) {
            v.close(); // its cursors fail, the run ends
        }
        if (metrics != null) {
            metrics.close();
        }
    }
}

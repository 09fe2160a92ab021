package dev.tideline.fanout.resume;

import dev.tideline.fanout.stats.GatewayStats;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.channel.ResumePlan;
import dev.tideline.fanout.channel.RoutedChange;
import dev.tideline.fanout.delivery.DisconnectReason;
import dev.tideline.log.LogText;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Catches subscribers up, off the event loops: from the history (a snapshot taken when they
 * registered) on a small pool, or from Kafka on {@code readers} threads that each own a consumer,
 * fed by a bounded queue that serves tenants in turn.
 */
public final class CatchUpExecutor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CatchUpExecutor.class);
    /** A subscriber that takes nothing from its socket for this long during a catch-up is cut off. */
    static final long STALL_MILLIS = 30_000;

    /** @param done run once the job ends, however (the tenant's catch-up quota) */
    private record KafkaJob(CatchUpTarget target, int index, ChannelName channel, ResumePlan plan, Runnable done) {
    }

    private final ExecutorService cachePool = Executors.newFixedThreadPool(2, r -> daemon(r, "tideline-fanout-catchup"));
    private final TenantTurns<KafkaJob> kafkaJobs;
    private final List<Thread> readers = new ArrayList<>();
    private final Pacer pacer = new Pacer(STALL_MILLIS);
    private final GatewayStats stats;
    private volatile boolean running = true;

    public CatchUpExecutor(int readerCount, int queueMax, Supplier<Consumer<byte[], byte[]>> consumers,
                           KafkaRangeReaderSettings settings, GatewayStats stats) {
        this.kafkaJobs = new TenantTurns<>(queueMax);
        this.stats = stats;
        for (int i = 0; i < readerCount; i++) {
            Thread t = daemon(() -> readLoop(consumers, settings.toSettings()), "tideline-fanout-reader-" + i);
            readers.add(t);
            t.start();
        }
    }

    /** What a Kafka reader needs to route records as the live consumer does. */
    public record KafkaRangeReaderSettings(dev.tideline.event.ValueFormat format, int maxDepth, int memoryEntries, int lookback) {
        KafkaRangeReader.Settings toSettings() {
            return new KafkaRangeReader.Settings(format, maxDepth, memoryEntries, lookback);
        }
    }

    /** Sends the plan's cached changes, then the channel is live. */
    public void fromCache(CatchUpTarget target, int index, ResumePlan plan) {
        cachePool.execute(() -> {
            for (RoutedChange c : plan.cached()) {
                if (!pacer.awaitRoom(target) || !target.deliver(index, c)) {
                    return;
                }
            }
            target.finish(index, plan.boundary());
        });
    }

    /**
     * Queues a read-back from Kafka; false when the queue is full (the caller disconnects the
     * subscriber). {@code done} runs when a queued read ends, however it ends.
     */
    public boolean fromKafka(CatchUpTarget target, int index, ChannelName channel, ResumePlan plan, Runnable done) {
        return running && kafkaJobs.offer(channel.tenant(), new KafkaJob(target, index, channel, plan, done));
    }

    public int queued() {
        return kafkaJobs.size();
    }

    private void readLoop(Supplier<Consumer<byte[], byte[]>> consumers, KafkaRangeReader.Settings settings) {
        Consumer<byte[], byte[]> consumer = null;
        try {
            while (running) {
                KafkaJob job = kafkaJobs.poll(200, TimeUnit.MILLISECONDS);
                if (job == null) {
                    continue;
                }
                if (!job.target().isOpen()) {
                    job.done().run();
                    continue;
                }
                try {
                    if (consumer == null) {
                        consumer = consumers.get();
                    }
                    String outcome = new KafkaRangeReader(consumer, settings, pacer)
                            .run(job.target(), job.index(), job.channel(), job.plan());
                    stats.readBack(outcome);
                } catch (RuntimeException e) {
                    LOG.warn("reading back channel {} from Kafka failed; the subscriber is disconnected and retries: {}",
                            LogText.escape(job.channel()), LogText.message(e.toString()));
                    stats.readBack("failed");
                    job.target().abort(DisconnectReason.UNAVAILABLE);
                } finally {
                    job.done().run();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (consumer != null) {
                consumer.close(java.time.Duration.ofSeconds(2));
            }
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    @Override
    public void close() {
        running = false;
        cachePool.shutdownNow();
        for (Thread t : readers) {
            t.interrupt();
        }
        for (Thread t : readers) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

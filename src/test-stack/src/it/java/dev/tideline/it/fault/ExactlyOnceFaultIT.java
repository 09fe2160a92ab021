package dev.tideline.it.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.it.support.ExactlyOnceCluster;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * KIP-618 exactly-once: on a worker with {@code exactly.once.source.support=enabled}, a source with
 * {@code exactly.once.support=required} writes each poll's records and their offsets in one
 * transaction. kill -9 of the worker during the backfill and while streaming, restarts: a
 * {@code read_committed} consumer sees every change exactly once.
 */
class ExactlyOnceFaultIT {
    @Test
    void killedWorkerLeavesNoDuplicatesForReadCommitted() {
        TestStack stack = TestStack.shared();
        ExactlyOnceCluster eos = stack.exactlyOnceCluster();
        long seed = FaultRounds.seed();
        Random random = new Random(seed);
        Pipeline p = new Pipeline("eos");
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture dest = MongoFixture.withOplog();
             SourceWriter writer = new SourceWriter(p.sourceCollection(source.client()), seed, 2)) {
            long started = System.nanoTime();
            int preload = 5_000;
            writer.preload(preload);
            p.startSink(eos.rest(), dest.uri(), Map.of("consumer.override.isolation.level", "read_committed"));
            p.startSource(eos.rest(), source.uri(), Map.of("exactly.once.support", "required",
                    "transaction.boundary", "poll", "batch.size", "100"));
            int kills = 0;
            int inBackfill = 1 + random.nextInt(preload / 2);
            TopicReader.readUntil(stack.bootstrapServers(), p.topic, inBackfill, Duration.ofMinutes(2));
            eos.kill();
            kills++;
            System.out.printf("FAULTS eos: kill -9 during the backfill after %d copies (seed %d)%n", inBackfill, seed);
            eos.start();
            awaitBoth(eos, p);
            TopicReader.readUntil(stack.bootstrapServers(), p.topic, preload, Duration.ofMinutes(4), IsolationLevel.READ_COMMITTED);
            writer.start();
            for (int round = 0; round < FaultRounds.rounds(); round++) {
                Waits.pause(Duration.ofMillis(2_000 + random.nextInt(6_000)), "the round's random time of the kill");
                eos.kill();
                kills++;
                System.out.printf("FAULTS eos: round %d, kill -9 while streaming after %d writes%n", round + 1, writer.writes());
                eos.start();
                awaitBoth(eos, p);
            }
            Pipeline.Tally t = p.finish("exactly-once, kill -9", kills + " x kill -9 (seed " + seed + "), read_committed",
                    stack.bootstrapServers(), IsolationLevel.READ_COMMITTED, dest.client(), writer, started);
            // the same topic read_uncommitted: what the aborted transactions of the killed worker had written
            long uncommitted = p.tally("exactly-once, read_uncommitted", "the same records, aborted ones included",
                    stack.bootstrapServers(), IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started).duplicates();
            System.out.printf("FAULTS eos: duplicates read_committed %d, read_uncommitted %d (aborted transactions)%n",
                    t.duplicates(), uncommitted);
            assertThat(t.duplicates()).as("duplicate deliveries for read_committed").isZero();
            assertThat(t.divergences()).as("lost or not deleted").isZero();
        } finally {
            p.deleteConnectors(eos.rest());
        }
    }

    private static void awaitBoth(ExactlyOnceCluster eos, Pipeline p) {
        eos.rest().awaitRunning(p.sourceConnector(), 1, Duration.ofSeconds(120));
        eos.rest().awaitRunning(p.sinkConnector(), 1, Duration.ofSeconds(120));
    }
}

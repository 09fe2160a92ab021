package dev.tideline.it.fault;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
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
 * kill -9 of the Connect worker running both connectors, at random points of the stream and of a
 * backfill, then a restart; and a two-worker group where the worker holding the source task dies
 * and the survivor takes it over. Nothing may be lost; duplicates (at-least-once) are counted.
 */
class WorkerKillFaultIT {

    @Test
    void killDuringStreamingAndBackfillLosesNothing() {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Random random = new Random(seed);
        int rounds = FaultRounds.rounds();
        Pipeline p = new Pipeline("kill");
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture dest = MongoFixture.withOplog();
             SourceWriter writer = new SourceWriter(p.sourceCollection(source.client()), seed, 2)) {
            long started = System.nanoTime();
            // a backfill big enough to be killed in the middle, once per round: small batches make it take a while (the
            // copy reads a batch ahead and runs at tens of thousands of documents a second, so the kill points stay in
            // the first quarter: what the copy sends between a point being seen and the kill must not finish it)
            int preload = 10_000 * rounds;
            writer.preload(preload);
            p.startSink(stack.rest(), dest.uri(), Map.of());
            p.startSource(stack.rest(), source.uri(), Map.of("batch.size", "20"));
            int kills = 0;
            // kill points inside the one backfill, in increasing order: each restart resumes it after its last committed _id
            int[] points = random.ints(rounds, 1, preload / 4).sorted().toArray();
            for (int round = 0; round < rounds; round++) {
                TopicReader.readUntil(stack.bootstrapServers(), p.topic, points[round], Duration.ofMinutes(2));
                stack.killWorker();
                kills++;
                long inTopic = TopicReader.readAll(stack.bootstrapServers(), p.topic, Duration.ofMillis(500)).size();
                System.out.printf("FAULTS kill: round %d, kill -9 during the backfill with %d of %d copies in the topic (seed %d)%n",
                        round + 1, inTopic, preload, seed);
                stack.startWorker(); // before any check: the tests after this one use the same worker
                awaitBoth(stack, p);
                if (round == 0) {
                    assertThat(inTopic).as("the first kill lands before the backfill is done").isLessThan(preload);
                }
            }
            // streaming from here: the whole copy is in the topic
            TopicReader.readUntil(stack.bootstrapServers(), p.topic, preload, Duration.ofMinutes(4));
            writer.start();
            for (int round = 0; round < rounds; round++) {
                Waits.pause(Duration.ofMillis(2_000 + random.nextInt(6_000)), "the round's random time of the kill");
                stack.killWorker();
                kills++;
                System.out.printf("FAULTS kill: round %d, kill -9 while streaming after %d writes%n", round + 1, writer.writes());
                Waits.pause(Duration.ofMillis(random.nextInt(3_000)), "the outage's random length: the writer goes on while nothing captures");
                stack.startWorker();
                awaitBoth(stack, p);
            }
            Pipeline.Tally t = p.finish("kill -9 of the worker", kills + " x kill -9 (seed " + seed + ")", stack.bootstrapServers(),
                    IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started);
            assertThat(t.lostInTopic()).as("lost in the topic").isZero();
            assertThat(t.lostAtDestination() + t.notDeleted()).as("lost or not deleted at the destination").isZero();
            assertThat(t.written()).isGreaterThan(preload);
        } finally {
            p.deleteConnectors(stack.rest());
        }
    }

    @Test
    void tasksMoveToTheSurvivingWorkerWhenOneDies() {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Pipeline p = new Pipeline("failover");
        int extra = stack.startExtraWorker();
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture dest = MongoFixture.withOplog();
             SourceWriter writer = new SourceWriter(p.sourceCollection(source.client()), seed, 2)) {
            long started = System.nanoTime();
            writer.preload(2_000);
            p.startSink(stack.rest(), dest.uri(), Map.of());
            p.startSource(stack.rest(), source.uri(), Map.of());
            writer.start();
            Pipeline.awaitWrites(writer::writes, writer.writes(), Pipeline.STRETCH_OF_WRITES, "streaming under way before the kill");
            int victim = workerIndexOf(stack, p.sourceConnector(), extra);
            int survivor = victim == 0 ? extra : 0;
            stack.killWorker(victim);
            long killedAt = System.nanoTime();
            System.out.printf("FAULTS failover: kill -9 of worker %d (running the source task) after %d writes%n",
                    victim, writer.writes());
            // the survivor takes the task once the group notices (session timeout) and the scheduled delay expires
            awaitTaskOn(stack, survivor, p.sourceConnector(), stack.connectUrl(survivor), Duration.ofMinutes(2));
            long movedMillis = Duration.ofNanos(System.nanoTime() - killedAt).toMillis();
            Pipeline.Tally t = p.finish("two workers, one killed", "1 x kill -9 of a group member, task moved in "
                    + movedMillis + " ms", stack.bootstrapServers(), IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started);
            assertThat(t.divergences()).as("lost or not deleted").isZero();
            if (victim == 0) {
                stack.startWorker(); // worker 0 is the one other tests talk to
            }
        } finally {
            p.deleteConnectors(stack.rest());
            stack.killWorker(extra); // leaves the group: later tests run on worker 0 alone again
        }
    }

    private static void awaitBoth(TestStack stack, Pipeline p) {
        stack.rest().awaitRunning(p.sourceConnector(), 1, Duration.ofSeconds(120));
        stack.rest().awaitRunning(p.sinkConnector(), 1, Duration.ofSeconds(120));
    }

    /** Which worker runs task 0 of {@code connector}: 0 or {@code extra}. */
    private static int workerIndexOf(TestStack stack, String connector, int extra) {
        JsonNode status = stack.rest().status(connector);
        String workerId = status.path("tasks").path(0).path("worker_id").asText();
        String extraHostPort = stack.connectUrl(extra).replace("http://", "");
        return workerId.equals(extraHostPort) ? extra : 0;
    }

    private static void awaitTaskOn(TestStack stack, int index, String connector, String url, Duration deadline) {
        String hostPort = url.replace("http://", "");
        Waits.until(deadline, Duration.ofMillis(500), () -> stack.rest(index).statusOrEmpty(connector), status -> {
            JsonNode task = status.path("tasks").path(0);
            return hostPort.equals(task.path("worker_id").asText()) && "RUNNING".equals(task.path("state").asText());
        }, status -> "task 0 of " + connector + " did not move to " + hostPort + " within " + deadline + ": " + status);
    }
}

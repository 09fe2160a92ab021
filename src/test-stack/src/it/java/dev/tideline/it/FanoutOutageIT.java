package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.fanout.config.GatewaySettings;
import dev.tideline.it.fanout.ChangeProducer;
import dev.tideline.it.fanout.FanoutFixture;
import dev.tideline.it.fanout.ResumingSseClient;
import dev.tideline.it.support.TestStack;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * The broker stopped for 60 s and started again, on a stack of this test's own (stopping the shared
 * broker would disturb every other test of the JVM): /health answers 503 while the gateway cannot
 * read Kafka and 200 again after; delivery resumes by itself, every change exactly once.
 */
class FanoutOutageIT {
    private static final String PREFIX = "fout";
    private static final String TOPIC = PREFIX + ".shop.items";
    private static final Duration OUTAGE = Duration.ofSeconds(Long.getLong("tideline.fanout.outage.seconds", 60));
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void deliveryResumesAfterTheBrokerIsBackAndHealthSaidSo() throws Exception {
        Path dir = Path.of(System.getProperty("tideline.work.dir", "target/it-work") + "-fanout-outage").toAbsolutePath();
        TestStack own = TestStack.start(dir);
        boolean brokerStopped = false;
        own.createTopic(TOPIC, 2);
        try (FanoutFixture fx = FanoutFixture.start(own.bootstrapServers(), PREFIX, Map.of(GatewaySettings.VALUE_FORMAT, "bson",
                GatewaySettings.TOPICS_REFRESH_MS, "1000"));
             ChangeProducer producer = new ChangeProducer(own.bootstrapServers(), TOPIC, "shop", "items");
             ResumingSseClient client = new ResumingSseClient(fx.baseUrl(), fx.token("acme", "shop.items.acme"), "shop.items.acme")) {
            Waits.until("the client subscribed", Duration.ofSeconds(60), Duration.ofMillis(50), client::resumeKinds, kinds -> !kinds.isEmpty());
            assertThat(health(fx)).isEqualTo(200);
            List<ChangeProducer.Sent> sent = new ArrayList<>();
            for (int i = 1; i <= 50; i++) {
                sent.add(producer.change("acme", i, 1));
            }
            client.awaitChanges(50, Duration.ofSeconds(60));
            assertThat(client.changes()).hasSize(50);

            long stoppedAt = System.nanoTime();
            stopBroker(dir);
            brokerStopped = true;
            long downAfter = awaitHealth(fx, 503, Duration.ofSeconds(45));
            System.out.printf("fanout outage: broker stopped; /health answered 503 after %d ms: %s%n", downAfter, healthBody(fx));
            // the outage lasts OUTAGE from the stop (the fault's length, not a wait): /health sampled every 2 s meanwhile
            List<Integer> during = new ArrayList<>();
            Duration outageLeft = OUTAGE.minusNanos(System.nanoTime() - stoppedAt);
            Waits.holdsThroughout("/health sampled while the broker is down", outageLeft.isNegative() ? Duration.ZERO : outageLeft,
                    Duration.ofSeconds(2), () -> during.add(health(fx)));
            long restartAt = System.nanoTime();
            own.restartBroker(false);
            brokerStopped = false;
            long upAfter = awaitHealth(fx, 200, Duration.ofSeconds(120));
            System.out.printf("fanout outage: broker down for %d s; /health during it %s; 200 again %d ms after the restart%n",
                    Duration.ofNanos(restartAt - stoppedAt).toSeconds(), new HashSet<>(during), upAfter);
            assertThat(during).isNotEmpty().allMatch(code -> code == 503);

            for (int i = 51; i <= 100; i++) {
                sent.add(producer.change("acme", i, 1));
            }
            long deliveredAt = System.nanoTime();
            client.awaitChanges(100, Duration.ofSeconds(120));
            Set<String> seen = new HashSet<>();
            int duplicates = 0;
            for (BsonDocument d : client.changes()) {
                if (!seen.add(d.getInt32("partition").getValue() + "@" + d.get("offset").asNumber().longValue())) {
                    duplicates++;
                }
            }
            System.out.printf("fanout outage RESULT: %d changes written (50 before, 50 after), %d received, duplicates %d, "
                    + "unrecoverable %d, reconnects %d, the 50 after arrived within %d ms%n", sent.size(), client.changes().size(),
                    duplicates, client.unrecoverable().size(), client.connections() - 1,
                    Duration.ofNanos(System.nanoTime() - deliveredAt).toMillis());
            assertThat(client.changes()).hasSize(100);
            assertThat(duplicates).isZero();
            assertThat(client.unrecoverable()).isEmpty();
            assertThat(fx.gateway().health().canDeliver()).isTrue();
        } finally {
            if (brokerStopped) {
                own.restartBroker(false); // the stack's shutdown hook expects a broker to stop
            }
            stopStack(dir);
        }
    }

    /** This test's stack is not needed by any other: its processes end now rather than at the JVM's exit. */
    private static void stopStack(Path stackDir) throws Exception {
        List<Long> pids = new ArrayList<>();
        try (var files = Files.walk(stackDir, 3)) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".pid")).toList()) {
                pids.add(Long.parseLong(Files.readString(f).trim()));
            }
        }
        // workers first (they leave their group), then the broker
        pids.sort(java.util.Comparator.comparing(pid -> isBroker(stackDir, pid)));
        for (long pid : pids) {
            ProcessHandle.current().descendants().filter(p -> p.pid() == pid).findFirst().ifPresent(p -> {
                p.destroy();
                p.onExit().orTimeout(30, java.util.concurrent.TimeUnit.SECONDS).exceptionally(e -> {
                    p.destroyForcibly();
                    return p;
                }).join();
            });
        }
    }

    private static boolean isBroker(Path stackDir, long pid) {
        try {
            return Long.parseLong(Files.readString(stackDir.resolve("broker").resolve("broker.pid")).trim()) == pid;
        } catch (Exception e) {
            return false;
        }
    }

    /**
     * Stops the stack's broker (SIGTERM, as an operator would) by the PID the stack recorded, after
     * checking it is a child of this JVM; the stack starts it again with {@link TestStack#restartBroker}.
     */
    private static void stopBroker(Path stackDir) throws Exception {
        long pid = Long.parseLong(Files.readString(stackDir.resolve("broker").resolve("broker.pid")).trim());
        ProcessHandle broker = ProcessHandle.current().descendants().filter(p -> p.pid() == pid).findFirst()
                .orElseThrow(() -> new IllegalStateException("pid " + pid + " is not a broker this test started"));
        broker.destroy();
        broker.onExit().get(60, java.util.concurrent.TimeUnit.SECONDS);
    }

    private static int health(FanoutFixture fx) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(fx.baseUrl() + "/health")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static String healthBody(FanoutFixture fx) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(fx.baseUrl() + "/health")).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    /** Millis until /health answers {@code status}. */
    private static long awaitHealth(FanoutFixture fx, int status, Duration timeout) throws Exception {
        long start = System.nanoTime();
        Waits.until(timeout, Duration.ofMillis(200), () -> health(fx), code -> code == status,
                code -> "/health did not answer " + status + " within " + timeout.toSeconds() + " s (last " + code + "): " + bodyOrError(fx));
        return Duration.ofNanos(System.nanoTime() - start).toMillis();
    }

    private static String bodyOrError(FanoutFixture fx) {
        try {
            return healthBody(fx);
        } catch (Exception e) {
            return e.toString();
        }
    }
}

package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.fanout.auth.JwtVerifier;
import dev.tideline.fanout.config.GatewaySettings;
import dev.tideline.fanout.config.HttpSettings;
import dev.tideline.it.fanout.ChangeProducer;
import dev.tideline.it.fanout.FanoutFixture;
import dev.tideline.it.fanout.GatewayProcess;
import dev.tideline.it.fanout.ResumingSseClient;
import dev.tideline.it.fanout.TcpBalancer;
import dev.tideline.it.support.TestStack;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * Two gateway processes behind one address, clients receiving: gateway A is killed (kill -9), its
 * clients continue on B; A is started again and B is killed, so every client continues on the
 * restarted A. Meanwhile the producer sends some changes twice, as a source does after a crash.
 * Every client must end with exactly its tenant's changes: no gap, no duplicate, no unrecoverable.
 */
class FanoutFailoverIT {
    private static final String PREFIX = "ffail";
    private static final String TOPIC = PREFIX + ".shop.items";
    private static final List<String> TENANTS = List.of("acme", "globex", "initech", "umbrella");
    private static final int CLIENTS_PER_TENANT = 6;
    private static final int DOCS_PER_TENANT = 25;
    private static final int CHANGES = 1600;
    private static final Duration WAIT = Duration.ofSeconds(120);

    @Test
    void everyClientContinuesOnTheOtherGatewayWithNoGapAndNoDuplicate() throws Exception {
        TestStack stack = TestStack.shared();
        stack.createTopic(TOPIC, 3);
        Path work = stack.workDir().resolve("fanout-failover");
        int portA = freePort();
        int portB = freePort();
        Map<String, String> base = FanoutFixture.settings(stack.bootstrapServers(), PREFIX, Map.of(
                GatewaySettings.VALUE_FORMAT, "bson",
                HttpSettings.MAX_CONNECTIONS_PER_ADDRESS, "5000",
                // a small history: clients further behind than it are read back from Kafka
                GatewaySettings.HISTORY_SIZE, "40"));
        GatewayProcess a = start(work.resolve("a"), base, portA);
        GatewayProcess b = start(work.resolve("b"), base, portB);
        List<GatewayProcess> running = new CopyOnWriteArrayList<>(List.of(a, b));
        JwtVerifier signer = new JwtVerifier(FanoutFixture.SECRET.getBytes(StandardCharsets.UTF_8), 0);
        long exp = System.currentTimeMillis() / 1000 + 3600;
        List<ChangeProducer.Sent> sent = new CopyOnWriteArrayList<>();
        List<ChangeProducer.Sent> replays = new CopyOnWriteArrayList<>();
        Map<ResumingSseClient, String> clients = new HashMap<>();
        try (TcpBalancer balancer = new TcpBalancer(List.of(portA, portB));
             ChangeProducer producer = new ChangeProducer(stack.bootstrapServers(), TOPIC, "shop", "items")) {
            for (String tenant : TENANTS) {
                String token = signer.issue(null, tenant, List.of("shop.items." + tenant), exp);
                for (int i = 0; i < CLIENTS_PER_TENANT; i++) {
                    clients.put(new ResumingSseClient(balancer.baseUrl(), token, "shop.items." + tenant), tenant);
                }
            }
            awaitConnected(clients.keySet());
            AtomicBoolean failed = new AtomicBoolean();
            Thread writer = new Thread(() -> {
                try {
                    int[] versions = new int[TENANTS.size() * DOCS_PER_TENANT];
                    for (int i = 0; i < CHANGES; i++) {
                        int t = i % TENANTS.size();
                        int doc = t * DOCS_PER_TENANT + (i / TENANTS.size()) % DOCS_PER_TENANT;
                        sent.add(producer.change(TENANTS.get(t), doc, ++versions[doc]));
                        if (i == CHANGES / 2) {
                            // the source crashed and sends its last 40 changes again, byte for byte
                            for (ChangeProducer.Sent s : List.copyOf(sent.subList(sent.size() - 40, sent.size()))) {
                                replays.add(producer.replay(s));
                            }
                        }
                        Thread.sleep(8);
                    }
                } catch (Exception e) {
                    failed.set(true);
                    e.printStackTrace();
                }
            }, "failover-writer");
            writer.start();

            awaitSent(sent, CHANGES / 4);
            long killA = System.currentTimeMillis();
            a.kill();
            running.remove(a);
            System.out.printf("fanout failover: killed gateway A (kill -9) after %d changes%n", sent.size());
            awaitSent(sent, CHANGES / 2 + CHANGES / 8);
            GatewayProcess restartedA = start(work.resolve("a2"), base, portA);
            running.add(restartedA);
            b.kill();
            running.remove(b);
            System.out.printf("fanout failover: started A again, killed gateway B after %d changes (%d ms after A's kill)%n",
                    sent.size(), System.currentTimeMillis() - killA);
            writer.join();
            assertThat(failed).isFalse();

            int lost = 0;
            int duplicates = 0;
            int unrecoverable = 0;
            int outOfOrder = 0;
            Map<String, Integer> resumeKinds = new TreeMap<>();
            Set<String> replayedPositions = new HashSet<>();
            replays.forEach(r -> replayedPositions.add(r.partition() + "@" + r.offset()));
            for (Map.Entry<ResumingSseClient, String> e : clients.entrySet()) {
                ResumingSseClient c = e.getKey();
                List<ChangeProducer.Sent> expected = ChangeProducer.ofTenant(sent, e.getValue());
                c.awaitChanges(expected.size(), WAIT);
                List<BsonDocument> got = c.changes();
                Set<String> expectedPositions = new HashSet<>();
                expected.forEach(s -> expectedPositions.add(s.partition() + "@" + s.offset()));
                Set<String> seen = new HashSet<>();
                Map<Integer, Integer> lastVersion = new HashMap<>();
                for (BsonDocument d : got) {
                    String pos = d.getInt32("partition").getValue() + "@" + d.get("offset").asNumber().longValue();
                    if (!seen.add(pos) || replayedPositions.contains(pos)) {
                        duplicates++;
                    }
                    BsonDocument doc = d.getDocument("change").getDocument("document");
                    int v = doc.getInt32("v").getValue();
                    if (lastVersion.getOrDefault(doc.getInt32("_id").getValue(), 0) >= v) {
                        outOfOrder++;
                    }
                    lastVersion.put(doc.getInt32("_id").getValue(), v);
                }
                for (String pos : expectedPositions) {
                    if (!seen.contains(pos)) {
                        lost++;
                    }
                }
                unrecoverable += c.unrecoverable().size();
                c.resumeKinds().forEach(k -> resumeKinds.merge(k, 1, Integer::sum));
            }
            int reconnects = clients.keySet().stream().mapToInt(c -> c.connections() - 1).sum();
            System.out.printf("fanout failover RESULT: %d clients, %d changes written (+%d sent twice), 2 gateways killed; "
                    + "reconnects %d, resumed by %s; LOST %d, duplicates %d, out of order %d, unrecoverable %d%n",
                    clients.size(), sent.size(), replays.size(), reconnects, resumeKinds, lost, duplicates, outOfOrder, unrecoverable);
            assertThat(lost).isZero();
            assertThat(duplicates).isZero();
            assertThat(outOfOrder).isZero();
            assertThat(unrecoverable).isZero();
            // every client was moved at least once (its gateway was killed under it)
            assertThat(clients.keySet()).allMatch(c -> c.connections() >= 2);
        } finally {
            clients.keySet().forEach(ResumingSseClient::close);
            running.forEach(GatewayProcess::close);
        }
    }

    private static GatewayProcess start(Path dir, Map<String, String> base, int port) throws Exception {
        Map<String, String> s = new HashMap<>(base);
        s.put(GatewaySettings.HTTP_PORT, Integer.toString(port));
        return GatewayProcess.start(dir, s, List.of("-Xmx256m"));
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void awaitSent(List<ChangeProducer.Sent> sent, int n) {
        Waits.until(n + " changes sent by the producer", WAIT, Duration.ofMillis(20), sent::size, size -> size >= n);
    }

    private static void awaitConnected(Set<ResumingSseClient> clients) {
        Waits.until("every client subscribed once", WAIT, Duration.ofMillis(50),
                () -> clients.stream().map(c -> c.resumeKinds().size()).toList(), subscribed -> subscribed.stream().allMatch(k -> k >= 1));
        assertThat(clients).allMatch(c -> c.resumeKinds().size() >= 1);
    }
}

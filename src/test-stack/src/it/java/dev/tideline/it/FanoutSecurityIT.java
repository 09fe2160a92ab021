package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoDatabase;
import dev.tideline.event.ValueFormat;
import dev.tideline.fanout.auth.JwtVerifier;
import dev.tideline.it.fanout.FanoutFixture;
import dev.tideline.it.fanout.SseClient;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Forged, expired and foreign subscriptions are refused by the gateway serving real change
 * topics, and across a fuzzed run no change of one tenant reaches a subscriber of another.
 */
class FanoutSecurityIT {
    private static final String DB = "fanout_sec";
    private static final String PREFIX = "fsec";
    private static final List<String> TENANTS = List.of("acme", "globex", "initech");
    private static final List<String> COLLS = List.of("orders", "users");
    private static final Duration WAIT = Duration.ofSeconds(60);
    private final JwtVerifier signer = new JwtVerifier(FanoutFixture.SECRET.getBytes(StandardCharsets.UTF_8), 0);

    @Test
    void refusesWhatIsNotGrantedAndNeverCrossesTenants() throws Exception {
        TestStack stack = TestStack.shared();
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            MongoDatabase db = mongo.client().getDatabase(DB);
            for (String c : COLLS) {
                db.getCollection(c).insertOne(new Document("_id", "seed").append("tenant", "seed"));
            }
            Map<String, String> config = SourceItSupport.sourceConfig(mongo.uri(), DB, PREFIX, ValueFormat.JSON, 1);
            config.put("tenant.field", "tenant");
            stack.rest().putConnector("fanout-security-it", config);
            try (FanoutFixture fx = FanoutFixture.start(stack.bootstrapServers(), PREFIX, Map.of())) {
                stack.rest().awaitRunning("fanout-security-it", 1, WAIT);
                for (String c : COLLS) {
                    TopicReader.readUntil(stack.bootstrapServers(), PREFIX + "." + DB + "." + c, 1, WAIT);
                }
                explicitRefusals(fx);
                tokenExpiryDisconnects(fx);
                fuzz(fx, db);
            } finally {
                stack.rest().deleteConnector("fanout-security-it");
            }
        }
    }

    private void explicitRefusals(FanoutFixture fx) {
        long exp = System.currentTimeMillis() / 1000 + 600;
        String valid = signer.issue(null, "acme", List.of(DB + ".*.acme"), exp);
        String[] p = valid.split("\\.");
        String tampered = p[0] + "." + p[1] + "." + (p[2].charAt(0) == 'A' ? 'B' : 'A') + p[2].substring(1);
        String forgedPayload = p[0] + "." + b64("{\"tenant\":\"globex\",\"channels\":[\"" + DB + ".*.globex\"],\"exp\":" + exp + "}") + "." + p[2];
        String algNone = b64("{\"alg\":\"none\",\"typ\":\"JWT\"}") + "." + b64("{\"tenant\":\"globex\",\"channels\":[\"" + DB
                + ".*.globex\"],\"exp\":" + exp + "}") + ".";
        String expired = signer.issue(null, "acme", List.of(DB + ".*.acme"), System.currentTimeMillis() / 1000 - 5);
        String foreignPattern = signer.issue(null, "acme", List.of(DB + ".*.globex", "*.*.*"), exp);
        String ok = DB + ".orders.acme";

        assertThat(status(fx, valid, ok)).isEqualTo("200");
        assertThat(status(fx, tampered, ok)).isEqualTo("401:bad-signature");
        assertThat(status(fx, forgedPayload, DB + ".orders.globex")).isEqualTo("401:bad-signature");
        // unsigned: refused on its signature before anything of it is decoded
        assertThat(status(fx, algNone, DB + ".orders.globex")).isEqualTo("401:bad-signature");
        assertThat(status(fx, expired, ok)).isEqualTo("401:expired");
        assertThat(status(fx, "", ok)).isEqualTo("401:missing");
        assertThat(status(fx, valid, DB + ".orders.globex")).isEqualTo("403:forbidden-channel");
        assertThat(status(fx, foreignPattern, DB + ".orders.globex")).isEqualTo("403:forbidden-channel");
        // channel-name tricks: dots, wildcards, percent-encodings, lists
        assertThat(status(fx, valid, DB + ".orders.acme.globex")).isEqualTo("403:forbidden-channel");
        assertThat(status(fx, valid, DB + ".orders.acme%2Eglobex")).isEqualTo("403:forbidden-channel");
        assertThat(status(fx, valid, DB + ".orders.acme%252Eglobex")).isEqualTo("400:bad-channel");
        assertThat(status(fx, valid, DB + ".orders.*")).isEqualTo("400:bad-channel");
        assertThat(status(fx, valid, DB + ".*.acme")).isEqualTo("400:bad-channel");
        assertThat(status(fx, valid, DB + ".orders")).isEqualTo("400:bad-channel");
        assertThat(status(fx, valid, DB + "..acme")).isEqualTo("400:bad-channel");
        assertThat(status(fx, valid, DB + ".orders.ac%00me")).isEqualTo("400:bad-channel");
        assertThat(status(fx, valid, DB + ".orders.%61cme")).isEqualTo("200"); // %61 is 'a': the same channel, decoded once
        assertThat(status(fx, valid, DB + ".orders.ACME")).isEqualTo("403:forbidden-channel");
        assertThat(status(fx, valid, ok + "," + DB + ".orders.globex")).isEqualTo("403:forbidden-channel");
        assertThat(status(fx, valid, ok + "&channel=" + DB + ".orders.globex")).isEqualTo("403:forbidden-channel");
    }

    private void tokenExpiryDisconnects(FanoutFixture fx) {
        String shortLived = signer.issue(null, "acme", List.of(DB + ".*.acme"), System.currentTimeMillis() / 1000 + 2);
        try (SseClient c = fx.subscribe(shortLived, DB + ".orders.acme")) {
            SseClient.Event bye = c.await("disconnect", 1, Duration.ofSeconds(30)).get(0);
            assertThat(bye.json().getString("reason").getValue()).isEqualTo("token-expired");
            c.awaitEnded(Duration.ofSeconds(30));
        }
    }

    /** Random subscriptions, legal and not; then writes for every tenant; then: who got what. */
    private void fuzz(FanoutFixture fx, MongoDatabase db) throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        int attempts = 300;
        Map<String, Integer> outcomes = new TreeMap<>();
        List<Subscriber> accepted = new ArrayList<>();
        int wronglyAccepted = 0;
        int wronglyRefused = 0;
        for (int i = 0; i < attempts; i++) {
            String tenant = TENANTS.get(random.nextInt(TENANTS.size()));
            Attempt a = attempt(random, tenant);
            SseClient c = SseClient.open(fx.baseUrl(), "/sse?token=" + a.token + "&channel=" + a.channelParam, Map.of());
            String outcome = c.status() == 200 ? "200" : c.status() + ":" + errorOf(c);
            outcomes.merge(outcome, 1, Integer::sum);
            if (c.status() == 200) {
                if (!a.legit) {
                    wronglyAccepted++;
                    System.out.println("fanout fuzz: accepted an illegal attempt: " + a);
                }
                accepted.add(new Subscriber(tenant, c));
            } else if (a.legit) {
                wronglyRefused++;
                System.out.println("fanout fuzz: refused a legal attempt (" + outcome + "): " + a);
            }
        }
        for (Subscriber s : accepted) {
            s.client.await("subscribed", 1, WAIT);
        }
        int writes = 0;
        for (int round = 0; round < 4; round++) {
            for (String c : COLLS) {
                for (String t : TENANTS) {
                    db.getCollection(c).insertOne(new Document("_id", t + "-" + round).append("tenant", t).append("round", round));
                    writes++;
                }
            }
        }
        fx.awaitPublished(COLLS.size() + writes, WAIT);
        // every accepted subscriber of a channel gets its 4 changes: wait for all of them
        for (Subscriber s : accepted) {
            int channels = s.client.events("subscribed").size();
            s.client.await("change", 4 * channels, WAIT);
        }
        long deliveries = 0;
        long crossTenant = 0;
        for (Subscriber s : accepted) {
            for (SseClient.Event e : s.client.events("change")) {
                deliveries++;
                String docTenant = e.json().getDocument("change").getDocument("document").getString("tenant").getValue();
                if (!docTenant.equals(s.tenant) || !e.json().getString("channel").getValue().endsWith("." + s.tenant)) {
                    crossTenant++;
                }
            }
            s.client.close();
        }
        System.out.printf("fanout fuzz: seed %d, %d attempts, %d accepted, outcomes %s, %d writes, %d deliveries, "
                + "cross-tenant deliveries %d, illegal accepted %d, legal refused %d%n",
                seed, attempts, accepted.size(), outcomes, writes, deliveries, crossTenant, wronglyAccepted, wronglyRefused);
        assertThat(crossTenant).isZero();
        assertThat(wronglyAccepted).isZero();
        assertThat(wronglyRefused).isZero();
        assertThat(accepted).isNotEmpty();
        assertThat(deliveries).isGreaterThan(0);
        assertThat(accepted.size()).isLessThan(attempts);
    }

    private record Subscriber(String tenant, SseClient client) {
    }

    /** @param channelParam the raw (already URL-encoded) value of the channel parameter */
    private record Attempt(String token, String channelParam, boolean legit, String description) {
    }

    private Attempt attempt(Random r, String tenant) {
        long exp = System.currentTimeMillis() / 1000 + 600;
        String other = TENANTS.get((TENANTS.indexOf(tenant) + 1 + r.nextInt(TENANTS.size() - 1)) % TENANTS.size());
        String coll = COLLS.get(r.nextInt(COLLS.size()));
        boolean validToken = true;
        String token;
        String tokenKind;
        switch (r.nextInt(8)) {
            case 0 -> { token = tamper(signer.issue(null, tenant, List.of(DB + ".*." + tenant), exp), r); validToken = false; tokenKind = "tampered"; }
            case 1 -> { token = b64("{\"alg\":\"none\"}") + "." + b64("{\"tenant\":\"" + tenant + "\",\"channels\":[\"*.*." + tenant
                    + "\"],\"exp\":" + exp + "}") + "."; validToken = false; tokenKind = "alg-none"; }
            case 2 -> { token = signer.issue(null, tenant, List.of(DB + ".*." + tenant), exp - 1200); validToken = false; tokenKind = "expired"; }
            case 3 -> { token = signer.issue(null, tenant, List.of(DB + ".*." + other, "*.*.*", "*.*." + other), exp); tokenKind = "foreign-patterns"; }
            case 4 -> { token = signer.issue(null, tenant, List.of(DB + "." + coll + "." + tenant), exp); tokenKind = "exact"; }
            default -> { token = signer.issue(null, tenant, List.of(DB + ".*." + tenant), exp); tokenKind = "wildcard"; }
        }
        Set<String> granted = switch (tokenKind) {
            case "foreign-patterns" -> Set.of();
            case "exact" -> Set.of(DB + "." + coll + "." + tenant);
            default -> Set.of(DB + ".orders." + tenant, DB + ".users." + tenant);
        };
        String own = DB + "." + coll + "." + tenant;
        String channel;
        String decodedOnce; // what the gateway sees after one URL decoding, when it is a plain name
        switch (r.nextInt(12)) {
            case 0 -> { channel = DB + "." + coll + "." + other; decodedOnce = channel; }
            case 1 -> { channel = own + "." + other; decodedOnce = channel; }
            case 2 -> { channel = own + "%2E" + other; decodedOnce = own + "." + other; }
            case 3 -> { channel = own + "%252E" + other; decodedOnce = null; }
            case 4 -> { channel = DB + ".*." + tenant; decodedOnce = null; }
            case 5 -> { channel = DB + "." + coll + ".*"; decodedOnce = null; }
            case 6 -> { channel = own + "," + DB + "." + coll + "." + other; decodedOnce = null; }
            case 7 -> { channel = DB + "." + coll + "." + tenant.toUpperCase(java.util.Locale.ROOT); decodedOnce = channel; }
            case 8 -> { channel = own.replace(".", "%2E"); decodedOnce = own; }
            case 9 -> { channel = own + "%00"; decodedOnce = null; }
            default -> { channel = own; decodedOnce = own; }
        }
        boolean legit = validToken && decodedOnce != null && granted.contains(decodedOnce);
        return new Attempt(token, channel, legit, tokenKind + " token of " + tenant + " for " + channel);
    }

    private static String tamper(String token, Random r) {
        char[] chars = token.toCharArray();
        int i = token.lastIndexOf('.') - 1 - r.nextInt(10); // inside the payload
        chars[i] = chars[i] == 'A' ? 'B' : 'A';
        return new String(chars);
    }

    private static String b64(String s) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String status(FanoutFixture fx, String token, String channelParam) {
        try (SseClient c = SseClient.open(fx.baseUrl(), "/sse?token=" + token + "&channel=" + channelParam, Map.of())) {
            return c.status() == 200 ? "200" : c.status() + ":" + errorOf(c);
        }
    }

    private static String errorOf(SseClient c) {
        return org.bson.BsonDocument.parse(c.errorBody()).getString("error").getValue();
    }
}

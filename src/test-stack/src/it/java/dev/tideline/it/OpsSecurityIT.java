package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.ops.PlainAuthBackend;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import dev.tideline.standin.MongoFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * No credential reaches an offset, a topic name, a record, a header or a log line. A source and a
 * sink run with {@code user:password@} connection strings against a stand-in replica set whose members check
 * the password (SASL PLAIN); afterwards the worker's log and console, the offsets and status topics,
 * every topic name and every record and header are searched for the password. The source takes its
 * URI from a config provider (the recommended way: the REST API then shows only the reference); the
 * sink takes it inline, which the REST API returns as given (Connect does not mask connector
 * configs), while the validate answer masks it. A wrong password is refused when the config is
 * submitted, with a message that never contains the password.
 */
class OpsSecurityIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SOURCE = "ops-security-source";
    private static final String SINK = "ops-security-sink";
    private static final String WRONG = "ops-security-wrong-password"; // never created: refused on submission

    @Test
    void noCredentialInOffsetsTopicsRecordsHeadersOrLogs() throws Exception {
        TestStack stack = TestStack.shared();
        ConnectRest rest = stack.rest();
        String user = "tideline_ops";
        String password = "pw-" + UUID.randomUUID().toString().replace("-", "");
        String wrongPassword = "wrong-" + UUID.randomUUID().toString().replace("-", "");
        PlainAuthBackend backend = new PlainAuthBackend(user, password);
        MongoFixture server = MongoFixture.inProcess(backend, true); // a replica set: every member checks the password
        String hostPort = String.join(",", server.replicaSet().orElseThrow().hosts());
        String options = "/?replicaSet=" + server.replicaSet().orElseThrow().name() + "&authMechanism=PLAIN&authSource=%24external";
        String uri = "mongodb://" + user + ":" + password + "@" + hostPort + options;
        String wrongUri = "mongodb://" + user + ":" + wrongPassword + "@" + hostPort + options;
        Path secrets = stack.workDir().resolve("ops-security-secrets.properties");
        Files.writeString(secrets, "source.uri=" + uri + "\n");
        String db = "ops_secret";
        String topic = "opss." + db + ".accounts";
        try (MongoClient client = MongoClients.create(uri)) {
            MongoCollection<Document> accounts = client.getDatabase(db).getCollection("accounts");
            for (int i = 0; i < 3; i++) {
                accounts.insertOne(new Document("_id", i).append("tenant", "t" + i));
            }
            Map<String, String> source = SourceItSupport.sourceConfig("${file:" + secrets + ":source.uri}", db, "opss", ValueFormat.JSON, 1);
            source.put("tenant.field", "tenant");
            source.put("heartbeat.interval.ms", "1000");
            Map<String, String> sink = SinkItSupport.sinkConfig(topic, uri, "ops_secret_copy", ValueFormat.JSON);
            rest.putConnector(SOURCE, source);
            rest.putConnector(SINK, sink);
            try {
                rest.awaitRunning(SOURCE, 1, Duration.ofSeconds(60));
                rest.awaitRunning(SINK, 1, Duration.ofSeconds(60));
                TopicReader.readUntil(stack.bootstrapServers(), topic, 3, Duration.ofSeconds(60));
                for (int i = 3; i < 6; i++) {
                    accounts.insertOne(new Document("_id", i).append("tenant", "t" + i));
                }
                MongoCollection<Document> copy = client.getDatabase("ops_secret_copy").getCollection("accounts");
                SinkItSupport.await("6 documents at the destination", Duration.ofSeconds(90), () -> copy.countDocuments() == 6);

                // a wrong password: refused when the config is submitted, naming the problem, without echoing the string
                String refusal = put(stack.connectUrl() + "/connectors/" + WRONG + "/config", JSON.writeValueAsString(
                        SourceItSupport.sourceConfig(wrongUri, db, "opsw", ValueFormat.JSON, 1)));
                System.out.println("wrong password: " + refusal);
                assertThat(refusal).contains("refused the credentials").doesNotContain(wrongPassword).doesNotContain(password);
                assertThat(backend.refused()).isPositive();
                assertThat(backend.accepted()).isPositive();

                String sourceConfig = get(stack.connectUrl() + "/connectors/" + SOURCE);
                String sinkConfig = get(stack.connectUrl() + "/connectors/" + SINK);
                assertThat(sourceConfig).contains("${file:").doesNotContain(password);
                // Connect returns connector configs as submitted: an inline password is visible to REST clients
                // (docs/operations.md says so and recommends a config provider)
                boolean sinkShowsIt = sinkConfig.contains(password);
                String validation = put(stack.connectUrl() + "/connector-plugins/" + SinkItSupport.SINK_CLASS + "/config/validate",
                        JSON.writeValueAsString(sink));
                assertThat(validation).contains("[hidden]").doesNotContain(password);

                List<String> findings = new ArrayList<>();
                Path workerDir = stack.workDir().resolve("worker-0");
                for (String file : List.of("worker-0.log", "worker-0.out")) {
                    Path f = workerDir.resolve(file);
                    String text = Files.exists(f) ? Files.readString(f) : "";
                    for (String secret : List.of(password, wrongPassword)) {
                        if (text.contains(secret)) {
                            findings.add(file + " contains a password");
                        }
                    }
                }
                Set<String> topics;
                try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers()))) {
                    topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
                }
                int records = 0;
                int headers = 0;
                List<String> searched = new ArrayList<>();
                for (String t : topics) {
                    if (t.contains(password) || t.contains(wrongPassword)) {
                        findings.add("topic name " + t);
                    }
                    // the config topic holds connector configs as submitted (the sink's inline URI): Connect's, not ours
                    boolean ours = t.startsWith("opss.") || t.startsWith("opsw.") || t.endsWith("-offsets") || t.endsWith("-status");
                    if (!ours || t.startsWith("__")) {
                        continue;
                    }
                    searched.add(t);
                    // to the end offsets of now: the heartbeat topic never stays quiet for long
                    for (ConsumerRecord<byte[], byte[]> r : TopicReader.readToEnd(stack.bootstrapServers(), t, Duration.ofSeconds(2))) {
                        records++;
                        check(findings, t + " key", r.key(), password, wrongPassword);
                        check(findings, t + " value", r.value(), password, wrongPassword);
                        for (Header h : r.headers()) {
                            headers++;
                            check(findings, t + " header " + h.key(), h.key().getBytes(StandardCharsets.UTF_8), password, wrongPassword);
                            check(findings, t + " header " + h.key(), h.value(), password, wrongPassword);
                        }
                    }
                }
                System.out.printf("searched %d topic names, %d records and %d headers in %s, the worker log and console: "
                                + "%d finding(s) %s; GET of the sink config shows the inline password: %s%n",
                        topics.size(), records, headers, searched, findings.size(), findings, sinkShowsIt);
                assertThat(searched).anyMatch(t -> t.endsWith("-offsets")).contains(topic, "opss.heartbeats");
                assertThat(records).isGreaterThan(6);
                assertThat(headers).isGreaterThan(6 * 3);
                assertThat(findings).isEmpty();
                assertThat(sinkShowsIt).as("docs/operations.md says Connect returns an inline password as submitted").isTrue();
            } finally {
                rest.deleteConnector(SOURCE);
                rest.deleteConnector(SINK);
                server.close();
            }
        }
    }

    private static void check(List<String> findings, String where, byte[] bytes, String... secrets) {
        if (bytes == null) {
            return;
        }
        String text = new String(bytes, StandardCharsets.ISO_8859_1); // byte-for-byte: finds ASCII inside BSON too
        for (String s : secrets) {
            if (text.contains(s)) {
                findings.add(where);
            }
        }
    }

    private static String get(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static String put(String url, String json) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }
}

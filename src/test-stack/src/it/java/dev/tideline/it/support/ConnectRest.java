package dev.tideline.it.support;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tideline.event.Namespace;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.SourcePartition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The Connect REST API as tests use it. Calls that fail throw {@link IllegalStateException} with
 * the method, path, status and body; waiting calls throw {@link AssertionError} with the last
 * status JSON, which contains the task's stack trace.
 */
public final class ConnectRest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** The worker forwards requests to the leader and waits up to 90 s for the herder. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(100);
    /** How long to retry 409 "rebalance in progress" / "stale configuration" answers. */
    private static final Duration CONFLICT_RETRY = Duration.ofSeconds(60);

    private final String baseUrl;

    public ConnectRest(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /** PUT /connectors/{name}/config: creates or reconfigures the connector. */
    public void putConnector(String name, Map<String, String> config) {
        send("PUT", "/connectors/" + enc(name) + "/config", toJson(config), Set.of(200, 201));
    }

    /** PUT /connectors/{name}/config; the raw answer, since tests check refusals too. */
    public HttpResponse<String> tryPutConnector(String name, Map<String, String> config) {
        return send("PUT", "/connectors/" + enc(name) + "/config", toJson(config), null);
    }

    /**
     * Waits until the connector and exactly {@code expectedTasks} tasks are RUNNING. Fails at once
     * when the connector or a task is FAILED, and on timeout, with the status JSON in the message.
     */
    public void awaitRunning(String name, int expectedTasks, Duration timeout) {
        Waits.until(timeout, Duration.ofMillis(200), () -> {
            HttpResponse<String> response = send("GET", "/connectors/" + enc(name) + "/status", null, Set.of(200, 404));
            if (response.statusCode() != 200) {
                return null;
            }
            JsonNode status = parse(response.body());
            if (hasFailed(status)) {
                throw new AssertionError("connector " + name + " FAILED:\n" + status.toPrettyString());
            }
            return status;
        }, status -> status != null && isRunning(status, expectedTasks),
                status -> "connector " + name + " not RUNNING with " + expectedTasks + " RUNNING task(s) within " + timeout
                        + "; last status:\n" + (status == null ? "(no status yet: the connector is unknown)" : status.toPrettyString()));
    }

    private static boolean hasFailed(JsonNode status) {
        if ("FAILED".equals(status.path("connector").path("state").asText())) {
            return true;
        }
        for (JsonNode task : status.path("tasks")) {
            if ("FAILED".equals(task.path("state").asText())) {
                return true;
            }
        }
        return false;
    }

    private static boolean isRunning(JsonNode status, int expectedTasks) {
        if (!"RUNNING".equals(status.path("connector").path("state").asText())) {
            return false;
        }
        JsonNode tasks = status.path("tasks");
        if (tasks.size() != expectedTasks) {
            return false;
        }
        for (JsonNode task : tasks) {
            if (!"RUNNING".equals(task.path("state").asText())) {
                return false;
            }
        }
        return true;
    }

    /** GET /connectors/{name}/status. */
    public JsonNode status(String name) {
        return parse(send("GET", "/connectors/" + enc(name) + "/status", null, Set.of(200)).body());
    }

    /**
     * The status, or an empty object while the worker has not written one yet (right after a PUT the
     * status topic may still be behind: 404 "No status found").
     */
    public JsonNode statusOrEmpty(String name) {
        HttpResponse<String> r = send("GET", "/connectors/" + enc(name) + "/status", null, Set.of(200, 404));
        return r.statusCode() == 404 ? parse("{}") : parse(r.body());
    }

    /** DELETE /connectors/{name}; a connector that does not exist is fine. */
    public void deleteConnector(String name) {
        send("DELETE", "/connectors/" + enc(name), null, Set.of(200, 204, 404));
    }

    /** POST /connectors/{name}/restart (KIP-745): the connector, and its tasks if asked, failed or not. */
    public void restartConnector(String name, boolean includeTasks) {
        send("POST", "/connectors/" + enc(name) + "/restart?includeTasks=" + includeTasks + "&onlyFailed=false",
                null, Set.of(200, 202, 204));
    }

    public void pause(String name) {
        send("PUT", "/connectors/" + enc(name) + "/pause", null, Set.of(202));
    }

    public void resume(String name) {
        send("PUT", "/connectors/" + enc(name) + "/resume", null, Set.of(202));
    }

    /** PUT /connectors/{name}/stop (KIP-875): STOPPED, tasks shut down; needed before offsets can change. */
    public void stop(String name) {
        send("PUT", "/connectors/" + enc(name) + "/stop", null, Set.of(202, 204));
    }

    /**
     * Stop (KIP-875), wait until the status says STOPPED with no task, then resume: the task is certainly a new
     * one when {@link #awaitRunning} next sees RUNNING. A plain restart gives no such barrier: the status topic
     * may still show the old task RUNNING right after the restart request.
     */
    public void stopAndResume(String name, Duration timeout) {
        stop(name);
        Waits.until(timeout, Duration.ofMillis(200), () -> statusOrEmpty(name),
                status -> "STOPPED".equals(status.path("connector").path("state").asText()) && status.path("tasks").isEmpty(),
                status -> "connector " + name + " not STOPPED without tasks within " + timeout + "; last status:\n"
                        + status.toPrettyString());
        resume(name);
    }

    /** GET /connectors/{name}/tasks: each task's config as the connector generated it, in task order. */
    public List<Map<String, String>> taskConfigs(String name) {
        JsonNode answer = parse(send("GET", "/connectors/" + enc(name) + "/tasks", null, Set.of(200)).body());
        List<Map<String, String>> out = new ArrayList<>();
        for (JsonNode task : answer) {
            Map<String, String> config = new LinkedHashMap<>();
            task.path("config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
            out.add(config);
        }
        return out;
    }

    /** GET /connectors/{name}/offsets (KIP-875). */
    public JsonNode offsets(String name) {
        return parse(send("GET", "/connectors/" + enc(name) + "/offsets", null, Set.of(200)).body());
    }

    /** The source offset the worker holds for one collection of a Tideline source, empty if none. */
    public Optional<SourceOffset> sourceOffset(String name, Namespace ns) {
        return sourceOffsetMap(name, ns).map(SourceOffset::fromMap);
    }

    /** The offset map the worker holds for one collection of a Tideline source (with what rides along), empty if none. */
    @SuppressWarnings("unchecked")
    public Optional<Map<String, Object>> sourceOffsetMap(String name, Namespace ns) {
        for (JsonNode o : offsets(name).path("offsets")) {
            if (JSON.convertValue(o.get("partition"), Map.class).equals(SourcePartition.of(ns))) {
                return Optional.of(JSON.convertValue(o.get("offset"), Map.class));
            }
        }
        return Optional.empty();
    }

    /**
     * Waits until the worker has committed a resume token for one collection of a Tideline source:
     * the capture streams, and a restart resumes after that token (not from a start time).
     */
    public SourceOffset awaitCommittedToken(String name, Namespace ns, Duration timeout) {
        return awaitSourceOffset(name, ns, o -> o.token() != null, "a resume token", timeout);
    }

    /** Waits until the offset the worker has committed for one collection of a Tideline source matches. */
    public SourceOffset awaitSourceOffset(String name, Namespace ns, Predicate<SourceOffset> condition, String what,
                                          Duration timeout) {
        return Waits.until(timeout, Duration.ofMillis(200), () -> sourceOffset(name, ns),
                offset -> offset.isPresent() && condition.test(offset.get()),
                offset -> "no offset with " + what + " committed for " + ns + " by " + name + " within "
                        + timeout + "; last offset: " + (offset == null ? null : offset.orElse(null))).get();
    }

    /** PATCH /connectors/{name}/offsets; the raw answer, since tests check refusals too. */
    public HttpResponse<String> patchOffsets(String name, String body) {
        return send("PATCH", "/connectors/" + enc(name) + "/offsets", body, null);
    }

    /** DELETE /connectors/{name}/offsets; the raw answer, since tests check refusals too. */
    public HttpResponse<String> deleteOffsets(String name) {
        return send("DELETE", "/connectors/" + enc(name) + "/offsets", null, null);
    }

    /**
     * PUT /connector-plugins/{class}/config/validate. Returns the error messages per config key,
     * only for keys that have errors ({@code connector.class} is added to the config if absent).
     */
    public Map<String, List<String>> validate(String connectorClass, Map<String, String> config) {
        Map<String, String> body = new LinkedHashMap<>(config);
        body.putIfAbsent("connector.class", connectorClass);
        JsonNode answer = parse(send("PUT", "/connector-plugins/" + enc(connectorClass) + "/config/validate",
                toJson(body), Set.of(200)).body());
        Map<String, List<String>> errors = new LinkedHashMap<>();
        for (JsonNode entry : answer.path("configs")) {
            JsonNode value = entry.path("value");
            List<String> messages = new ArrayList<>();
            value.path("errors").forEach(e -> messages.add(e.asText()));
            if (!messages.isEmpty()) {
                errors.put(value.path("name").asText(), messages);
            }
        }
        return errors;
    }

    /** The class names of GET /connector-plugins?connectorsOnly=true. */
    public List<String> connectorPlugins() {
        return pluginClasses(true);
    }

    /** Every plugin class: connectors, converters, transformations, predicates. */
    public List<String> allPlugins() {
        return pluginClasses(false);
    }

    private List<String> pluginClasses(boolean connectorsOnly) {
        JsonNode answer = parse(send("GET", "/connector-plugins?connectorsOnly=" + connectorsOnly, null, Set.of(200)).body());
        List<String> classes = new ArrayList<>();
        answer.forEach(plugin -> classes.add(plugin.path("class").asText()));
        return classes;
    }

    /**
     * Sends a request; with {@code expected} null the answer is returned whatever its status.
     * 409 (rebalance in progress), and a 500 because the worker could not reach the group's leader
     * (a leader that was just killed, until the group elects another) or a rebalance is expected, are retried when a status set
     * is expected: the group's transient state, not the test's concern. Raw calls return them as is.
     */
    private HttpResponse<String> send(String method, String path, String body, Set<Integer> expected) {
        AtomicReference<HttpResponse<String>> last = new AtomicReference<>();
        try {
            Waits.await(method + " " + path + " answered past the group's transition", CONFLICT_RETRY, Duration.ofMillis(250))
                    .until(() -> {
                        HttpResponse<String> response = sendOnce(method, path, body);
                        last.set(response);
                        return !(isGroupInTransition(response) && expected != null && !expected.contains(response.statusCode()));
                    });
        } catch (ConditionTimeoutException stillInTransition) {
            // the last answer is judged below like any other
        }
        HttpResponse<String> response = last.get();
        if (expected != null && !expected.contains(response.statusCode())) {
            throw new IllegalStateException(method + " " + baseUrl + path + " answered " + response.statusCode()
                    + " (expected " + expected + "): " + response.body());
        }
        return response;
    }

    private HttpResponse<String> sendOnce(String method, String path, String body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + baseUrl + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + method + " " + path, e);
        }
    }

    private static boolean isGroupInTransition(HttpResponse<String> response) {
        // Connect answers a failed forward to the leader with 500 and the first message (RestClient, Kafka 3.x/4.x), and a
        // request that meets a rebalance the worker has been told of but not begun with 500 and the second (Kafka 4.x):
        // the status alone does not tell them from a real server error
        return response.statusCode() == 409
                || response.statusCode() == 500 && (response.body().contains("IO Error trying to forward REST request")
                        || response.body().contains("a rebalance is expected"));
    }

    private static String enc(String pathSegment) {
        return URLEncoder.encode(pathSegment, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String toJson(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot serialize " + value, e);
        }
    }

    private static JsonNode parse(String body) {
        try {
            return JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("not JSON: " + body, e);
        }
    }
}

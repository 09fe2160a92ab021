package dev.tideline.registry;

import io.apicurio.registry.rest.client.RegistryClient;
import io.apicurio.registry.rest.v2.beans.ArtifactMetaData;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A schema registry in memory, behind Apicurio's own client interface: what Apicurio's serdes call to register a
 * schema (createArtifact) and to fetch it by the id a record carries (getContentByGlobalId / ById). Stands in for a
 * running registry, which cannot run here (docs/record-formats.md#schema-registry); any other call fails loudly,
 * naming the method, so the test cannot pass on something this does not do.
 */
final class InMemoryRegistry {
    /** An artifact as registered: its group, id, version and content. */
    record Artifact(String group, String id, long globalId, String content) {
    }

    private final Map<Long, Artifact> byGlobalId = new ConcurrentHashMap<>();
    private final Map<String, Artifact> byContent = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final RegistryClient client = (RegistryClient) Proxy.newProxyInstance(RegistryClient.class.getClassLoader(),
            new Class<?>[] {RegistryClient.class}, (proxy, method, args) -> call(method, args));

    RegistryClient client() {
        return client;
    }

    Map<Long, Artifact> artifacts() {
        return Map.copyOf(byGlobalId);
    }

    private Object call(Method method, Object[] args) {
        switch (method.getName()) {
            case "createArtifact" -> {
                // (group, artifactId, version, type, ifExists, canonical, [name, description, ...], content[, references])
                InputStream content = null;
                for (Object a : args) {
                    if (a instanceof InputStream in) {
                        content = in;
                    }
                }
                String text = read(content);
                String group = (String) args[0];
                String id = (String) args[1];
                // ifExists=RETURN_OR_UPDATE: the same schema again is the same artifact version
                Artifact a = byContent.computeIfAbsent(group + "/" + id + "/" + text,
                        k -> new Artifact(group, id, ids.incrementAndGet(), text));
                byGlobalId.put(a.globalId(), a);
                ArtifactMetaData meta = new ArtifactMetaData();
                meta.setGroupId(group);
                meta.setId(id);
                meta.setVersion("1");
                meta.setGlobalId(a.globalId());
                meta.setContentId(a.globalId());
                return meta;
            }
            case "getContentByGlobalId", "getContentById" -> {
                Artifact a = byGlobalId.get((Long) args[0]);
                if (a == null) {
                    throw new IllegalArgumentException("no artifact with id " + args[0]);
                }
                return new ByteArrayInputStream(a.content().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            case "getArtifactReferencesByGlobalId", "getArtifactReferencesByContentId" -> {
                return List.of();
            }
            case "close" -> {
                return null;
            }
            default -> throw new UnsupportedOperationException("the in-memory registry does not do " + method);
        }
    }

    private static String read(InputStream in) {
        try {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package dev.tideline.standin;

import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.testcontainers.mongodb.MongoDBContainer;

/**
 * A MongoDB for one test. Tests use their own database names, since with {@code MONGO_URI} or a
 * container the server is shared.
 *
 * <ul>
 *   <li>{@link #withOplog()}: {@code MONGO_URI} if set; else a Testcontainers single-node replica
 *       set where a Docker engine exists; else an in-process mongo-java-server with its oplog on
 *       (docs/mongodb-stand-in.md says how it differs from MongoDB).</li>
 *   <li>{@link #withoutOplog()}: always an in-process mongo-java-server without oplog, a server that
 *       cannot serve change streams (a real replica set always can).</li>
 * </ul>
 * In-process servers bind 127.0.0.1 on a free port, so the worker's child JVM reaches them too.
 */
public final class MongoFixture implements AutoCloseable {
    private static MongoDBContainer replicaSet;

    private final String uri;
    private final MongoClient client;
    private final MongoServer server; // null unless in-process
    private final String description;

    private MongoFixture(String uri, MongoServer server, String description) {
        this.uri = uri;
        this.server = server;
        this.description = description;
        this.client = MongoClients.create(uri);
    }

    public static MongoFixture withOplog() {
        Optional<String> external = Optional.ofNullable(System.getenv("MONGO_URI")).filter(s -> !s.isBlank());
        if (external.isPresent()) {
            return new MongoFixture(external.get(), null, "MONGO_URI");
        }
        if (Docker.isAvailable()) {
            return new MongoFixture(containerUri(), null, "Testcontainers replica set");
        }
        return inProcess(true);
    }

    public static MongoFixture withoutOplog() {
        return inProcess(false);
    }

    /**
     * As {@link #withOplog()}, with {@code preload} written before the oplog starts. On a real MongoDB a
     * bulk load made long before a connector starts has rolled out of the capped oplog; the stand-in's
     * oplog is not capped unless a test caps it, and keeps a copy of every document written, so a load of
     * 100,000 documents would cost that much heap again. Here the load never enters the stand-in's oplog;
     * external servers and containers just get the writes.
     */
    public static MongoFixture withOplogAfter(java.util.function.Consumer<MongoClient> preload) {
        if (System.getenv("MONGO_URI") != null && !System.getenv("MONGO_URI").isBlank() || Docker.isAvailable()) {
            MongoFixture f = withOplog();
            preload.accept(f.client());
            return f;
        }
        MongoFixture f = inProcess(false);
        preload.accept(f.client());
        f.server.enableOplog();
        return f;
    }

    /** The in-process stand-in; the sandbox uses it directly. */
    static MongoFixture inProcess(boolean oplog) {
        return inProcess(new AwaitingMemoryBackend(), oplog);
    }

    /** An in-process stand-in on a backend of the test's choosing, e.g. {@link FaultInjectingBackend}. */
    public static MongoFixture inProcess(MongoBackend backend, boolean oplog) {
        MongoServer server = new MongoServer(backend);
        if (oplog) {
            server.enableOplog();
        }
        server.bind("127.0.0.1", 0);
        InetSocketAddress address = server.getLocalAddress();
        String uri = "mongodb://127.0.0.1:" + address.getPort() + "/";
        StackLog.info("mongo-java-server " + (oplog ? "with" : "without") + " oplog at " + uri);
        return new MongoFixture(uri, server, "mongo-java-server " + (oplog ? "with" : "without") + " oplog");
    }

    /**
     * One container per JVM (starting one per test would cost seconds each). The container
     * publishes 27017 on a random host port; directConnection=true makes the driver (ours and the
     * worker's, a child JVM on this host) talk to that mapped port instead of following the replica
     * set's member address, which is the container-internal one.
     */
    private static synchronized String containerUri() {
        if (replicaSet == null) {
            replicaSet = new MongoDBContainer("mongo:8.0").withReplicaSet();
            replicaSet.start();
            Runtime.getRuntime().addShutdownHook(new Thread(replicaSet::stop, "tideline-mongo-container-stop"));
            StackLog.info("started MongoDB replica set container at " + replicaSet.getReplicaSetUrl());
        }
        return "mongodb://" + replicaSet.getHost() + ":" + replicaSet.getMappedPort(27017) + "/?directConnection=true";
    }

    /** {@code mongodb://host:port/...}: what connectors get as {@code mongodb.uri}. */
    public String uri() {
        return uri;
    }

    /** The port of the server (of the container's mapped port, or the one in {@code MONGO_URI}). */
    public int port() {
        return new com.mongodb.ConnectionString(uri).getHosts().stream().findFirst()
                .map(h -> Integer.parseInt(h.substring(h.lastIndexOf(':') + 1))).orElseThrow();
    }

    /** A driver client for the test itself (closed by {@link #close()}). */
    public MongoClient client() {
        return client;
    }

    /** The in-process server, for tests that need to inject faults into it; empty for external servers. */
    public Optional<MongoServer> server() {
        return Optional.ofNullable(server);
    }

    /**
     * Whether a change stream can be opened: asked of the server by opening one, rather than read
     * from {@code hello}, which the stand-in does not answer.
     */
    public boolean servesChangeStreams() {
        try (MongoCursor<ChangeStreamDocument<Document>> cursor = client.getDatabase("tideline_probe")
                .getCollection("probe").watch().maxAwaitTime(10, TimeUnit.MILLISECONDS).cursor()) {
            cursor.tryNext();
            return true;
        } catch (MongoException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return description + " at " + uri;
    }

    /** Closes the client; stops the server only if it is in-process (shared servers keep their data). */
    @Override
    public void close() {
        client.close();
        if (server != null) {
            server.shutdownNow();
        }
    }
}

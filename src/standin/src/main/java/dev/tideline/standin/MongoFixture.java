package dev.tideline.standin;

import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
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
 *       set where a Docker engine exists; else the in-process stand-in as a replica set of three members
 *       ({@link ReplicaSet}: three ports, one shared backend), reached with {@code replicaSet=} so that drivers
 *       run their replica-set topology (docs/mongodb-stand-in.md says how it differs from MongoDB).</li>
 *   <li>{@link #withoutOplog()}: always an in-process mongo-java-server without oplog, a server that
 *       cannot serve change streams (a real replica set always can).</li>
 * </ul>
 * In-process servers bind 127.0.0.1 on a free port, so the worker's child JVM reaches them too.
 */
public final class MongoFixture implements AutoCloseable {
    private static MongoDBContainer replicaSet;

    /** The in-process stand-in's replica-set name. */
    public static final String REPLICA_SET_NAME = "tideline-rs";
    private static final int MEMBERS = 3;

    private final String uri;
    private final MongoClient client;
    private final List<MongoServer> servers; // empty unless in-process
    private final MongoBackend backend; // null unless in-process
    private final String description;

    private MongoFixture(String uri, List<MongoServer> servers, MongoBackend backend, String description) {
        this.uri = uri;
        this.servers = new java.util.concurrent.CopyOnWriteArrayList<>(servers);
        this.backend = backend;
        this.description = description;
        this.client = MongoClients.create(uri);
    }

    public static MongoFixture withOplog() {
        Optional<String> external = Optional.ofNullable(System.getenv("MONGO_URI")).filter(s -> !s.isBlank());
        if (external.isPresent()) {
            return new MongoFixture(external.get(), List.of(), null, "MONGO_URI");
        }
        if (Docker.isAvailable()) {
            return new MongoFixture(containerUri(), List.of(), null, "Testcontainers replica set");
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
        return inProcessOplogAfter(new AwaitingMemoryBackend(), preload);
    }

    /** The in-process replica set on {@code backend}, with {@code preload} written before its oplog starts (see above). */
    public static MongoFixture inProcessOplogAfter(AwaitingMemoryBackend backend, java.util.function.Consumer<MongoClient> preload) {
        MongoFixture f = replicaSet(backend, false);
        preload.accept(f.client());
        f.servers.get(0).enableOplog();
        return f;
    }

    /** The in-process stand-in; the sandbox uses it directly. */
    static MongoFixture inProcess(boolean oplog) {
        return inProcess(new AwaitingMemoryBackend(), oplog);
    }

    /**
     * An in-process stand-in on a backend of the test's choosing, e.g. {@link FaultInjectingBackend}: with its oplog,
     * a replica set of three members on {@code backend} (an {@link AwaitingMemoryBackend}); without, a standalone
     * server, which cannot serve change streams.
     */
    public static MongoFixture inProcess(MongoBackend backend, boolean oplog) {
        if (oplog && backend instanceof AwaitingMemoryBackend standIn) {
            return replicaSet(standIn, true);
        }
        MongoServer server = new MongoServer(backend);
        if (oplog) {
            server.enableOplog();
        }
        server.bind("127.0.0.1", 0);
        InetSocketAddress address = server.getLocalAddress();
        String uri = "mongodb://127.0.0.1:" + address.getPort() + "/";
        StackLog.info("mongo-java-server " + (oplog ? "with" : "without") + " oplog at " + uri);
        return new MongoFixture(uri, List.of(server), backend, "mongo-java-server " + (oplog ? "with" : "without") + " oplog");
    }

    /**
     * Three member endpoints (ports of 127.0.0.1) on one backend, announced by their own ports; the first is primary.
     * The URI names all three and the set, as applications reach a replica set
     * (https://www.mongodb.com/docs/manual/reference/connection-string/#replica-set-option).
     */
    private static MongoFixture replicaSet(AwaitingMemoryBackend backend, boolean oplog) {
        List<MongoServer> members = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            MongoServer member = new MongoServer(backend);
            member.bind("127.0.0.1", 0);
            members.add(member);
        }
        if (oplog) {
            members.get(0).enableOplog(); // the backend's, shared by all members
        }
        List<Integer> ports = members.stream().map(m -> m.getLocalAddress().getPort()).toList();
        ReplicaSet set = new ReplicaSet(REPLICA_SET_NAME, ports);
        backend.replicaSet(set);
        String uri = "mongodb://" + String.join(",", set.hosts()) + "/?replicaSet=" + REPLICA_SET_NAME;
        StackLog.info("stand-in replica set " + (oplog ? "with" : "without") + " oplog at " + uri);
        return new MongoFixture(uri, members, backend, "stand-in replica set");
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

    /**
     * The port of the server: of the in-process replica set's primary now (what a proxy in front of "the server" must
     * reach to take writes), else the container's mapped port or the first in {@code MONGO_URI}.
     */
    public int port() {
        String host = replicaSet().map(set -> set.hosts().get(set.primary()))
                .orElseGet(() -> new com.mongodb.ConnectionString(uri).getHosts().get(0));
        return Integer.parseInt(host.substring(host.lastIndexOf(':') + 1));
    }

    /** A driver client for the test itself (closed by {@link #close()}). */
    public MongoClient client() {
        return client;
    }

    /** The in-process servers (one per replica-set member), for tests that stop them; empty for external servers. */
    public List<MongoServer> servers() {
        return servers;
    }

    /**
     * Every member of the in-process replica set stops, as a whole deployment going down: connections reset, ports
     * closed, every cursor gone. The backend keeps its data and oplog only when told to
     * ({@link AwaitingMemoryBackend#keepDataOnClose()}), as a mongod keeps what it has on disk.
     */
    public void stopServers() {
        replicaSet().orElseThrow(() -> new IllegalStateException("only the in-process replica set restarts on demand; this is " + this));
        servers.forEach(MongoServer::shutdownNow);
    }

    /** Every member stopped by {@link #stopServers()} starts again on its own port, over the same backend. */
    public void startServers() {
        List<String> hosts = replicaSet().orElseThrow(() -> new IllegalStateException("not an in-process replica set: " + this)).hosts();
        for (int i = 0; i < servers.size(); i++) {
            MongoServer member = new MongoServer(backend);
            member.bind("127.0.0.1", Integer.parseInt(hosts.get(i).substring(hosts.get(i).lastIndexOf(':') + 1)));
            servers.set(i, member);
        }
    }

    /** The in-process replica set, for tests that step its primary down; empty for external or standalone servers. */
    public Optional<ReplicaSet> replicaSet() {
        return backend instanceof AwaitingMemoryBackend standIn ? standIn.replicaSet() : Optional.empty();
    }

    /**
     * The primary steps down and the next member is elected ({@link AwaitingMemoryBackend#stepDown()}); only the
     * in-process replica set can be told to.
     */
    public void stepDown() {
        if (!(backend instanceof AwaitingMemoryBackend standIn) || standIn.replicaSet().isEmpty()) {
            throw new IllegalStateException("only the in-process replica set steps down on demand; this is " + this);
        }
        standIn.stepDown();
    }

    /**
     * Whether a change stream can be opened: asked of the server by opening one, rather than read
     * from {@code hello} (a replica set always can; a standalone cannot).
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
        for (MongoServer server : servers) {
            server.shutdownNow();
        }
    }
}

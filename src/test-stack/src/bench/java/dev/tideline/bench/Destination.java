package dev.tideline.bench;

import de.bwaldvogel.mongo.MongoServer;

/** A fresh destination (the project's stand-in) on 127.0.0.1 that records when each {@code bench.c} document is written. */
final class Destination implements AutoCloseable {
    private final RecordingBackend backend;
    private final MongoServer server;
    private final String uri;

    private Destination(RecordingBackend backend, MongoServer server, String uri) {
        this.backend = backend;
        this.server = server;
        this.uri = uri;
    }

    static Destination start() {
        RecordingBackend backend = new RecordingBackend(ConnectorConfigs.NAMESPACE);
        MongoServer server = new MongoServer(backend);
        server.enableOplog(); // turns the recording hooks on; the oplog is capped small
        server.bind("127.0.0.1", 0);
        return new Destination(backend, server, "mongodb://127.0.0.1:" + server.getLocalAddress().getPort() + "/");
    }

    RecordingBackend backend() {
        return backend;
    }

    String uri() {
        return uri;
    }

    @Override
    public void close() {
        server.shutdownNow();
    }
}

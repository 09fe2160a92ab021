package dev.tideline.standin;

import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.Oplog;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import io.netty.channel.Channel;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * The MongoDB stand-in: mongo-java-server's in-memory backend, extended to answer as a single-node
 * replica set does where the tests depend on it (docs/mongodb-stand-in.md lists what differs and what
 * this adds). Change streams ({@link ChangeStreams}) read an oplog kept in order
 * ({@link IndexedOplog}); an awaiting getMore defers its reply instead of holding its connection's
 * event loop ({@link AwaitingGetMore}); collection-level commands are logged so that streams report
 * them ({@link Ddl}); binary subtypes and deprecated BSON types are kept ({@link LosslessWire}). Started without an oplog
 * it is a standalone server, which cannot serve change streams (40573).
 *
 * <p>Public so that the benchmark can watch what clients ask of it (dev.tideline.bench.FirstReadBackend)
 * and tests can inject faults (FaultInjectingBackend) or set its limits.
 */
public class AwaitingMemoryBackend extends MemoryBackend {
    /**
     * MongoDB writes one document atomically (https://www.mongodb.com/docs/manual/core/write-operations-atomicity/).
     * The stand-in checks and then changes without a lock between (two inserts of one {@code _id} can both pass the
     * duplicate-key check; a conditional replace can match a document another writer changes before it is replaced):
     * its write commands run one at a time here, which is at least as strict. Collection-level commands too, so that
     * their oplog entries come in the order they happened. Committing and aborting a transaction are writes too
     * (only a primary takes them).
     */
    static final Set<String> WRITES = Set.of("insert", "update", "delete", "findandmodify", "create", "createindexes",
            "drop", "dropindexes", "renamecollection", "dropdatabase", "collmod", "committransaction", "aborttransaction");
    private static final Set<String> VIEW_READS = Set.of("find", "aggregate", "count", "distinct");

    private final Object writeLock = new Object();
    private final LongAdder keysExamined = new LongAdder();
    private final CollectionCatalog catalog = new CollectionCatalog();
    private final AwaitingGetMore.Waiters waiters = new AwaitingGetMore.Waiters();
    private final AwaitingGetMore.Answers answers = new GetMoreAnswers();
    private final Views views = new Views(this, catalog);
    private final CollectionListing listing = new CollectionListing(this, catalog);
    private final Ddl ddl = new Ddl(this, catalog, views, () -> this.indexedOplog);
    private volatile IndexedOplog indexedOplog;
    private volatile ChangeStreams changeStreams;
    private volatile long maxEventBytes = 16L * 1024 * 1024;
    private volatile boolean splitStageSupported = true;
    private volatile long oplogMaxEntries;
    private volatile long oplogMaxBytes;
    private volatile boolean keepDataOnClose;
    private final LongAdder documentsExamined = new LongAdder();

    private volatile ReplicaSet replicaSet;
    private final RetryableWrites retryableWrites = new RetryableWrites();
    private final TransactionCommands transactions = new TransactionCommands(writeLock, () -> this.indexedOplog);
    private final WriteCommands writeCommands = new WriteCommands(ddl, views);

    /** Databases whose collections refuse the {@code _id}s MongoDB refuses ({@link StandInDatabase}). */
    @Override
    public MemoryDatabase openOrCreateDatabase(String databaseName) {
        return new StandInDatabase(databaseName, getCursorRegistry(), keysExamined, documentsExamined);
    }

    /**
     * Index keys examined so far by queries answered from an ordered {@code _id} index ({@link OrderedIdIndex}), as
     * MongoDB counts {@code keysExamined}: a query on an {@code _id} range sorted by {@code _id} walks from the
     * range's start, skipped keys included.
     */
    public long indexKeysExamined() {
        return keysExamined.sum();
    }

    /**
     * Documents examined by queries, updates, deletes and findAndModify so far, as MongoDB's {@code docsExamined}
     * counts them (https://www.mongodb.com/docs/manual/reference/explain-results/): a lookup on the {@code _id} index
     * examines the documents it finds, a collection scan every document.
     */
    public long documentsExamined() {
        return documentsExamined.sum();
    }

    @Override
    protected Oplog createOplog() {
        IndexedOplog oplog = new IndexedOplog(this, catalog, waiters::written);
        oplog.cap(oplogMaxEntries, oplogMaxBytes);
        ChangeStreams streams = new ChangeStreams(oplog, getCursorRegistry(), catalog, this::resolveDatabase);
        streams.maxEventBytes(maxEventBytes);
        streams.splitStageSupported(splitStageSupported);
        indexedOplog = oplog;
        changeStreams = streams;
        return oplog;
    }

    /**
     * The largest change event the server returns whole: MongoDB's limit is 16 MiB (BSONObjectTooLarge, 10334,
     * beyond it); a test lowers it to make such events with small documents.
     */
    public AwaitingMemoryBackend maxEventBytes(long bytes) {
        this.maxEventBytes = bytes;
        ChangeStreams streams = changeStreams;
        if (streams != null) {
            streams.maxEventBytes(bytes);
        }
        return this;
    }

    /** false: the server answers {@code $changeStreamSplitLargeEvent} as one older than MongoDB 6.0.9 (40324). */
    public AwaitingMemoryBackend splitLargeEventStage(boolean supported) {
        this.splitStageSupported = supported;
        ChangeStreams streams = changeStreams;
        if (streams != null) {
            streams.splitStageSupported(supported);
        }
        return this;
    }

    /**
     * Caps the oplog, as MongoDB's is capped: at most {@code maxEntries} entries and {@code maxBytes} bytes
     * (0: no cap of that kind); resuming before the oldest entry left answers ChangeStreamHistoryLost (286).
     */
    public AwaitingMemoryBackend capOplog(long maxEntries, long maxBytes) {
        this.oplogMaxEntries = maxEntries;
        this.oplogMaxBytes = maxBytes;
        IndexedOplog oplog = indexedOplog;
        if (oplog != null) {
            oplog.cap(maxEntries, maxBytes);
        }
        return this;
    }

    /**
     * Oplog entries examined by change-stream reads so far: each read examines the entries from its position on,
     * as a MongoDB oplog scan does, so N streams on one busy namespace examine each write N times.
     */
    public long oplogEntriesExamined() {
        IndexedOplog oplog = indexedOplog;
        return oplog == null ? 0 : oplog.entriesExamined();
    }

    /** Entries the oplog holds now (0 without an oplog). */
    public int oplogSize() {
        IndexedOplog oplog = indexedOplog;
        return oplog == null ? 0 : oplog.size();
    }

    /** Change-stream getMores waiting for data now. */
    public int awaitingGetMores() {
        return waiters.size();
    }

    /**
     * Makes the next {@code close()} (which {@code MongoServer.shutdownNow()} calls) behave as a mongod restart
     * does to what it had on disk: databases and the oplog stay, the process's cursors are gone (a getMore on
     * one answers CursorNotFound, 43: https://www.mongodb.com/docs/manual/reference/command/getMore/). A new
     * {@code MongoServer} over this backend, without {@code enableOplog()} again, is the restarted process.
     */
    public AwaitingMemoryBackend keepDataOnClose() {
        this.keepDataOnClose = true;
        return this;
    }

    @Override
    public void close() {
        if (!keepDataOnClose) {
            super.close();
            return;
        }
        try {
            // CursorRegistry has no way to list its cursors; the restart forgets all of them
            java.lang.reflect.Field cursors = de.bwaldvogel.mongo.backend.CursorRegistry.class.getDeclaredField("cursors");
            cursors.setAccessible(true);
            ((Map<?, ?>) cursors.get(getCursorRegistry())).clear();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot forget the cursors of the stopped server", e);
        }
    }

    /**
     * Makes the endpoints listening on {@code replicaSet}'s ports its members (docs/mongodb-stand-in.md): each answers
     * {@code hello} for itself, only the primary writes. Without it the server is a single node.
     */
    public AwaitingMemoryBackend replicaSet(ReplicaSet replicaSet) {
        this.replicaSet = replicaSet;
        return this;
    }

    /** The topology set by {@link #replicaSet(ReplicaSet)}, if any. */
    public java.util.Optional<ReplicaSet> replicaSet() {
        return java.util.Optional.ofNullable(replicaSet);
    }

    /**
     * A chunk migration of the documents of {@code database.collection} with these {@code _id}s to another shard
     * ({@link ChunkMigration}): the data stays as it is, the oplog gets the recipient's inserts and the donor's
     * deletes, all {@code fromMigrate: true}. Taken between two writes, as every write here.
     *
     * @return how many documents the chunk held
     */
    public int migrateChunk(String database, String collection, java.util.Collection<?> ids) {
        IndexedOplog oplog = indexedOplog;
        if (oplog == null) {
            throw new IllegalStateException("a chunk migration is logged in the oplog: start the stand-in with one");
        }
        synchronized (writeLock) {
            return ChunkMigration.migrate(oplog, database + "." + collection, ids);
        }
    }

    /** Writes outside transactions waiting now for a transaction that wrote one of their documents to end. */
    public int writesWaitingForTransactions() {
        return transactions.waitingWrites();
    }

    /**
     * MongoDB's {@code transactionLifetimeLimitSeconds} (60 by default): a transaction open longer is aborted, at the
     * latest when a write waits for it.
     */
    public AwaitingMemoryBackend transactionLifetimeLimit(java.time.Duration limit) {
        transactions.lifetimeLimit(limit);
        return this;
    }

    /**
     * The primary steps down ({@link ReplicaSet#stepDown()}) between two writes, as MongoDB's step-down takes the
     * lock every write holds (the RSTL) before the node changes state.
     */
    public void stepDown() {
        ReplicaSet set = replicaSet;
        if (set == null) {
            throw new IllegalStateException("a single node cannot step down: the stand-in runs without a replica set");
        }
        synchronized (writeLock) {
            set.stepDown();
            transactions.abortAll(); // MongoDB aborts the transactions open on a primary that steps down
        }
    }

    /**
     * Every command of a client. Replies of a replica-set member carry the {@code operationTime} of its latest
     * write (https://www.mongodb.com/docs/manual/reference/command/#command-responses): drivers advance a causally
     * consistent session from it and send it back as {@code readConcern.afterClusterTime}, checked here.
     */
    @Override
    public Document handleCommand(Channel channel, String databaseName, String command, Document query) {
        if (channel != null) {
            LosslessWire.install(channel);
            AwaitingGetMore.install(channel, answers, waiters);
            transactions.install(channel, this::handleMessage);
        }
        String name = command.toLowerCase(Locale.ROOT);
        ReplicaSet set = replicaSet;
        int member = set == null ? -1 : set.memberOf(channel);
        if (member >= 0) {
            AwaitableHello.install(channel, set, this::handleMessage);
        }
        if (ReplicaSet.isHello(name)) {
            return withOperationTime(hello(channel, set, member, name, query));
        }
        if (member >= 0 && !WRITES.contains(name)) {
            Document refused = set.refusal(member, name, query);
            if (refused != null) {
                return refused;
            }
        }
        ReadConcerns.check(query, indexedOplog);
        if (PointInTimeReads.isOne(name, query) && !Transactions.isInTransaction(query)) {
            // one at a time with the writes: a write changes its collection, then logs (the history is read after the
            // document as it is now), and takes the locks in that order, as this read does
            synchronized (writeLock) {
                return withOperationTime(PointInTimeReads.find(databaseName, query, indexedOplog, getClock()));
            }
        }
        if (Transactions.endsTransaction(name) || Transactions.isInTransaction(query)) {
            return withOperationTime(transactions.run(set, member, name, query,
                    () -> answer(channel, databaseName, command, name, query, member)));
        }
        if (name.equals("endsessions")) {
            transactions.endSessions(query);
        }
        if (VIEW_READS.contains(name) || name.equals("getmore")) { // a change stream's updateLookup reads documents too
            return withOperationTime(transactions.read(() -> answer(channel, databaseName, command, name, query, member)));
        }
        return withOperationTime(answer(channel, databaseName, command, name, query, member));
    }

    /**
     * {@code hello} and legacy {@code isMaster}: mongo-java-server's own answer (sizes, wire versions), with what a
     * member says of the replica set ({@link ReplicaSet#hello}), or as a standalone MongoDB answers
     * (https://www.mongodb.com/docs/manual/reference/command/hello/): sessions announced (drivers refuse explicit
     * sessions without {@code logicalSessionTimeoutMinutes}), {@code helloOk} when the client asked for it.
     */
    private Document hello(Channel channel, ReplicaSet set, int member, String name, Document query) {
        boolean legacy = name.equals("ismaster");
        Document reply = super.handleCommand(channel, "admin", "isMaster", query);
        if (Boolean.TRUE.equals(query.get("helloOk"))) {
            reply.put("helloOk", true);
        }
        if (member >= 0) {
            IndexedOplog oplog = indexedOplog;
            return set.hello(member, legacy, reply, oplog == null ? null : oplog.operationTime());
        }
        if (!legacy) {
            reply.put("isWritablePrimary", reply.remove("ismaster"));
        }
        reply.putIfAbsent("logicalSessionTimeoutMinutes", ReplicaSet.SESSION_TIMEOUT_MINUTES);
        return reply;
    }

    private Document answer(Channel channel, String databaseName, String command, String name, Document query, int member) {
        if (name.equals("aggregate") && ChangeStreamSpec.isChangeStream(query)) {
            ChangeStreams streams = changeStreams;
            if (streams == null) {
                throw ServerErrors.changeStreamsNeedAReplicaSet();
            }
            return streams.open(databaseName, query);
        }
        if (name.equals("getmore") && answers.isChangeStreamGetMore(query)) {
            return changeStreams.getMore(query);
        }
        if (WRITES.contains(name)) {
            synchronized (writeLock) {
                Document refused = member < 0 ? null : replicaSet.refusal(member, name, query);
                if (refused == null) {
                    refused = transactions.mustWait(resolveDatabase(databaseName), name, query);
                }
                if (refused != null) {
                    return refused;
                }
                return retryableWrites.once(name, query, () -> write(channel, databaseName, command, name, query));
            }
        }
        if (VIEW_READS.contains(name)) {
            Document throughView = views.read(databaseName, name, query, command,
                    aggregate -> super.handleCommand(channel, databaseName, "aggregate", aggregate));
            if (throughView != null) {
                return throughView;
            }
        }
        if (name.equals("aggregate")) {
            Document fromIdIndex = IdMatchAggregate.answer(resolveDatabase(databaseName), query, this::resolveDatabase);
            if (fromIdIndex != null) {
                return fromIdIndex;
            }
        }
        if (name.equals("connectionstatus")) {
            return ConnectionStatus.reply(query);
        }
        if (name.equals("listcollections")) {
            return listing.list(databaseName, query, super.handleCommand(channel, databaseName, command, query));
        }
        return super.handleCommand(channel, databaseName, command, query);
    }

    private Document withOperationTime(Document reply) {
        IndexedOplog oplog = indexedOplog;
        if (oplog != null && Ddl.isOk(reply) && !reply.containsKey("operationTime")) {
            reply.put("operationTime", oplog.operationTime());
        }
        return reply;
    }

    private Document write(Channel channel, String databaseName, String command, String name, Document query) {
        return writeCommands.write(databaseName, command, name, query, q -> super.handleCommand(channel, databaseName, command, q));
    }

    /** What the {@link AwaitingGetMore} handler of each connection asks of this backend. */
    private final class GetMoreAnswers implements AwaitingGetMore.Answers {
        @Override
        public boolean isChangeStreamGetMore(Document query) {
            ChangeStreams streams = changeStreams;
            return streams != null && query.get("getMore") instanceof Number id && streams.isChangeStream(id.longValue());
        }

        @Override
        public Predicate<String> wakesOn(Document query) {
            return changeStreams.wakesOn(((Number) query.get("getMore")).longValue());
        }

        @Override
        public Document first(MongoMessage message) {
            return handleMessage(message);
        }

        @Override
        public Document again(Document query) {
            return withOperationTime(transactions.read(() -> changeStreams.getMore(query)));
        }
    }
}

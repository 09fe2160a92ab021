package dev.tideline.standin;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the backend's command path owes multi-document transactions ({@link Transactions}): their commands run one at
 * a time with the writes; readers outside them never run while one of their commands has its documents in the
 * collections ({@link TransactionWrites#showIn}), so they see only committed documents; a write outside them waits for
 * the one holding a document it writes ({@link WaitingWrite}); {@code endSessions} aborts them.
 */
final class TransactionCommands {
    private final Object writeLock;
    private final Supplier<IndexedOplog> oplog;
    private final Transactions transactions;
    /** Held for writing while a transaction's documents are in the collections, for reading by readers outside one. */
    private final ReadWriteLock visibility = new ReentrantReadWriteLock();

    TransactionCommands(Object writeLock, Supplier<IndexedOplog> oplog) {
        this.writeLock = writeLock;
        this.oplog = oplog;
        this.transactions = new Transactions(oplog);
    }

    /** Makes writes outside transactions on {@code channel} wait for them, answered by {@code backend}. */
    void install(Channel channel, Function<MongoMessage, Document> backend) {
        WaitingWrite.install(channel, backend, transactions);
    }

    /**
     * A command of a multi-document transaction, or its commit or abort: one at a time with the writes, so a
     * transaction's writes are logged or undone between two other writes.
     */
    Document run(ReplicaSet set, int member, String name, Document query, Supplier<Document> answer) {
        synchronized (writeLock) {
            Document refused = member < 0 ? null : set.refusal(member, name, query);
            if (refused != null) {
                return Transactions.endsTransaction(name) ? refused : Transactions.asTransientError(refused);
            }
            visibility.writeLock().lock();
            try {
                if (Transactions.endsTransaction(name)) {
                    return transactions.end(name, query);
                }
                return transactions.run(name, query, answer);
            } finally {
                visibility.writeLock().unlock();
            }
        }
    }

    /** A read outside any transaction: it sees committed documents only. */
    Document read(Supplier<Document> read) {
        visibility.readLock().lock();
        try {
            return read.get();
        } finally {
            visibility.readLock().unlock();
        }
    }

    /**
     * Null when the write {@code name} outside any transaction can run now (under the lock that orders writes), else
     * the answer that makes it wait ({@link WaitingWrite#waitUntil}) for the transaction holding one of its documents.
     */
    Document mustWait(MongoDatabase database, String name, Document query) {
        IndexedOplog log = oplog.get();
        if (log == null || Transactions.isInTransaction(query)) {
            return null;
        }
        TransactionWrites holder = transactions.holder(log, database, name, query);
        return holder == null ? null : WaitingWrite.waitUntil(transactions.expiry(holder));
    }

    /** {@code endSessions}: the sessions' open transactions are aborted. */
    void endSessions(Document query) {
        synchronized (writeLock) {
            transactions.endSessions(query);
        }
    }

    /** The primary stepped down: MongoDB aborts the transactions open on it. Under the lock that orders writes. */
    void abortAll() {
        transactions.abortAll();
    }

    /** Writes outside transactions waiting for one to end now. */
    int waitingWrites() {
        return transactions.waiting();
    }

    /** MongoDB's {@code transactionLifetimeLimitSeconds}. */
    void lifetimeLimit(Duration limit) {
        transactions.lifetimeLimit(limit);
    }
}

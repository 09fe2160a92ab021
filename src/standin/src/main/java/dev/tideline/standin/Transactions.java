package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.BinData;
import de.bwaldvogel.mongo.bson.Document;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * Multi-document transactions on the server side, as the driver's transactions specification expects a replica set
 * to answer (https://github.com/mongodb/specifications/blob/master/source/transactions/transactions.md): every
 * command of a transaction carries the session's {@code lsid}, the transaction's {@code txnNumber} and
 * {@code autocommit: false}, the first one {@code startTransaction: true}; {@code commitTransaction} and
 * {@code abortTransaction} (on admin) end it. A session has one transaction at a time; starting a newer one aborts
 * the open one.
 *
 * <p>The writes of an open transaction are in the collections only while its own commands run, and for good at its
 * commit ({@link TransactionWrites}): readers outside it see the committed documents, as MongoDB's do. They are logged
 * only at commit, as one {@code applyOps} entry ({@link IndexedOplog#commit}), so change streams see them then, all at
 * the commit's cluster time. An abort, an error inside the transaction (MongoDB aborts the transaction on any error in
 * it), a step-down (MongoDB aborts open transactions when a primary steps down) or the end of its session forgets them
 * ({@link IndexedOplog#rollBack}), and drops the collections it created.
 *
 * <p>Answers, with MongoDB's codes (src/mongo/base/error_codes.yml): a command for a transaction the session does not
 * have (never started, aborted, or another {@code txnNumber}), and commit or abort of one: NoSuchTransaction (251) with
 * the {@code TransientTransactionError} label (the spec's signal to retry the whole transaction, which
 * {@code withTransaction} does); a command of a committed transaction, or its abort: TransactionCommitted (256); a
 * {@code txnNumber} older than the session's: TransactionTooOld (225); commit of a committed transaction again: ok
 * (the spec retries commit); {@code drop}, {@code renameCollection}, {@code dropDatabase} and {@code collMod} inside
 * one: OperationNotSupportedInTransaction (263); a write to a document another open transaction wrote, or that was
 * committed after this one started (its snapshot): WriteConflict (112, {@code TransientTransactionError}), and the
 * transaction is aborted. A write outside any transaction to such a
 * document waits for the transaction to end ({@link TransactionLocks}, {@link WaitingWrite}). A transaction open longer
 * than the lifetime limit (MongoDB's {@code transactionLifetimeLimitSeconds}, 60 by default) is aborted when a write
 * waits for it, as MongoDB's periodic reaper aborts it. {@code endSessions} aborts the sessions' open transactions
 * (https://www.mongodb.com/docs/manual/reference/command/endSessions/; the sessions specification's "ending a session
 * aborts its transaction"). Used under the lock that orders writes.
 */
final class Transactions {
    static final int WRITE_CONFLICT = 112;
    static final int NO_SUCH_TRANSACTION = 251;
    static final int TRANSACTION_COMMITTED = 256;
    static final int OPERATION_NOT_SUPPORTED_IN_TRANSACTION = 263;
    static final String TRANSIENT_TRANSACTION_ERROR = "TransientTransactionError";
    /** Collection-level commands MongoDB refuses inside a transaction (create and createIndexes it allows, 4.4 on). */
    private static final Set<String> NOT_IN_TRANSACTION = Set.of("drop", "renamecollection", "dropdatabase", "collmod");
    /**
     * The {@code uid} MongoDB adds to a session's {@code lsid} in the oplog and in change events: the SHA-256 of the
     * authenticated user's name, of the empty string without access control (the stand-in has none).
     */
    private static final BinData NO_USER_UID = new BinData(sha256(""));

    private enum State { IN_PROGRESS, COMMITTED, ABORTED }

    private static final class Transaction {
        final Document lsid;
        final long txnNumber;
        final TransactionWrites writes = new TransactionWrites(Instant.now());
        State state = State.IN_PROGRESS;

        Transaction(Document lsid, long txnNumber) {
            this.lsid = lsid;
            this.txnNumber = txnNumber;
        }
    }

    private final Map<Object, Transaction> bySession = new HashMap<>();
    private final Supplier<IndexedOplog> oplog;
    private final List<Runnable> endListeners = new CopyOnWriteArrayList<>();
    private volatile Duration lifetimeLimit = Duration.ofSeconds(60);

    Transactions(Supplier<IndexedOplog> oplog) {
        this.oplog = oplog;
    }

    /** Whether {@code query} is a command of a transaction ({@code autocommit: false}). */
    static boolean isInTransaction(Document query) {
        return Boolean.FALSE.equals(query.get("autocommit"));
    }

    /** Whether {@code lowerCaseName} ends a transaction. */
    static boolean endsTransaction(String lowerCaseName) {
        return lowerCaseName.equals("committransaction") || lowerCaseName.equals("aborttransaction");
    }

    /** Runs one command of a transaction, starting the transaction on {@code startTransaction: true}. */
    Document run(String lowerCaseName, Document query, Supplier<Document> command) {
        IndexedOplog log = oplog.get();
        if (log == null) {
            return error(20, "IllegalOperation", "Transaction numbers are only allowed on a replica set member or mongos", false);
        }
        Object session = sessionOf(query);
        Long txnNumber = txnNumberOf(query);
        if (session == null || txnNumber == null) {
            return error(ServerErrors.INVALID_OPTIONS, "InvalidOptions", "a transaction's commands need an lsid and a txnNumber", false);
        }
        Transaction txn = bySession.get(session);
        if (Boolean.TRUE.equals(query.get("startTransaction"))) {
            if (txn != null && txn.txnNumber >= txnNumber) {
                return tooOld(txnNumber, txn);
            }
            if (txn != null && txn.state == State.IN_PROGRESS) {
                abort(txn); // a newer transaction of the session aborts the open one
            }
            txn = new Transaction(withUid((Document) query.get("lsid")), txnNumber);
            bySession.put(session, txn);
            log.opened(txn.writes);
        } else {
            Document refused = refusal(txn, txnNumber, false);
            if (refused != null) {
                return refused;
            }
        }
        if (NOT_IN_TRANSACTION.contains(lowerCaseName)) {
            abort(txn);
            return error(OPERATION_NOT_SUPPORTED_IN_TRANSACTION, "OperationNotSupportedInTransaction",
                    "Cannot run '" + lowerCaseName + "' in a multi-document transaction.", false);
        }
        Transaction running = txn;
        Document reply;
        try {
            reply = log.within(txn.writes, command);
        } catch (RuntimeException e) {
            abort(running);
            throw e;
        }
        if (running.writes.hasConflict()) {
            abort(running);
            return error(WRITE_CONFLICT, "WriteConflict", "a document this transaction wrote was written first by another open "
                    + "transaction; the transaction was aborted: retry it", true);
        }
        if (!Ddl.isOk(reply) || reply.get("writeErrors") instanceof List<?> errors && !errors.isEmpty()) {
            abort(running);
        }
        return reply;
    }

    /** {@code commitTransaction} or {@code abortTransaction}. */
    Document end(String lowerCaseName, Document query) {
        Object session = sessionOf(query);
        Long txnNumber = txnNumberOf(query);
        if (session == null || txnNumber == null) {
            return error(ServerErrors.INVALID_OPTIONS, "InvalidOptions", lowerCaseName + " needs an lsid and a txnNumber", false);
        }
        Transaction txn = bySession.get(session);
        boolean commit = lowerCaseName.equals("committransaction");
        Document refused = refusal(txn, txnNumber, commit);
        if (refused != null) {
            return refused;
        }
        if (commit && txn.state == State.IN_PROGRESS) {
            oplog.get().commit(txn.lsid, txn.txnNumber, txn.writes);
            txn.state = State.COMMITTED;
            endListeners.forEach(Runnable::run);
        } else if (!commit) {
            abort(txn);
        }
        return new Document("ok", 1.0);
    }

    /**
     * A refusal of a transaction's statement by a member that is not primary, labelled as MongoDB labels it inside a
     * transaction: a TransientTransactionError (retry the whole transaction), not a RetryableWriteError (statements of
     * a transaction are not retried one by one). Commit and abort keep the retryable label.
     */
    static Document asTransientError(Document refusal) {
        refusal.put("errorLabels", List.of(TRANSIENT_TRANSACTION_ERROR));
        return refusal;
    }

    /** Aborts every open transaction: the primary stepped down. */
    void abortAll() {
        bySession.values().stream().filter(t -> t.state == State.IN_PROGRESS).forEach(this::abort);
    }

    /** {@code endSessions}: each listed session's open transaction is aborted. */
    void endSessions(Document query) {
        if (query.get("endSessions") instanceof List<?> sessions) {
            for (Object lsid : sessions) {
                Transaction txn = lsid instanceof Document d ? bySession.remove(d.get("id")) : null;
                if (txn != null) {
                    abort(txn);
                }
            }
        }
    }

    /**
     * The open transaction holding a document the write {@code name} outside any transaction would write (null: it
     * can run); transactions past the lifetime limit are aborted first, as MongoDB's reaper aborts them.
     */
    TransactionWrites holder(IndexedOplog log, de.bwaldvogel.mongo.MongoDatabase database, String name, Document query) {
        TransactionWrites holder = TransactionLocks.holder(log, database, name, query);
        if (holder == null || Instant.now().isBefore(expiry(holder))) {
            return holder;
        }
        bySession.values().stream().filter(t -> t.writes == holder).findFirst().ifPresent(this::abort);
        return TransactionLocks.holder(log, database, name, query);
    }

    /** When the transaction holding {@code writes} is aborted by the lifetime limit at the latest. */
    Instant expiry(TransactionWrites writes) {
        return writes.started().plus(lifetimeLimit);
    }

    /** MongoDB's {@code transactionLifetimeLimitSeconds}: a test shortens it. */
    void lifetimeLimit(Duration limit) {
        this.lifetimeLimit = limit;
    }

    /** {@code listener} runs after every commit or abort (a waiting write tries again). */
    void onEnd(Runnable listener) {
        endListeners.add(listener);
    }

    void removeOnEnd(Runnable listener) {
        endListeners.remove(listener);
    }

    /** Writes waiting for the end of a transaction now. */
    int waiting() {
        return endListeners.size();
    }

    /** Why {@code txnNumber} cannot go on in {@code txn} (null: it can); a commit of a committed one can. */
    private static Document refusal(Transaction txn, long txnNumber, boolean commit) {
        if (txn != null && txn.txnNumber > txnNumber) {
            return tooOld(txnNumber, txn);
        }
        if (txn == null || txn.txnNumber != txnNumber || txn.state == State.ABORTED) {
            String why = txn != null && txn.txnNumber == txnNumber ? "has been aborted" : "does not match any in-progress transactions";
            return error(NO_SUCH_TRANSACTION, "NoSuchTransaction", "Transaction with txnNumber " + txnNumber + " " + why, true);
        }
        if (txn.state == State.COMMITTED && !commit) {
            return error(TRANSACTION_COMMITTED, "TransactionCommitted", "Transaction with txnNumber " + txnNumber
                    + " has been committed.", false);
        }
        return null;
    }

    private void abort(Transaction txn) {
        if (txn.state == State.IN_PROGRESS) {
            oplog.get().rollBack(txn.writes);
            txn.state = State.ABORTED;
            endListeners.forEach(Runnable::run);
        }
    }

    private static Document tooOld(long txnNumber, Transaction txn) {
        return error(RetryableWrites.TRANSACTION_TOO_OLD, "TransactionTooOld", "Cannot start transaction " + txnNumber
                + " because a newer transaction " + txn.txnNumber + " has already started", false);
    }

    private static Document error(int code, String codeName, String message, boolean transientError) {
        Document reply = new Document("ok", 0.0).append("errmsg", message).append("code", code).append("codeName", codeName);
        if (transientError) {
            reply.append("errorLabels", List.of(TRANSIENT_TRANSACTION_ERROR));
        }
        return reply;
    }

    private static Object sessionOf(Document query) {
        return query.get("lsid") instanceof Document lsid ? lsid.get("id") : null;
    }

    private static Long txnNumberOf(Document query) {
        return query.get("txnNumber") instanceof Number n ? n.longValue() : null;
    }

    /** The session's identity as MongoDB logs it: the client's {@code id} and the user's {@code uid}. */
    private static Document withUid(Document lsid) {
        return new Document("id", lsid.get("id")).append("uid", NO_USER_UID);
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}

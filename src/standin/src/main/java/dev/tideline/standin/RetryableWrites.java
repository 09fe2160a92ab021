package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Retryable writes on the server side
 * (https://github.com/mongodb/specifications/blob/master/source/retryable-writes/retryable-writes.md): a write
 * sent with a session ({@code lsid}) and a {@code txnNumber} runs once; the same {@code lsid} and {@code txnNumber}
 * again, the driver's retry after a network error or a step-down, gets the first execution's reply without running
 * again. A {@code txnNumber} lower than the session's latest answers TransactionTooOld (225), as MongoDB does; it
 * keeps the latest per session (in {@code config.transactions}), and so does this.
 *
 * <p>A write the server refused before running it (NotWritablePrimary on a secondary) is not recorded: its retry
 * runs it.
 */
final class RetryableWrites {
    static final int TRANSACTION_TOO_OLD = 225;
    /** The commands drivers retry (lower case, as the backend names them). */
    private static final Set<String> RETRYABLE = Set.of("insert", "update", "delete", "findandmodify");

    private record Executed(long txnNumber, Document reply) {
    }

    private final Map<Object, Executed> bySession = new ConcurrentHashMap<>();

    /**
     * {@code write}'s reply, run at most once per {@code lsid} and {@code txnNumber}. Call it under the lock that
     * orders writes, so a retry never races its first attempt.
     */
    Document once(String lowerCaseName, Document query, Supplier<Document> write) {
        Object session = query.get("lsid") instanceof Document lsid ? lsid.get("id") : null;
        if (session == null || !RETRYABLE.contains(lowerCaseName) || !(query.get("txnNumber") instanceof Number n)
                || Transactions.isInTransaction(query)) { // a transaction's statements share its txnNumber: not retries
            return write.get();
        }
        long txnNumber = n.longValue();
        Executed before = bySession.get(session);
        if (before != null && before.txnNumber() == txnNumber) {
            return before.reply();
        }
        if (before != null && before.txnNumber() > txnNumber) {
            return new Document("ok", 0.0).append("errmsg", "txnNumber " + txnNumber + " is older than the session's " + before.txnNumber())
                    .append("code", TRANSACTION_TOO_OLD).append("codeName", "TransactionTooOld");
        }
        Document reply = write.get();
        if (Ddl.isOk(reply)) {
            bySession.put(session, new Executed(txnNumber, reply));
        }
        return reply;
    }
}

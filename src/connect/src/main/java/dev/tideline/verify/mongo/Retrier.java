package dev.tideline.verify.mongo;

import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoClientFactory;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.verify.VerifyListener;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Runs a call to one side, retrying what MongoDB calls transient (failover, network) with back-off,
 * and turns the rest into a {@link VerifyFailure} that says what to do. A refused operator is thrown
 * as it is: the caller falls back to another way of comparing.
 */
final class Retrier {
    static final int ATTEMPTS = 5;
    static final long FIRST_BACKOFF_MS = 1_000;

    private final VerifyListener listener;
    private final Map<String, String> uriBySide;
    private final long firstBackoffMs;

    /**
     * @param uriBySide      each side's connection string by the name messages give it (source, destination, first peer...)
     * @param firstBackoffMs the first wait before another attempt, doubled for each further one
     */
    Retrier(VerifyListener listener, Map<String, String> uriBySide, long firstBackoffMs) {
        this.listener = listener;
        this.uriBySide = Map.copyOf(uriBySide);
        this.firstBackoffMs = firstBackoffMs;
    }

    <T> T call(String side, String what, Supplier<T> action) {
        for (int attempt = 1; ; attempt++) {
            try {
                return action.get();
            } catch (RuntimeException e) {
                failed(side, what, e, attempt);
            }
        }
    }

    void run(String side, String what, Runnable action) {
        call(side, what, () -> {
            action.run();
            return null;
        });
    }

    /**
     * Decides about a failed attempt: returns after the back-off when it is worth another attempt,
     * throws otherwise.
     */
    void failed(String side, String what, RuntimeException e, int attempt) {
        if (e instanceof VerifyFailure || MongoErrors.isUnsupportedOperator(e)) {
            throw e;
        }
        String message = describe(side, e);
        ErrorClass kind = MongoErrors.classify(e);
        if (kind == ErrorClass.AUTH) {
            throw new VerifyFailure("the " + side + " refused the credentials or the user's roles while " + what + ": " + message
                    + ". Verify needs the read role (find, listCollections, aggregate) on the compared databases.", true, e);
        }
        if (kind == ErrorClass.RETRIABLE && attempt < ATTEMPTS) {
            long backoff = firstBackoffMs << (attempt - 1);
            listener.note("retrying in " + backoff + " ms (" + attempt + "/" + (ATTEMPTS - 1) + ") after the " + side
                    + " failed while " + what + ": " + message);
            sleep(backoff);
            return;
        }
        if (MongoErrors.isUnreachable(e)) {
            throw new VerifyFailure("cannot reach the " + side + " (" + hosts(side) + ") while " + what + ": " + message
                    + ". Check the address and that the server is up, then run verify again.", true, e);
        }
        throw new VerifyFailure("the " + side + " failed while " + what + ": " + message, false, e);
    }

    String describe(String side, Throwable e) {
        return MongoClientFactory.redact(String.valueOf(e.getMessage()), uriBySide.get(side));
    }

    private String hosts(String side) {
        return MongoClientFactory.hostsOf(uriBySide.get(side));
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerifyFailure("interrupted", true, e);
        }
    }
}

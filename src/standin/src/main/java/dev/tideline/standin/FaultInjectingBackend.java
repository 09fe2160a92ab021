package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import io.netty.channel.Channel;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The stand-in (with {@link AwaitingMemoryBackend}'s waiting getMore) answering chosen commands with
 * a chosen server error, as MongoDB does: {@code {ok: 0, code, codeName, errmsg}}, which the driver
 * turns into the same exception a real server's refusal gives. Codes and names are MongoDB's
 * (https://github.com/mongodb/mongo/blob/master/src/mongo/base/error_codes.yml); which commands fail
 * matters because the driver resumes a change stream by itself once after a resumable error
 * (https://github.com/mongodb/specifications/blob/master/source/change-streams/change-streams.md#resume-process),
 * so a fault that should reach the connector fails the resume's {@code aggregate} too.
 */
public final class FaultInjectingBackend extends AwaitingMemoryBackend {
    /** The commands of a reader: change streams (aggregate + getMore) and backfill copies (find). */
    public static final Set<String> READS = Set.of("aggregate", "getMore", "find");

    private volatile Fault armed;
    private final AtomicInteger injected = new AtomicInteger();
    private final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicLong> readsLetThrough =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicLong> received =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** An {@code aggregate} that resumes a change stream after a token: where a server finds its history gone. */
    public static final Predicate<Document> RESUMING = query -> query.get("pipeline") instanceof List<?> stages
            && !stages.isEmpty() && stages.get(0) instanceof Document first
            && first.get("$changeStream") instanceof Document options
            && (options.containsKey("resumeAfter") || options.containsKey("startAfter"));

    private record Fault(String database, Set<String> commands, Predicate<Document> matching, int code, String codeName,
                         AtomicInteger remaining) {
    }

    /**
     * The next {@code times} commands named in {@code commands} on {@code database} fail with
     * {@code code}; replaces any fault still armed.
     */
    public void failNext(String database, Set<String> commands, int code, String codeName, int times) {
        failNext(database, commands, query -> true, code, codeName, times);
    }

    /** As above, only for the commands whose body {@code matching} accepts, e.g. {@link #RESUMING}. */
    public void failNext(String database, Set<String> commands, Predicate<Document> matching, int code, String codeName,
                         int times) {
        armed = new Fault(database, Set.copyOf(commands), matching, code, codeName, new AtomicInteger(times));
    }

    /** Ends the armed fault, however much of it is left: the server answers normally again. */
    public void disarm() {
        armed = null;
    }

    /** How many commands were answered with an injected error so far. */
    public int injected() {
        return injected.get();
    }

    /** Whether the armed fault has been fully delivered (or none was armed). */
    public boolean spent() {
        Fault f = armed;
        return f == null || f.remaining().get() <= 0;
    }

    /** How many {@code command}s the server received so far on any database, answered or failed by a fault. */
    public long received(String command) {
        java.util.concurrent.atomic.AtomicLong n = received.get(command);
        return n == null ? 0 : n.get();
    }

    /** How many {@link #READS} on {@code database} were let through to the server (not failed by a fault) so far. */
    public long readsLetThrough(String database) {
        java.util.concurrent.atomic.AtomicLong n = readsLetThrough.get(database);
        return n == null ? 0 : n.get();
    }

    @Override
    public Document handleCommand(Channel channel, String databaseName, String command, Document query) {
        received.computeIfAbsent(command, c -> new java.util.concurrent.atomic.AtomicLong()).incrementAndGet();
        Fault f = armed;
        if (f != null && f.database().equals(databaseName) && f.commands().contains(command)
                && f.matching().test(query) && f.remaining().getAndDecrement() > 0) {
            injected.incrementAndGet();
            throw new MongoServerError(f.code(), f.codeName(), "injected by the test: " + f.codeName() + " on " + command);
        }
        if (READS.contains(command)) {
            readsLetThrough.computeIfAbsent(databaseName, d -> new java.util.concurrent.atomic.AtomicLong()).incrementAndGet();
        }
        return super.handleCommand(channel, databaseName, command, query);
    }
}

package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.ObjectId;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import io.netty.channel.Channel;

/**
 * The stand-in's replica-set topology: several member endpoints (ports on 127.0.0.1) in front of one shared
 * backend. The data is one, the topology is many: each member answers {@code hello} for itself, only the primary
 * takes writes, and {@link #stepDown()} makes the next member primary.
 *
 * <p>What a member answers follows MongoDB's {@code hello} (https://www.mongodb.com/docs/manual/reference/command/hello/,
 * legacy {@code isMaster} with {@code ismaster} in place of {@code isWritablePrimary}) and what drivers read from it
 * (https://github.com/mongodb/specifications/blob/master/source/server-discovery-and-monitoring/server-discovery-and-monitoring.md):
 * {@code setName}, {@code hosts}, {@code primary}, {@code me}, {@code secondary}, {@code setVersion} and an
 * {@code electionId} that grows with each election (drivers ignore a primary whose pair is older than one they saw),
 * and a {@code topologyVersion} whose counter grows whenever the member's answer changes (the streaming protocol of
 * server-monitoring.md waits on it, {@link AwaitableHello}).
 *
 * <p>A step-down, as MongoDB 4.2 on does it (https://www.mongodb.com/docs/manual/reference/command/replSetStepDown/,
 * SERVER-38511): writes in progress are interrupted (the stand-in's writes run one at a time under the backend's
 * write lock, which a step-down takes, so none is half-done), connections stay open, open cursors (change streams
 * included) go on with {@code getMore} on the member that is now a secondary. A write sent to a secondary answers
 * NotWritablePrimary (10107), with the {@code RetryableWriteError} label when it is a retryable write (the server
 * labels it from 4.4 on: retryable-writes.md); a read whose read preference is primary answers NotPrimaryNoSecondaryOk
 * (13435). A member restart (the next step of a rolling upgrade) is {@link #restart(int)}: its connections close,
 * its cursors with them.
 */
public final class ReplicaSet {
    public static final int NOT_WRITABLE_PRIMARY = 10107;
    public static final int NOT_PRIMARY_NO_SECONDARY_OK = 13435;
    /** MongoDB's {@code localLogicalSessionTimeoutMinutes} default. */
    static final int SESSION_TIMEOUT_MINUTES = 30;
    private static final String RETRYABLE_WRITE_ERROR = "RetryableWriteError";
    private static final Set<String> HELLOS = Set.of("hello", "ismaster");
    /** Reads that need the primary unless their {@code $readPreference} allows a secondary. */
    private static final Set<String> READS = Set.of("find", "aggregate", "count", "distinct", "listcollections", "listindexes",
            "listdatabases", "dbstats", "collstats", "explain");

    private final String name;
    private final List<Member> members;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile int primary;
    private volatile long term = 1;

    /** A member: its announced address, the port it listens on, and what its topology version says of it. */
    private static final class Member {
        final String host;
        final int port;
        volatile ObjectId processId = new ObjectId();
        volatile long counter;
        final List<Channel> channels = new CopyOnWriteArrayList<>();

        Member(String host, int port) {
            this.host = host;
            this.port = port;
        }
    }

    /** Members listening on {@code ports} of 127.0.0.1 (and announced so), the first primary. */
    public ReplicaSet(String name, List<Integer> ports) {
        if (ports.isEmpty()) {
            throw new IllegalArgumentException("a replica set needs members");
        }
        this.name = name;
        this.members = ports.stream().map(port -> new Member("127.0.0.1:" + port, port)).toList();
    }

    public String name() {
        return name;
    }

    /** {@code host:port} of each member, as its {@code hello} announces it. */
    public List<String> hosts() {
        return members.stream().map(m -> m.host).toList();
    }

    /** Which member is primary now (an index into {@link #hosts()}). */
    public int primary() {
        return primary;
    }

    /**
     * The primary steps down and the next member is elected (term + 1): every member's answer changes, so every
     * topology version grows and waiting {@code hello}s answer at once.
     */
    public void stepDown() {
        synchronized (this) {
            primary = (primary + 1) % members.size();
            term++;
            for (Member m : members) {
                m.counter++;
            }
        }
        StackLog.info("replica set " + name + ": " + members.get(primary).host + " is primary (term " + term + ")");
        listeners.forEach(Runnable::run);
    }

    /**
     * Member {@code index} restarts: its connections close (with them its cursors, as a restarted process forgets
     * them) and it comes back as the same member with a new {@code processId}. The primary steps down first, as
     * rolling upgrades do (https://www.mongodb.com/docs/manual/tutorial/perform-maintence-on-replica-set-members/).
     */
    public void restart(int index) {
        if (index == primary) {
            stepDown();
        }
        Member m = members.get(index);
        synchronized (this) {
            m.processId = new ObjectId();
            m.counter = 0;
        }
        for (Channel c : m.channels) {
            c.close();
        }
        listeners.forEach(Runnable::run);
    }

    /** Called whenever a member's answer to {@code hello} changes. */
    void onChange(Runnable listener) {
        listeners.add(listener);
    }

    void forget(Runnable listener) {
        listeners.remove(listener);
    }

    /** The member a connection reached, by the port it connected to; -1 for internal calls (no channel). */
    int memberOf(Channel channel) {
        if (channel == null || !(channel.localAddress() instanceof InetSocketAddress local)) {
            return -1;
        }
        for (int i = 0; i < members.size(); i++) {
            Member m = members.get(i);
            if (m.port == local.getPort()) {
                if (!m.channels.contains(channel)) {
                    m.channels.add(channel);
                    channel.closeFuture().addListener(f -> m.channels.remove(channel));
                }
                return i;
            }
        }
        return -1;
    }

    static boolean isHello(String lowerCaseName) {
        return HELLOS.contains(lowerCaseName);
    }

    /** Whether {@code topologyVersion} (as a client sent it) is this member's current one. */
    boolean isCurrent(int member, Object topologyVersion) {
        if (!(topologyVersion instanceof Document tv) || member < 0) {
            return false;
        }
        Member m = members.get(member);
        return m.processId.equals(tv.get("processId")) && tv.get("counter") instanceof Number n && n.longValue() == m.counter;
    }

    /**
     * Member {@code member}'s answer to {@code hello} ({@code legacy}: {@code isMaster}), on top of what mongo-java-server
     * answers for itself (sizes, wire versions, {@code localTime}).
     */
    Document hello(int member, boolean legacy, Document base, BsonTimestamp lastWrite) {
        Member m = members.get(member);
        boolean isPrimary;
        long electionTerm;
        synchronized (this) {
            isPrimary = member == primary;
            electionTerm = term;
            base.put("topologyVersion", new Document("processId", m.processId).append("counter", m.counter));
        }
        base.remove("ismaster");
        base.remove("isWritablePrimary");
        base.put(legacy ? "ismaster" : "isWritablePrimary", isPrimary);
        base.put("secondary", !isPrimary);
        base.put("setName", name);
        base.put("setVersion", 1);
        base.put("hosts", hosts());
        base.put("primary", members.get(primary).host);
        base.put("me", m.host);
        if (isPrimary) {
            base.put("electionId", electionId(electionTerm));
        }
        if (lastWrite != null) {
            Document opTime = new Document("ts", lastWrite).append("t", electionTerm);
            Instant when = Instant.ofEpochSecond(lastWrite.getValue() >>> 32);
            base.put("lastWrite", new Document("opTime", opTime).append("lastWriteDate", when)
                    .append("majorityOpTime", opTime).append("majorityWriteDate", when));
        }
        base.put("logicalSessionTimeoutMinutes", SESSION_TIMEOUT_MINUTES);
        base.put("readOnly", false);
        return base;
    }

    /** MongoDB's electionId: 0x7fffffff then the term (https://github.com/mongodb/mongo/blob/master/src/mongo/db/repl/optime.h). */
    private static ObjectId electionId(long term) {
        return new ObjectId(ByteBuffer.allocate(12).putInt(Integer.MAX_VALUE).putLong(term).array());
    }

    /**
     * The error member {@code member} answers {@code command} with, or null when it runs it: a write to a secondary
     * answers 10107, a read that needs the primary 13435. Call it for writes under the lock a step-down takes.
     */
    Document refusal(int member, String lowerCaseName, Document query) {
        if (member < 0 || member == primary) {
            return null;
        }
        if (AwaitingMemoryBackend.WRITES.contains(lowerCaseName)) { // only a primary takes writes
            Document error = error(NOT_WRITABLE_PRIMARY, "NotWritablePrimary", "not primary");
            if (query.containsKey("txnNumber")) {
                error.put("errorLabels", List.of(RETRYABLE_WRITE_ERROR));
            }
            return error;
        }
        if (READS.contains(lowerCaseName) && !allowsSecondary(query.get("$readPreference"))) {
            return error(NOT_PRIMARY_NO_SECONDARY_OK, "NotPrimaryNoSecondaryOk", "not primary and secondaryOk=false");
        }
        return null;
    }

    private static boolean allowsSecondary(Object readPreference) {
        return readPreference instanceof Document rp && rp.get("mode") instanceof String mode
                && !mode.toLowerCase(Locale.ROOT).equals("primary");
    }

    private static Document error(int code, String codeName, String message) {
        return new Document("ok", 0.0).append("errmsg", message).append("code", code).append("codeName", codeName);
    }
}

package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.exception.MongoServerException;
import de.bwaldvogel.mongo.wire.MongoDatabaseHandler;
import de.bwaldvogel.mongo.wire.message.MessageHeader;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A change stream's {@code getMore} that finds nothing new waits for data on the server, as MongoDB's
 * tailable awaitData cursors do (https://www.mongodb.com/docs/manual/reference/command/getMore/: the
 * getMore's {@code maxTimeMS}, which drivers fill from {@code maxAwaitTimeMS}, is how long; without it,
 * 1 second), without holding the thread that serves the connection.
 *
 * <p>mongo-java-server answers every request synchronously on its connection's Netty event loop
 * ({@code MongoDatabaseHandler.channelRead0} writes what the backend returns), so a wait there blocks
 * every other connection on that loop. This handler sits in front of it on each connection: it answers
 * change-stream getMores itself and, when the batch is empty, defers the reply; a write to the oplog
 * (or the end of the await time) makes it read again on the connection's loop and reply from there.
 * Other requests pass through untouched. A driver sends one request at a time on a connection, so a
 * deferred reply never overtakes another.
 */
public final class AwaitingGetMore extends ChannelInboundHandlerAdapter {
    /** MongoDB's await time for a tailable awaitData getMore without {@code maxTimeMS}. */
    private static final long DEFAULT_AWAIT_MILLIS = 1000;
    private static final String NAME = "tideline-awaiting-getmore";
    private static final AtomicInteger RESPONSE_IDS = new AtomicInteger(1 << 30);

    /** What the handler asks of the backend. */
    public interface Answers {
        /** Whether this {@code getMore} is on an open change stream. */
        boolean isChangeStreamGetMore(Document query);

        /**
         * The namespaces whose writes may interest this getMore's stream: only those wake it. The others are
         * still examined, at its next read, as an oplog scan examines every entry.
         */
        Predicate<String> wakesOn(Document query);

        /** The first answer, through the backend's whole command path (fault injection included). */
        Document first(MongoMessage message);

        /** Another read of the same getMore, once something was written: never waits, injects nothing. */
        Document again(Document query);
    }

    /** The getMores waiting on one backend, woken by its oplog writes. */
    public static final class Waiters {
        private final Set<Waiter> waiting = ConcurrentHashMap.newKeySet();
        private final AtomicLong writes = new AtomicLong();

        /** Called after every oplog write: each waiter it may interest reads again, once, on its own event loop. */
        public void written(String namespace) {
            writes.incrementAndGet();
            for (Waiter w : waiting) {
                if (w.wakesOn.test(namespace)) {
                    w.wake();
                }
            }
        }

        /** How many getMores wait now. */
        public int size() {
            return waiting.size();
        }
    }

    private final Answers answers;
    private final Waiters waiters;
    private volatile Waiter current;

    private AwaitingGetMore(Answers answers, Waiters waiters) {
        this.answers = answers;
        this.waiters = waiters;
    }

    /** Puts the handler in front of mongo-java-server's on {@code channel}, once. */
    public static void install(Channel channel, Answers answers, Waiters waiters) {
        inFrontOfTheServer(channel, NAME, () -> new AwaitingGetMore(answers, waiters));
    }

    /** Puts the handler {@code name} in front of mongo-java-server's on {@code channel}, once. */
    static void inFrontOfTheServer(Channel channel, String name, java.util.function.Supplier<? extends io.netty.channel.ChannelHandler> handler) {
        ChannelPipeline pipeline = channel.pipeline();
        if (pipeline.get(name) != null) {
            return;
        }
        var database = pipeline.context(MongoDatabaseHandler.class);
        if (database != null) {
            pipeline.addBefore(database.name(), name, handler.get());
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof MongoMessage message) || !isGetMore(message) || !answers.isChangeStreamGetMore(message.getDocument())) {
            ctx.fireChannelRead(msg);
            return;
        }
        long writesBefore = waiters.writes.get();
        Document reply = answer(() -> answers.first(message));
        Object maxTime = message.getDocument().get("maxTimeMS");
        long awaitMillis = maxTime instanceof Number n && n.longValue() > 0 ? n.longValue() : DEFAULT_AWAIT_MILLIS;
        if (!ChangeStreams.isEmptyOpenBatch(reply)) {
            reply(ctx, message, reply);
            return;
        }
        Waiter waiter = new Waiter(ctx, message, answers.wakesOn(message.getDocument()));
        current = waiter;
        waiters.waiting.add(waiter);
        waiter.timeout = ctx.executor().schedule(() -> waiter.attempt(true), awaitMillis, TimeUnit.MILLISECONDS);
        if (waiters.writes.get() != writesBefore) {
            waiter.wake(); // written between the first read and now
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        Waiter w = current;
        if (w != null) {
            w.finish();
        }
        super.channelInactive(ctx);
    }

    private static boolean isGetMore(MongoMessage message) {
        Document d = message.getDocument();
        return !d.isEmpty() && "getMore".equals(d.keySet().iterator().next());
    }

    static void reply(ChannelHandlerContext ctx, MongoMessage request, Document reply) {
        MessageHeader header = new MessageHeader(RESPONSE_IDS.incrementAndGet(), request.getHeader().getRequestID());
        ctx.channel().writeAndFlush(new MongoMessage(ctx.channel(), header, reply));
    }

    /** The reply, or the error document mongo-java-server's handler would have sent for the failure. */
    static Document answer(java.util.function.Supplier<Document> read) {
        try {
            return read.get();
        } catch (MongoServerException e) {
            Document error = new Document("$err", e.getMessageWithoutErrorCode()).append("errmsg", e.getMessageWithoutErrorCode());
            if (e instanceof MongoServerError se) {
                error.append("code", se.getCode());
                if (se.getCodeName() != null) {
                    error.append("codeName", se.getCodeName());
                }
            }
            return error.append("ok", 0);
        } catch (RuntimeException e) {
            String message = "Unknown error: " + e.getMessage();
            return new Document("$err", message).append("errmsg", message).append("ok", 0);
        }
    }

    /** One deferred getMore. */
    private final class Waiter {
        private final ChannelHandlerContext ctx;
        private final MongoMessage request;
        private final Predicate<String> wakesOn;
        private final AtomicBoolean scheduled = new AtomicBoolean();
        private final AtomicBoolean done = new AtomicBoolean();
        private volatile ScheduledFuture<?> timeout;

        Waiter(ChannelHandlerContext ctx, MongoMessage request, Predicate<String> wakesOn) {
            this.ctx = ctx;
            this.request = request;
            this.wakesOn = wakesOn;
        }

        /** Reads again on the connection's loop; writes that come while one is queued share it. */
        void wake() {
            if (!done.get() && scheduled.compareAndSet(false, true)) {
                ctx.executor().execute(() -> {
                    scheduled.set(false);
                    attempt(false);
                });
            }
        }

        /** Runs on the connection's event loop: replies if there is data, or when the await time is over. */
        void attempt(boolean awaitOver) {
            if (done.get()) {
                return;
            }
            Document reply = answer(() -> answers.again(request.getDocument()));
            if (awaitOver || !ChangeStreams.isEmptyOpenBatch(reply)) {
                if (finish()) {
                    reply(ctx, request, reply);
                }
            }
        }

        boolean finish() {
            if (!done.compareAndSet(false, true)) {
                return false;
            }
            waiters.waiting.remove(this);
            ScheduledFuture<?> t = timeout;
            if (t != null) {
                t.cancel(false);
            }
            if (current == this) {
                current = null;
            }
            return true;
        }
    }
}

package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * A write outside any transaction to a document an open transaction wrote waits until that transaction ends, as on
 * MongoDB ({@link TransactionLocks}), without holding its connection's event loop (mongo-java-server answers on it,
 * see {@link AwaitingGetMore}): the backend answers such a write with {@link #waitUntil} instead of running it, and
 * this handler, in front of mongo-java-server's on each connection, sends it again when a transaction ends, or when
 * the one it waits for passes its lifetime limit (then aborted, as MongoDB's reaper does). With {@code maxTimeMS} a
 * write that is still waiting then answers MaxTimeMSExpired (50), as MongoDB's does. Other requests pass through; these
 * are answered here as mongo-java-server's handler answers them ({@link AwaitingGetMore#answer}).
 */
final class WaitingWrite extends ChannelInboundHandlerAdapter {
    private static final String NAME = "tideline-waiting-write";
    private static final String WAIT_UNTIL = "$tidelineWaitsForTransactionUntil";
    private static final Set<String> WRITES = Set.of("insert", "update", "delete", "findAndModify", "findandmodify");
    static final int MAX_TIME_MS_EXPIRED = 50;

    private final Function<MongoMessage, Document> backend;
    private final Transactions transactions;

    private WaitingWrite(Function<MongoMessage, Document> backend, Transactions transactions) {
        this.backend = backend;
        this.transactions = transactions;
    }

    /** Puts the handler in front of mongo-java-server's on {@code channel}, once. */
    static void install(Channel channel, Function<MongoMessage, Document> backend, Transactions transactions) {
        AwaitingGetMore.inFrontOfTheServer(channel, NAME, () -> new WaitingWrite(backend, transactions));
    }

    /** The backend's answer to a write that must wait for the transaction holding one of its documents. */
    static Document waitUntil(Instant expiry) {
        return new Document("ok", 0.0).append(WAIT_UNTIL, expiry.toEpochMilli());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        // every such write, not only while a transaction holds documents: one may start holding them before it runs
        if (!(msg instanceof MongoMessage message) || !isOutsideWrite(message.getDocument())) {
            ctx.fireChannelRead(msg);
            return;
        }
        Object maxTime = message.getDocument().get("maxTimeMS");
        long deadline = maxTime instanceof Number n && n.longValue() > 0 ? System.currentTimeMillis() + n.longValue() : Long.MAX_VALUE;
        new Attempt(ctx, message, deadline).run();
    }

    private static boolean isOutsideWrite(Document query) {
        return !query.isEmpty() && WRITES.contains(query.keySet().iterator().next()) && !Transactions.isInTransaction(query);
    }

    /** One write, sent again until it runs. */
    private final class Attempt implements Runnable {
        private final ChannelHandlerContext ctx;
        private final MongoMessage request;
        private final long deadline;
        private final AtomicBoolean queued = new AtomicBoolean();
        private final AtomicBoolean done = new AtomicBoolean();
        private final Runnable again = this::queue;
        private volatile ScheduledFuture<?> timeout;

        Attempt(ChannelHandlerContext ctx, MongoMessage request, long deadline) {
            this.ctx = ctx;
            this.request = request;
            this.deadline = deadline;
        }

        private void queue() {
            if (!done.get() && queued.compareAndSet(false, true)) {
                ctx.executor().execute(this);
            }
        }

        /** On the connection's event loop; listens for the ends of transactions before asking, so none is missed. */
        @Override
        public void run() {
            queued.set(false);
            ScheduledFuture<?> t = timeout;
            if (t != null) {
                t.cancel(false);
            }
            if (done.get()) {
                return;
            }
            transactions.onEnd(again);
            Document reply = ctx.channel().isActive() ? AwaitingGetMore.answer(() -> backend.apply(request)) : null;
            long now = System.currentTimeMillis();
            if (reply != null && reply.get(WAIT_UNTIL) instanceof Number expiry && now < deadline) {
                long wake = Math.min(deadline, expiry.longValue() + 1);
                timeout = ctx.executor().schedule(this::queue, Math.max(1, wake - now), TimeUnit.MILLISECONDS);
                return;
            }
            done.set(true);
            transactions.removeOnEnd(again);
            if (reply != null && reply.containsKey(WAIT_UNTIL)) {
                reply = new Document("ok", 0.0).append("errmsg", "operation exceeded time limit")
                        .append("code", MAX_TIME_MS_EXPIRED).append("codeName", "MaxTimeMSExpired");
            }
            if (reply != null) {
                AwaitingGetMore.reply(ctx, request, reply);
            }
        }
    }
}

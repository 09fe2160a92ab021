package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.Locale;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * The awaitable {@code hello} of the streaming protocol
 * (https://github.com/mongodb/specifications/blob/master/source/server-discovery-and-monitoring/server-monitoring.md#streaming-protocol):
 * a {@code hello} that carries the member's current {@code topologyVersion} and a {@code maxAwaitTimeMS} is answered
 * when the member's answer changes (a step-down) or when that time is up, not at once. Drivers monitor a member that
 * announces a {@code topologyVersion} this way, one such {@code hello} after another; answered at once they would ask
 * again and again.
 *
 * <p>The reply is deferred as {@link AwaitingGetMore} defers a getMore: the connection's Netty event loop is never
 * held. The reply is never sent with {@code moreToCome} (the server may, not must, stream when the request allows it:
 * https://github.com/mongodb/specifications/blob/master/source/message/OP_MSG.md#exhaustallowed), so the driver sends
 * the next {@code hello} itself.
 */
final class AwaitableHello extends ChannelInboundHandlerAdapter {
    private static final String NAME = "tideline-awaitable-hello";

    private final ReplicaSet replicaSet;
    /** The member's answer, through the backend's whole command path. */
    private final Function<MongoMessage, Document> answer;

    private AwaitableHello(ReplicaSet replicaSet, Function<MongoMessage, Document> answer) {
        this.replicaSet = replicaSet;
        this.answer = answer;
    }

    /** Puts the handler in front of mongo-java-server's on {@code channel}, once. */
    static void install(io.netty.channel.Channel channel, ReplicaSet replicaSet, Function<MongoMessage, Document> answer) {
        AwaitingGetMore.inFrontOfTheServer(channel, NAME, () -> new AwaitableHello(replicaSet, answer));
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof MongoMessage message) || !awaits(message)) {
            ctx.fireChannelRead(msg);
            return;
        }
        int member = replicaSet.memberOf(ctx.channel());
        Document request = message.getDocument();
        if (!replicaSet.isCurrent(member, request.get("topologyVersion"))) {
            ctx.fireChannelRead(msg); // the client's view is out of date: answer now
            return;
        }
        long awaitMillis = ((Number) request.get("maxAwaitTimeMS")).longValue();
        AtomicBoolean done = new AtomicBoolean();
        Runnable[] changed = new Runnable[1];
        ScheduledFuture<?>[] timeout = new ScheduledFuture<?>[1];
        Runnable reply = () -> {
            if (done.compareAndSet(false, true)) {
                replicaSet.forget(changed[0]);
                if (timeout[0] != null) {
                    timeout[0].cancel(false);
                }
                if (ctx.channel().isActive()) {
                    AwaitingGetMore.reply(ctx, message, AwaitingGetMore.answer(() -> answer.apply(message)));
                }
            }
        };
        changed[0] = () -> ctx.executor().execute(reply);
        replicaSet.onChange(changed[0]);
        timeout[0] = ctx.executor().schedule(reply, awaitMillis, TimeUnit.MILLISECONDS);
        ctx.channel().closeFuture().addListener(f -> {
            done.set(true);
            replicaSet.forget(changed[0]);
        });
        if (!replicaSet.isCurrent(member, request.get("topologyVersion"))) {
            changed[0].run(); // changed between the check and the registration
        }
    }

    private static boolean awaits(MongoMessage message) {
        Document d = message.getDocument();
        return !d.isEmpty() && ReplicaSet.isHello(d.keySet().iterator().next().toLowerCase(Locale.ROOT))
                && d.get("maxAwaitTimeMS") instanceof Number && d.containsKey("topologyVersion");
    }
}

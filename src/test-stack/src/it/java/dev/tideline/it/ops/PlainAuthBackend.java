package dev.tideline.it.ops;

import dev.tideline.standin.AwaitingMemoryBackend;
import de.bwaldvogel.mongo.bson.BinData;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import io.netty.channel.Channel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * mongo-java-server's in-memory backend that accepts SASL PLAIN authentication (RFC 4616: the
 * client sends {@code authzid NUL user NUL password} in one {@code saslStart}) and checks the
 * password, so tests can run the connectors with a {@code user:password@} connection string, and a
 * wrong password is refused with AuthenticationFailed (18) as MongoDB refuses it
 * (https://www.mongodb.com/docs/manual/reference/command/saslStart/). Everything else is the
 * stand-in's ({@link AwaitingMemoryBackend}: sessions, database streams, read concerns, as a replica set). PLAIN because it is the one mechanism whose server side is a comparison; it is what
 * MongoDB Enterprise uses for LDAP.
 */
public final class PlainAuthBackend extends AwaitingMemoryBackend {
    private static final int AUTHENTICATION_FAILED = 18;

    private final String user;
    private final String password;
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();

    public PlainAuthBackend(String user, String password) {
        this.user = user;
        this.password = password;
    }

    @Override
    public Document handleCommand(Channel channel, String databaseName, String command, Document query) {
        if ("saslStart".equalsIgnoreCase(command)) {
            return saslStart(query);
        }
        return super.handleCommand(channel, databaseName, command, query);
    }

    private Document saslStart(Document query) {
        if (!"PLAIN".equals(query.get("mechanism"))) {
            throw new MongoServerError(AUTHENTICATION_FAILED, "this stand-in accepts only PLAIN, got " + query.get("mechanism"));
        }
        Object raw = query.get("payload");
        byte[] payload = raw instanceof BinData b ? b.getData() : (byte[]) raw;
        String[] parts = new String(payload, StandardCharsets.UTF_8).split("\u0000", -1);
        if (parts.length != 3 || !user.equals(parts[1]) || !password.equals(parts[2])) {
            refused.incrementAndGet();
            throw new MongoServerError(AUTHENTICATION_FAILED, "Authentication failed.");
        }
        accepted.incrementAndGet();
        Document reply = new Document();
        reply.put("conversationId", 1);
        reply.put("done", true);
        reply.put("payload", new BinData(new byte[0]));
        reply.put("ok", 1.0);
        return reply;
    }

    public int accepted() {
        return accepted.get();
    }

    public int refused() {
        return refused.get();
    }
}

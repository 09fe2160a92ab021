package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import java.util.function.UnaryOperator;

/**
 * The backend's write commands ({@link AwaitingMemoryBackend#WRITES}) on their way to mongo-java-server: a view refuses
 * them, collection-level commands go through {@link Ddl} so that they are logged as MongoDB logs them, and a write that
 * creates its collection logs the {@code create} first. Runs under the lock that orders writes.
 */
final class WriteCommands {
    private final Ddl ddl;
    private final Views views;

    WriteCommands(Ddl ddl, Views views) {
        this.ddl = ddl;
        this.views = views;
    }

    /**
     * The write {@code command} (lower-cased: {@code name}) on {@code databaseName}; {@code run} runs it, or the query it
     * is given in its place, on the stand-in.
     */
    Document write(String databaseName, String command, String name, Document query, UnaryOperator<Document> run) {
        views.refuseWrite(databaseName, name, query, command);
        switch (name) {
            case "create" -> {
                return ddl.create(databaseName, query, () -> run.apply(query));
            }
            case "collmod" -> {
                return ddl.collMod(databaseName, query);
            }
            case "drop" -> {
                return ddl.drop(databaseName, query, () -> run.apply(query));
            }
            case "insert", "createindexes" -> ddl.createImplicitly(databaseName, collectionArgument(query, command));
            case "update", "findandmodify" -> {
                Document nothing = ddl.createsNothing(databaseName, command, query);
                if (nothing != null) {
                    return nothing;
                }
                ddl.createImplicitly(databaseName, collectionArgument(query, command));
            }
            case "renamecollection" -> {
                if (databaseName.equals("admin")) {
                    return ddl.rename(query, run);
                }
            }
            case "dropdatabase" -> {
                return ddl.dropDatabase(databaseName, () -> run.apply(query));
            }
            default -> {
            }
        }
        Document reply = run.apply(query);
        if (name.equals("createindexes") && Ddl.isOk(reply)) {
            ddl.logCreateIndexes(databaseName, query);
        }
        return reply;
    }

    private static String collectionArgument(Document query, String command) {
        return query.get(command) instanceof String s ? s : null;
    }
}

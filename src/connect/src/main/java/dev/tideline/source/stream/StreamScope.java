package dev.tideline.source.stream;

/**
 * What one change stream watches: one database ({@code db.watch()}), or the whole deployment
 * ({@code client.watch()}: {@code aggregate: 1} on {@code admin} with {@code allChangesForCluster: true},
 * https://www.mongodb.com/docs/manual/changeStreams/#watch-a-collection--database--or-deployment), every
 * database but {@code admin}, {@code config} and {@code local}. Either way the stream's {@code $match}
 * names the collections it reads ({@link StreamPipeline}); a deployment stream names their databases too.
 *
 * <p>Privileges differ (https://www.mongodb.com/docs/manual/changeStreams/#access-control): a database's
 * stream needs {@code changeStream} and {@code find} on {@code {db: <db>, collection: ""}}, a deployment's
 * on {@code {db: "", collection: ""}} (every non-system collection of every database, e.g. the built-in
 * {@code readAnyDatabase} role). A database stream is invalidated by its database's drop; a deployment
 * stream never is.
 *
 * @param database the database watched; null for the deployment
 */
public record StreamScope(String database) {
    /** The whole deployment. */
    public static final StreamScope DEPLOYMENT = new StreamScope(null);

    public static StreamScope database(String db) {
        if (db == null || db.isEmpty()) {
            throw new IllegalArgumentException("a database stream needs a database name");
        }
        return new StreamScope(db);
    }

    public boolean isDeployment() {
        return database == null;
    }

    /** How logs and errors name the stream: its database, or "the deployment". */
    public String label() {
        return database == null ? "the deployment" : database;
    }

    /** The privilege the stream needs, as MongoDB's access control names its resource. */
    public String privilege() {
        return database == null
                ? "changeStream and find on {db: \"\", collection: \"\"}, e.g. the built-in readAnyDatabase role"
                : "changeStream and find on {db: \"" + database + "\", collection: \"\"}";
    }

    @Override
    public String toString() {
        return label();
    }
}

package dev.tideline.verify.bench;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCursor;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.RawBsonDocument;

/**
 * The baseline, in a JVM of its own like verify's: both sides read whole at once, each through one
 * cursor in {@code _id} order (the way verify reads without server hashing), counting documents and
 * bytes; first, in a cold JVM as verify's is; then each side alone. Prints one
 * {@code RAW <what> <docs> <bytes> <millis>} line per read.
 * Args: sourceUri destinationUri db collection batchSize
 */
public final class RawReadChild {
    private RawReadChild() {
    }

    public static void main(String[] args) throws Exception {
        ChildStats.watch();
        String db = args[2];
        String coll = args[3];
        int batch = Integer.parseInt(args[4]);
        try (MongoClient src = MongoClients.create(args[0]); MongoClient dst = MongoClients.create(args[1])) {
            ExecutorService two = Executors.newFixedThreadPool(2);
            long start = System.nanoTime();
            Future<long[]> a = two.submit(read("source", src, db, coll, batch));
            Future<long[]> b = two.submit(read("destination", dst, db, coll, batch));
            long[] ra = a.get();
            long[] rb = b.get();
            System.out.printf("RAW both %d %d %d%n", ra[0] + rb[0], ra[1] + rb[1], (System.nanoTime() - start) / 1_000_000);
            two.shutdown();
            print("source", read("source", src, db, coll, batch));
            print("destination", read("destination", dst, db, coll, batch));
        }
        System.out.println(ChildStats.line());
    }

    private static void print(String what, Callable<long[]> read) throws Exception {
        long start = System.nanoTime();
        long[] r = read.call();
        System.out.printf("RAW %s %d %d %d%n", what, r[0], r[1], (System.nanoTime() - start) / 1_000_000);
    }

    private static Callable<long[]> read(String side, MongoClient client, String db, String coll, int batch) {
        return () -> {
            long docs = 0;
            long bytes = 0;
            try (MongoCursor<RawBsonDocument> c = client.getDatabase(db).getCollection(coll, RawBsonDocument.class).find()
                    .sort(new BsonDocument("_id", new BsonInt32(1))).batchSize(batch).cursor()) {
                while (c.hasNext()) {
                    bytes += c.next().getByteBuffer().remaining();
                    docs++;
                }
            }
            return new long[] {docs, bytes};
        };
    }
}

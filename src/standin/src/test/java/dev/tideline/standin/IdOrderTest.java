package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;

import de.bwaldvogel.mongo.backend.ValueComparator;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.MinKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The ordered {@code _id} index's shortcut order agrees with mongo-java-server's ValueComparator on every pair. */
class IdOrderTest {
    private final Random random = new Random(26);

    @Test
    void agreesWithValueComparatorOnDocumentsAndScalars() {
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            values.add(value(2));
        }
        int documentPairs = 0;
        for (Object a : values) {
            for (Object b : values) {
                int expected = Integer.signum(ValueComparator.asc().compare(a, b));
                assertThat(Integer.signum(IdOrder.INSTANCE.compare(a, b))).as("%s vs %s", a, b).isEqualTo(expected);
                if (a instanceof Document && b instanceof Document) {
                    documentPairs++;
                }
            }
        }
        assertThat(documentPairs).isGreaterThan(5_000);
    }

    @Test
    void ordersSidecarLikeKeysByNamespaceThenId() {
        Document a = new Document("ns", "a").append("id", 5);
        Document b = new Document("ns", "a").append("id", 7);
        Document c = new Document("ns", "b").append("id", 1);
        Document d = new Document("ns", "a").append("id", 6.5); // a double between two ints: numbers compare by value

        assertThat(IdOrder.INSTANCE.compare(a, b)).isNegative();
        assertThat(IdOrder.INSTANCE.compare(b, c)).isNegative();
        assertThat(IdOrder.INSTANCE.compare(d, a)).isPositive();
        assertThat(IdOrder.INSTANCE.compare(d, b)).isNegative();
        assertThat(IdOrder.INSTANCE.compare(a, new Document("ns", "a").append("id", 5L))).isZero();
    }

    /** Few names and small values, so that equal names, equal values and ties are common. */
    private Object value(int depth) {
        switch (random.nextInt(depth > 0 ? 11 : 8)) {
            case 0: return "s" + random.nextInt(3);
            case 1: return random.nextInt(3);
            case 2: return (long) random.nextInt(3);
            case 3: return random.nextInt(3) + 0.5;
            case 4: return random.nextBoolean();
            case 5: return java.time.Instant.ofEpochMilli(random.nextInt(3));
            case 6: return random.nextInt(8) == 0 ? null : "t";
            case 7: return random.nextInt(8) == 0 ? MinKey.getInstance() : random.nextInt(2);
            case 8: return java.util.Arrays.asList(value(depth - 1), value(depth - 1));
            default: {
                Document d = new Document();
                int fields = 1 + random.nextInt(3);
                for (int f = 0; f < fields; f++) {
                    d.append(random.nextInt(4) == 0 ? "x" + f : (f == 0 ? "ns" : "id"), value(depth - 1));
                }
                return d;
            }
        }
    }
}

package dev.tideline.verify.mongo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.verify.FindingKind;
import dev.tideline.verify.Observation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CandidateSpoolTest {
    @Test
    void candidatesComeBackInOrderAndATruncateDropsTheTail(@TempDir Path dir) throws Exception {
        List<Candidate> expected = new ArrayList<>();
        try (CandidateSpool spool = CandidateSpool.create(dir)) {
            Candidate a = new Candidate(0, new BsonInt32(1), FindingKind.MISSING, new Observation("f1", null), 10);
            Candidate b = new Candidate(1, new BsonDocument("k", new BsonString("x")), FindingKind.DIFFERENT, null, 20);
            spool.add(a);
            spool.add(b);
            expected.add(a);
            expected.add(b);
            long mark = spool.mark();
            long count = spool.count();
            spool.add(new Candidate(2, new BsonInt32(3), FindingKind.EXTRA, new Observation(null, "x"), 30));
            spool.truncate(mark, count);
            Candidate c = new Candidate(2, new BsonInt32(4), FindingKind.EXTRA, new Observation(null, "y"), 40);
            spool.add(c);
            expected.add(c);
            List<Candidate> read = new ArrayList<>();
            spool.read().forEachRemaining(read::add);
            assertThat(read).containsExactlyElementsOf(expected);
            assertThat(spool.count()).isEqualTo(3);
            // a second reading gives the same
            List<Candidate> again = new ArrayList<>();
            spool.read().forEachRemaining(again::add);
            assertThat(again).containsExactlyElementsOf(expected);
            assertThat(Files.list(dir).count()).as("unlinked while open: a killed run leaves no file").isZero();
        }
        assertThat(Files.list(dir).count()).isZero();
    }
}

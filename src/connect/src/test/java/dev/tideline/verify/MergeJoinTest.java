package dev.tideline.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

class MergeJoinTest {
    record Doc(BsonValue id, String content) {
    }

    private static Doc doc(int id, String content) {
        return new Doc(new BsonInt32(id), content);
    }

    private static List<String> walk(List<Doc> source, List<Doc> destination) {
        MergeJoin<Doc> join = new MergeJoin<>(source.iterator(), destination.iterator(), Doc::id, (a, b) -> Objects.equals(a.content, b.content));
        List<String> steps = new ArrayList<>();
        MergeJoin.Step<Doc> s;
        while ((s = join.next()) != null) {
            steps.add(s.kind() + " " + s.id());
        }
        return steps;
    }

    @Test
    void everyIdOnceInOrderWithHowItDiffers() {
        List<Doc> src = List.of(doc(1, "a"), doc(2, "b"), doc(4, "d"), doc(6, "f"));
        List<Doc> dst = List.of(doc(1, "a"), doc(3, "c"), doc(4, "X"), doc(6, "f"), doc(7, "g"));
        assertThat(walk(src, dst)).containsExactly("SAME BsonInt32{value=1}", "MISSING BsonInt32{value=2}",
                "EXTRA BsonInt32{value=3}", "DIFFERENT BsonInt32{value=4}", "SAME BsonInt32{value=6}", "EXTRA BsonInt32{value=7}");
    }

    @Test
    void oneSideEmpty() {
        assertThat(walk(List.of(doc(1, "a"), doc(2, "b")), List.of())).containsExactly("MISSING BsonInt32{value=1}", "MISSING BsonInt32{value=2}");
        assertThat(walk(List.of(), List.of(doc(1, "a")))).containsExactly("EXTRA BsonInt32{value=1}");
        assertThat(walk(List.of(), List.of())).isEmpty();
    }

    @Test
    void idsEqualByValueAcrossTypesArePairedAndTheirContentCompared() {
        Doc int1 = new Doc(new BsonInt32(1), "{_id: int32 1}");
        Doc double1 = new Doc(new BsonDouble(1.0), "{_id: double 1.0}");
        assertThat(walk(List.of(int1), List.of(double1))).containsExactly("DIFFERENT BsonInt32{value=1}");
    }

    @Test
    void mixedTypesInBracketOrder() {
        List<Doc> src = List.of(new Doc(new BsonInt32(5), "n"), new Doc(new BsonString("a"), "s"));
        List<Doc> dst = List.of(new Doc(new BsonString("a"), "s"));
        assertThat(walk(src, dst)).containsExactly("MISSING BsonInt32{value=5}", "SAME BsonString{value='a'}");
    }
}

package dev.tideline.source.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import dev.tideline.source.capture.StreamPositionTest;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

class FragmentAssemblerTest {
    private static RawBsonDocument fragment(int n, int of, BsonDocument fields) {
        BsonDocument d = new BsonDocument("_id", StreamPositionTest.token(500, 1, String.format("%02X", n)));
        d.putAll(fields);
        d.append("splitEvent", new BsonDocument("fragment", new BsonInt32(n)).append("of", new BsonInt32(of)));
        return new RawBsonDocument(d, new BsonDocumentCodec());
    }

    private static RawBsonDocument add(FragmentAssembler a, RawBsonDocument f) {
        return a.add(f, RawChangeEvent.parse(f));
    }

    @Test
    void theFragmentsOfOneEventBecomeTheWholeEventOrderedAtTheFirstFragmentsToken() {
        BsonDocument big = new BsonDocument("_id", new BsonInt32(9)).append("blob", new BsonString("x".repeat(1000)));
        FragmentAssembler a = new FragmentAssembler();
        RawBsonDocument first = fragment(1, 3, new BsonDocument("operationType", new BsonString("update"))
                .append("clusterTime", new BsonTimestamp(500, 1)).append("ns", new BsonDocument("db", new BsonString("d"))
                        .append("coll", new BsonString("c"))).append("documentKey", new BsonDocument("_id", new BsonInt32(9))));
        assertThat(add(a, first)).isNull();
        assertThat(a.inProgress()).isTrue();
        assertThat(add(a, fragment(2, 3, new BsonDocument("fullDocument", big)))).isNull();
        RawBsonDocument whole = add(a, fragment(3, 3, new BsonDocument("fullDocumentBeforeChange", big)));
        assertThat(a.inProgress()).isFalse();

        RawChangeEvent e = RawChangeEvent.parse(whole);
        assertThat(e.isFragment()).isFalse();
        assertThat(e.type()).isEqualTo("update");
        assertThat(e.coll()).isEqualTo("c");
        assertThat(e.documentId()).isEqualTo(new BsonInt32(9));
        assertThat(e.fullDocument()).isEqualTo(big);
        assertThat(e.before()).isEqualTo(big);
        // the first fragment's token orders the event; the stream never opens at it (StreamPosition.afterSplitEvent)
        assertThat(e.token()).isEqualTo(StreamPositionTest.token(500, 1, "01"));
    }

    @Test
    void aFragmentOutOfOrderDropsThePartialEvent() {
        FragmentAssembler a = new FragmentAssembler();
        add(a, fragment(1, 3, new BsonDocument("operationType", new BsonString("insert"))));
        assertThatThrownBy(() -> add(a, fragment(3, 3, new BsonDocument()))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("fragment 3 of 3 arrived after 1");
        assertThat(a.inProgress()).isFalse();
        assertThatThrownBy(() -> add(a, fragment(2, 2, new BsonDocument()))).isInstanceOf(IllegalStateException.class);
        assertThat(add(a, fragment(1, 1, new BsonDocument("operationType", new BsonString("insert"))))).isNotNull();
    }
}

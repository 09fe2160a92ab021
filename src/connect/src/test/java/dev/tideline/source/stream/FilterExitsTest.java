package dev.tideline.source.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.SourceOffset;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class FilterExitsTest {
    private static final Namespace NS = new Namespace("shop", "orders");
    private static final BsonDocument KEEP = BsonDocument.parse("{keep: true}");
    private static final SourceOffset AT = SourceOffset.streamFrom(new BsonTimestamp(100, 1));

    private static Captured.Change change(Op op, String doc) {
        return new Captured.Change(new ChangeEvent(op, NS, new BsonInt32(2), doc == null ? null : BsonDocument.parse(doc),
                new BsonTimestamp(100, 1), 5L, null), AT);
    }

    @Test
    void anUpdateOutOfTheFilterIsADelete() {
        Captured out = FilterExits.apply(KEEP, change(Op.UPDATE, "{_id: 2, keep: false}"));
        ChangeEvent e = ((Captured.Change) out).event();
        assertThat(e.op()).isEqualTo(Op.DELETE);
        assertThat(e.id()).isEqualTo(new BsonInt32(2));
        assertThat(e.document()).isNull();
        assertThat(e.clusterTime()).isEqualTo(new BsonTimestamp(100, 1));
        assertThat(out.offset()).isEqualTo(AT);
        assertThat(((Captured.Change) out).before()).isEqualTo(BsonDocument.parse("{_id: 2, keep: false}"));
        assertThat(((Captured.Change) FilterExits.apply(KEEP, change(Op.REPLACE, "{_id: 2}"))).event().op()).isEqualTo(Op.DELETE);
    }

    @Test
    void whatStillMatchesOrCannotBeJudgedIsLeftAsItIs() {
        Captured.Change inside = change(Op.UPDATE, "{_id: 2, keep: true}");
        assertThat(FilterExits.apply(KEEP, inside)).isSameAs(inside);
        Captured.Change gone = change(Op.UPDATE, null); // looked up after a delete: the delete follows
        assertThat(FilterExits.apply(KEEP, gone)).isSameAs(gone);
        Captured.Change insert = change(Op.INSERT, "{_id: 2, keep: false}");
        assertThat(FilterExits.apply(KEEP, insert)).isSameAs(insert);
        Captured.Change any = change(Op.UPDATE, "{_id: 2, keep: false}");
        assertThat(FilterExits.apply(new BsonDocument(), any)).isSameAs(any);
        assertThat(FilterExits.apply(BsonDocument.parse("{name: {$regex: 'a'}}"), any)).isSameAs(any);
    }
}

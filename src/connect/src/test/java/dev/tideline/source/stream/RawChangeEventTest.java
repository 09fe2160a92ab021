package dev.tideline.source.stream;

import static org.assertj.core.api.Assertions.assertThat;

import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

class RawChangeEventTest {
    private static final BsonDocument TOKEN = new BsonDocument("_data", new BsonString("8266F1A2B3000000012B0229"));
    private static final BsonTimestamp CT = new BsonTimestamp(1_714_521_600, 4);

    private static RawBsonDocument raw(BsonDocument d) {
        return new RawBsonDocument(d, new BsonDocumentCodec());
    }

    @Test
    void readsTheFieldsTheSourceUsesAndKeepsTheDocumentAsBytes() {
        BsonDocument full = new BsonDocument("_id", new BsonInt32(7)).append("name", new BsonString("ada"))
                .append("nested", new BsonDocument("x", new BsonInt32(1)));
        BsonDocument event = new BsonDocument("_id", TOKEN).append("operationType", new BsonString("update"))
                .append("clusterTime", CT).append("wallTime", new BsonDateTime(1_714_521_600_123L))
                .append("fullDocument", full).append("ns", new BsonDocument("db", new BsonString("d")).append("coll", new BsonString("c")))
                .append("documentKey", new BsonDocument("_id", new BsonInt32(7)))
                .append("updateDescription", new BsonDocument("updatedFields", new BsonDocument("name", new BsonString("ada"))));

        RawChangeEvent e = RawChangeEvent.parse(raw(event));

        assertThat(e.token()).isEqualTo(TOKEN);
        assertThat(e.type()).isEqualTo("update");
        assertThat(e.clusterTime()).isEqualTo(CT);
        assertThat(e.wallTime()).isEqualTo(1_714_521_600_123L);
        assertThat(e.documentId()).isEqualTo(new BsonInt32(7));
        assertThat(e.fullDocument()).isEqualTo(full);
        assertThat(e.fullDocument().getByteBuffer().remaining()).isEqualTo(raw(full).getByteBuffer().remaining());
        assertThat(e.destination()).isNull();
        assertThat(e.db()).isEqualTo("d");
        assertThat(e.coll()).isEqualTo("c");
        assertThat(e.before()).isNull();
        assertThat(e.isFragment()).isFalse();
    }

    @Test
    void readsThePreImageAndTheFragmentOfASplitEvent() {
        BsonDocument before = new BsonDocument("_id", new BsonInt32(3)).append("tenant", new BsonString("acme"));
        BsonDocument delete = new BsonDocument("_id", TOKEN).append("operationType", new BsonString("delete"))
                .append("ns", new BsonDocument("db", new BsonString("d")).append("coll", new BsonString("c")))
                .append("documentKey", new BsonDocument("_id", new BsonInt32(3))).append("fullDocumentBeforeChange", before)
                .append("splitEvent", new BsonDocument("fragment", new BsonInt32(2)).append("of", new BsonInt32(3)));
        RawChangeEvent e = RawChangeEvent.parse(raw(delete));
        assertThat(e.before()).isEqualTo(before);
        assertThat(e.fragment()).isEqualTo(2);
        assertThat(e.fragments()).isEqualTo(3);
        assertThat(e.isFragment()).isTrue();
    }

    @Test
    void aNullOrMissingDocumentIsNullAndARenameNamesItsDestination() {
        BsonDocument delete = new BsonDocument("_id", TOKEN).append("operationType", new BsonString("delete"))
                .append("documentKey", new BsonDocument("_id", new BsonString("k"))).append("fullDocument", BsonNull.VALUE);
        RawChangeEvent d = RawChangeEvent.parse(raw(delete));
        assertThat(d.fullDocument()).isNull();
        assertThat(d.documentId()).isEqualTo(new BsonString("k"));
        assertThat(d.clusterTime()).isNull();
        assertThat(d.wallTime()).isNull();

        BsonDocument rename = new BsonDocument("_id", TOKEN).append("operationType", new BsonString("rename"))
                .append("to", new BsonDocument("db", new BsonString("d2")).append("coll", new BsonString("c2")));
        assertThat(RawChangeEvent.parse(raw(rename)).destination()).isEqualTo("d2.c2");
    }

    @Test
    void aDocumentInTheMiddleOfALargerBufferIsSlicedAtItsOwnBounds() {
        BsonDocument full = new BsonDocument("_id", new BsonInt32(1)).append("pad", new BsonString("x".repeat(2000)));
        BsonDocument event = new BsonDocument("_id", TOKEN).append("fullDocument", full)
                .append("operationType", new BsonString("insert")).append("documentKey", new BsonDocument("_id", new BsonInt32(1)));
        // a document that is itself a view into a larger array, as a batch's events are
        BsonDocument batch = new BsonDocument("before", new BsonString("y")).append("event", event);
        RawBsonDocument batchRaw = raw(batch);
        RawBsonDocument eventView = (RawBsonDocument) batchRaw.get("event");

        RawChangeEvent e = RawChangeEvent.parse(eventView);

        assertThat(e.fullDocument()).isEqualTo(full);
        assertThat(e.type()).isEqualTo("insert");
    }

    @Test
    void aShardedCollectionsDocumentKeyIsKeptWhole() {
        BsonDocument documentKey = new BsonDocument("region", new BsonString("eu")).append("_id", new BsonInt32(9));
        BsonDocument delete = new BsonDocument("_id", TOKEN).append("operationType", new BsonString("delete"))
                .append("documentKey", documentKey);
        RawChangeEvent e = RawChangeEvent.parse(raw(delete));
        assertThat(e.documentId()).isEqualTo(new BsonInt32(9));
        assertThat(e.documentKey()).isEqualTo(documentKey);
        assertThat(dev.tideline.event.ChangeEvent.shardKeyOf(e.documentKey()))
                .isEqualTo(new BsonDocument("region", new BsonString("eu")));
    }
}

package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.RepairProgress;
import dev.tideline.source.capture.SourceOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/**
 * A delete carries no document: its tl.tenant header comes from the pre-image the change stream gives
 * for collections that keep them; without one the delete has no tenant header. The pre-image never
 * reaches the record's value.
 */
class TenantOfDeletesTest {
    private static final Namespace NS = new Namespace("shop", "orders");
    private static final SourceOffset OFFSET = SourceOffset.streamFrom(new BsonTimestamp(1_700_000_000, 1));

    private static SourceRecord record(Captured.Change change) {
        RecordFactory factory = new RecordFactory(NS, "t.shop.orders", "t.heartbeats", "t.control", ValueFormat.BSON, "account.tenant",
                false, "p1");
        RecordState state = new RecordState(RepairProgress.NONE);
        List<SourceRecord> out = new ArrayList<>();
        factory.append(change, state, out);
        return out.get(0);
    }

    private static String tenant(SourceRecord r) {
        Header h = r.headers().lastWithName(EventHeaders.TENANT);
        return h == null ? null : (String) h.value();
    }

    @Test
    void aDeleteTakesItsTenantFromThePreImage() {
        BsonDocument before = new BsonDocument("_id", new BsonInt32(7)).append("account", new BsonDocument("tenant", new BsonString("acme")));
        ChangeEvent delete = new ChangeEvent(Op.DELETE, NS, new BsonInt32(7), null, new BsonTimestamp(1_700_000_001, 0), 1L, null);
        SourceRecord r = record(new Captured.Change(delete, OFFSET, before));
        assertThat(tenant(r)).isEqualTo("acme");
        assertThat(new String((byte[]) r.value(), java.nio.charset.StandardCharsets.ISO_8859_1)).doesNotContain("acme");
    }

    @Test
    void withoutAPreImageADeleteHasNoTenantAndAChangeUsesItsDocument() {
        ChangeEvent delete = new ChangeEvent(Op.DELETE, NS, new BsonInt32(7), null, new BsonTimestamp(1_700_000_001, 0), 1L, null);
        assertThat(tenant(record(new Captured.Change(delete, OFFSET)))).isNull();
        BsonDocument doc = new BsonDocument("_id", new BsonInt32(7)).append("account", new BsonDocument("tenant", new BsonString("globex")));
        BsonDocument before = new BsonDocument("_id", new BsonInt32(7)).append("account", new BsonDocument("tenant", new BsonString("acme")));
        ChangeEvent update = new ChangeEvent(Op.UPDATE, NS, new BsonInt32(7), doc, new BsonTimestamp(1_700_000_002, 0), 1L, null);
        assertThat(tenant(record(new Captured.Change(update, OFFSET, before)))).as("the document after the change wins").isEqualTo("globex");
    }
}

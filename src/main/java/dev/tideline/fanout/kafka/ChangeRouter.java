package dev.tideline.fanout.kafka;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.MalformedRecordException;
import dev.tideline.event.ValueFormat;
import dev.tideline.fanout.channel.ChannelName;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * Decides where one change record goes: its channel ({@code <db>.<coll>.<tenant>}, the tenant from
 * the {@code tl.tenant} header the source sets from {@code tenant.field}) and the JSON a client
 * receives. Pure: the consumer hands it what it read.
 */
public final class ChangeRouter {
    private static final JsonWriterSettings RELAXED = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    private final ValueFormat format;

    public ChangeRouter(ValueFormat format) {
        this.format = format;
    }

    /** Where a record goes, or why it goes nowhere. */
    public sealed interface Route permits Routed, Skipped {
    }

    public record Routed(ChannelName channel, String changeJson) implements Route {
    }

    /** @param reason a short word for the gateway's counters: not-a-change, no-tenant, bad-tenant, unroutable-name, malformed */
    public record Skipped(String reason, String detail) implements Route {
    }

    /** @param header the last value of a header by name, or null */
    public Route route(byte[] value, Function<String, String> header) {
        if (value == null || !EventHeaders.KIND_CHANGE.equals(header.apply(EventHeaders.KIND))) {
            return new Skipped("not-a-change", "heartbeat, control or tombstone record");
        }
        String tenant = header.apply(EventHeaders.TENANT);
        if (tenant == null || tenant.isEmpty()) {
            return new Skipped("no-tenant", "no " + EventHeaders.TENANT + " header: set tenant.field on the source");
        }
        if (!ChannelName.isValidTenant(tenant)) {
            return new Skipped("bad-tenant", "tenant '" + tenant + "' is not a valid channel segment");
        }
        ChangeEvent event;
        try {
            Object raw = format == ValueFormat.JSON ? new String(value, StandardCharsets.UTF_8) : value;
            event = EnvelopeCodec.fromBson(EnvelopeCodec.readDocument(raw));
        } catch (MalformedRecordException e) {
            return new Skipped("malformed", e.getMessage());
        }
        String db = event.ns().db();
        String coll = event.ns().coll();
        if (!ChannelName.isValidDb(db) || !ChannelName.isValidCollection(coll)) {
            return new Skipped("unroutable-name", "namespace " + db + "." + coll + " has characters a channel name cannot hold");
        }
        BsonDocument out = new BsonDocument()
                .append("op", new BsonString(event.op().wireName()))
                .append("db", new BsonString(db))
                .append("coll", new BsonString(coll))
                .append("id", event.id());
        if (event.document() != null) {
            out.append("document", event.document());
        }
        out.append("wallTime", new BsonDateTime(event.wallTimeMillis()));
        return new Routed(new ChannelName(db, coll, tenant), out.toJson(RELAXED));
    }
}

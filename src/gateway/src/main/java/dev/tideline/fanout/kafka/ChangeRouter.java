package dev.tideline.fanout.kafka;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.MalformedRecordException;
import dev.tideline.event.ValueFormat;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.nesting.NestingDepth;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.Function;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * Decides where one change record goes: its channel ({@code <db>.<coll>.<tenant>}) and the JSON a
 * client receives, or why it goes nowhere. The tenant is the {@code tl.tenant} header the source
 * sets from {@code tenant.field}; a delete without one (the source saw no document) goes to the
 * tenant the document had when the gateway last saw it. A change already delivered (the source
 * replays after a crash) is recognised by the {@link DocumentMemory}. Records are untrusted: their
 * nesting is checked before anything decodes them. No I/O.
 */
public final class ChangeRouter {
    private static final JsonWriterSettings RELAXED = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    /** Skip reasons (the counters at /stats). */
    public static final String NOT_A_CHANGE = "not-a-change";
    public static final String TOO_DEEP = "too-deep";
    public static final String MALFORMED = "malformed";
    public static final String UNROUTABLE_NAME = "unroutable-name";
    public static final String NS_MISMATCH = "ns-mismatch";
    public static final String NO_TENANT = "no-tenant";
    public static final String BAD_TENANT = "bad-tenant";
    public static final String DELETE_WITHOUT_TENANT = "delete-without-tenant";
    public static final String REPLAYED = "replayed";
    public static final String STALE_REPLAY = "stale-replay";

    private final ValueFormat format;
    private final int maxDepth;
    private final DocumentMemory memory;

    public ChangeRouter(ValueFormat format, int maxDepth, DocumentMemory memory) {
        this.format = format;
        this.maxDepth = maxDepth;
        this.memory = memory;
    }

    /** Where a record goes, or why it goes nowhere. */
    public sealed interface Route permits Routed, Skipped {
    }

    /** @param tenantRemembered the tenant came from the memory (a delete without a tenant header) */
    public record Routed(ChannelName channel, String changeJson, boolean tenantRemembered) implements Route {
    }

    /** @param reason one of the constants above */
    public record Skipped(String reason, String detail) implements Route {
    }

    /**
     * The channel a record names in its headers alone, when it names both namespace and tenant: a
     * reader looking for one channel skips the others without decoding them. Routing itself checks
     * that the value agrees.
     */
    public static Optional<ChannelName> channelInHeaders(Function<String, String> header) {
        String ns = header.apply(EventHeaders.NAMESPACE);
        String tenant = header.apply(EventHeaders.TENANT);
        if (ns == null || tenant == null || !EventHeaders.KIND_CHANGE.equals(header.apply(EventHeaders.KIND))) {
            return Optional.empty();
        }
        return ChannelName.parse(ns + "." + tenant);
    }

    /** @param header the last value of a header by name, or null */
    public Route route(byte[] value, Function<String, String> header) {
        if (value == null || !EventHeaders.KIND_CHANGE.equals(header.apply(EventHeaders.KIND))) {
            return new Skipped(NOT_A_CHANGE, "heartbeat, control or tombstone record");
        }
        boolean tooDeep = format == ValueFormat.JSON ? NestingDepth.jsonExceeds(value, maxDepth) : NestingDepth.bsonExceeds(value, maxDepth);
        if (tooDeep) {
            return new Skipped(TOO_DEEP, "the value nests deeper than " + maxDepth + " levels (record.max.depth)");
        }
        ChangeEvent event;
        try {
            Object raw = format == ValueFormat.JSON ? new String(value, StandardCharsets.UTF_8) : value;
            event = EnvelopeCodec.fromBson(EnvelopeCodec.readDocument(raw));
        } catch (MalformedRecordException e) {
            return new Skipped(MALFORMED, e.getMessage() + " (value.format is " + format.name().toLowerCase(java.util.Locale.ROOT) + ")");
        }
        String db = event.ns().db();
        String coll = event.ns().coll();
        if (!ChannelName.isValidDb(db) || !ChannelName.isValidCollection(coll)) {
            return new Skipped(UNROUTABLE_NAME, "namespace " + db + "." + coll + " has characters a channel name cannot hold");
        }
        String nsHeader = header.apply(EventHeaders.NAMESPACE);
        if (nsHeader != null && !nsHeader.equals(db + "." + coll)) {
            return new Skipped(NS_MISMATCH, "header " + EventHeaders.NAMESPACE + " says " + nsHeader + ", the value " + db + "." + coll);
        }
        String idJson = valueJson(event.id());
        String documentKey = db + '\u0000' + coll + '\u0000' + idJson;
        String tenant = header.apply(EventHeaders.TENANT);
        boolean remembered = false;
        if (tenant == null || tenant.isEmpty()) {
            if (!event.isDelete()) {
                return new Skipped(NO_TENANT, "no " + EventHeaders.TENANT + " header: set tenant.field on the source");
            }
            tenant = memory.tenantOf(documentKey);
            if (tenant == null) {
                return new Skipped(DELETE_WITHOUT_TENANT, "a delete of " + db + "." + coll + " " + idJson + " carries no "
                        + EventHeaders.TENANT + " header and the gateway has not seen that document: enable pre-images on the "
                        + "collection (changeStreamPreAndPostImages) so the source puts the tenant on deletes");
            }
            remembered = true;
        }
        if (!ChannelName.isValidTenant(tenant)) {
            return new Skipped(BAD_TENANT, "tenant '" + printable(tenant) + "' is not a valid channel segment");
        }
        String documentJson = event.document() == null ? null : event.document().toJson(RELAXED);
        long clusterTime = event.clusterTime() == null ? -1 : event.clusterTime().getValue();
        DocumentMemory.Verdict verdict = memory.admit(documentKey, tenant, clusterTime,
                documentJson == null ? 0 : DocumentMemory.hash(documentJson), event.isDelete());
        if (verdict == DocumentMemory.Verdict.REPLAYED) {
            return new Skipped(REPLAYED, "the same version of " + db + "." + coll + " " + idJson + " was delivered already");
        }
        if (verdict == DocumentMemory.Verdict.STALE) {
            return new Skipped(STALE_REPLAY, "an older version of " + db + "." + coll + " " + idJson + " than the one delivered");
        }
        String head = new BsonDocument("op", new BsonString(event.op().wireName())).append("db", new BsonString(db))
                .append("coll", new BsonString(coll)).toJson(RELAXED);
        StringBuilder json = new StringBuilder(head.length() + idJson.length() + (documentJson == null ? 0 : documentJson.length()) + 64)
                .append(head, 0, head.length() - 1).append(", \"id\": ").append(idJson);
        if (documentJson != null) {
            json.append(", \"document\": ").append(documentJson);
        }
        json.append(", \"wallTime\": ").append(valueJson(new BsonDateTime(event.wallTimeMillis()))).append('}');
        return new Routed(new ChannelName(db, coll, tenant), json.toString(), remembered);
    }

    /** One value as relaxed Extended JSON. */
    private static String valueJson(BsonValue v) {
        String wrapped = new BsonDocument("v", v).toJson(RELAXED);
        return wrapped.substring("{\"v\": ".length(), wrapped.length() - 1);
    }

    private static String printable(String s) {
        String cut = s.length() > 80 ? s.substring(0, 80) + "..." : s;
        return cut.replaceAll("[^\\x20-\\x7e]", "?");
    }
}

package dev.tideline.sink.front;

import dev.tideline.event.MalformedRecordException;
import dev.tideline.event.RefusedRecordException;
import dev.tideline.sign.RecordSignature;
import dev.tideline.sign.RecordSigningSettings;
import dev.tideline.sink.check.DestinationPolicy;
import dev.tideline.sink.check.RecordShape;
import dev.tideline.sink.config.RecordSafetySettings;
import dev.tideline.sink.config.SinkConfig;
import dev.tideline.sink.decode.Decoded;
import dev.tideline.sink.decode.Ids;
import dev.tideline.sink.decode.RecordDecoder;
import dev.tideline.sink.decode.SinkChange;
import dev.tideline.sink.guard.VersionBound;
import dev.tideline.sink.plan.UpdateApplier;
import dev.tideline.sink.route.NamespaceRouter;
import dev.tideline.sink.route.RoutedChange;
import dev.tideline.sink.write.RecordFailure;
import java.util.Optional;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * What every record passes before anything acts on it, in the sink and in the peer sink alike (peer mode adds its
 * stamp check and its decision behind it):
 * <ol>
 *   <li>the size and depth of its key and value ({@code record.max.bytes}), before anything walks them;</li>
 *   <li>its signature, when the sink has a {@code record.signing.key} ({@link RecordSignature});</li>
 *   <li>decoding, with the shape and safety checks of the decoder (ids that match by value, documents MongoDB
 *       takes);</li>
 *   <li>the namespace policy ({@link DestinationPolicy}: never admin, config, local, system.* or Tideline's own
 *       collections; only {@code database.allow}) and the route ({@link NamespaceRouter});</li>
 *   <li>the bounds of a routed change: its version at most {@code version.max.ahead.ms} ahead of this worker's clock
 *       ({@link VersionBound}: a version from the future would make every later change of its document look stale),
 *       and the paths and nesting of a partial update within what MongoDB takes ({@link UpdateApplier#checkDepths}),
 *       checked before anything folds it with other changes.</li>
 * </ol>
 * Built from the sink's configuration only, so the two tasks cannot drift apart.
 */
public final class SinkFrontEnd {
    /** What a record is, once read. */
    public sealed interface Read permits Routed, Skipped, Filtered {
    }

    /** A change and where it lands. */
    public record Routed(RoutedChange change) implements Read {
    }

    /** A record that asks for no write (a control record, an ignored tombstone). */
    public record Skipped(String reason) implements Read {
    }

    /** A change the collection filter leaves to another destination. */
    public record Filtered() implements Read {
    }

    /** How decoded documents are kept. */
    public enum Documents {
        /** as the bytes they came in (checked all the same): for a writer that only sends them on */
        RAW,
        /** as objects: for a reader that looks into their fields (peer mode) */
        OBJECTS
    }

    private static final Filtered FILTERED = new Filtered();

    private final RecordShape shape;
    private final Optional<RecordSignature> signature;
    private final RecordDecoder decoder;
    private final NamespaceRouter router;
    private final VersionBound versionBound;

    SinkFrontEnd(RecordShape shape, Optional<RecordSignature> signature, RecordDecoder decoder, NamespaceRouter router,
                 VersionBound versionBound) {
        this.shape = shape;
        this.signature = signature;
        this.decoder = decoder;
        this.router = router;
        this.versionBound = versionBound;
    }

    public static SinkFrontEnd of(SinkConfig config, Documents documents) {
        var writes = config.writes();
        var routing = config.routing();
        var safety = config.safety();
        RecordShape shape = new RecordShape(safety.maxRecordBytes(), RecordSafetySettings.RECORD_MAX_BYTES);
        NamespaceRouter router = new NamespaceRouter(routing.database(), routing.topicMap(), routing.filter(),
                new DestinationPolicy(safety.allowedDatabases()));
        RecordDecoder decoder = new RecordDecoder(writes.tombstoneAction(), writes.versionField(), documents == Documents.RAW, shape);
        VersionBound bound = new VersionBound(safety.versionMaxAheadMs(), System::currentTimeMillis);
        return new SinkFrontEnd(shape, RecordSigningSettings.signature(config), decoder, router, bound);
    }

    /**
     * @throws RefusedRecordException   for a record the sink must not apply (too large, unsigned, a namespace it never
     *                                  writes, a version too far ahead, an update MongoDB would refuse)
     * @throws MalformedRecordException for a record that cannot be read as a change
     */
    public Read read(SinkRecord record) {
        authenticate(record);
        Decoded d = decoder.decode(record);
        if (d instanceof SinkChange change) {
            Optional<RoutedChange> routed = router.route(change);
            routed.ifPresent(rc -> checkBounds(rc.change()));
            return routed.<Read>map(Routed::new).orElse(FILTERED);
        }
        return new Skipped(((Decoded.Skip) d).reason());
    }

    private void checkBounds(SinkChange change) {
        versionBound.problem(change.version(), "its version").ifPresent(p -> {
            throw new RefusedRecordException(p);
        });
        if (change.isPartial()) {
            try {
                UpdateApplier.checkDepths(change.updates());
            } catch (UpdateApplier.OutOfBounds e) {
                throw new RefusedRecordException("refused: the update of _id " + Ids.show(change.id()) + " " + e.getMessage());
            }
        }
    }

    /**
     * Checks only the size and the signature: for records read by other means than the decoder (resnapshot markers,
     * whose meaning is in their headers). {@link #read} does this first.
     *
     * @throws RefusedRecordException when the record is too large, or not signed as this sink requires
     */
    public void authenticate(SinkRecord record) {
        if (signature.isEmpty()) {
            return; // the decoder checks the size first thing
        }
        // bounded before the signature walks the key and the value
        shape.check(record.key(), "record key");
        shape.check(record.value(), "record value");
        signature.get().problem(record).ifPresent(p -> {
            throw new RefusedRecordException(p);
        });
    }

    /** Where records land: for records read by other means than {@link #read} (resnapshot markers). */
    public NamespaceRouter router() {
        return router;
    }

    /** The resnapshot markers of records {@link #read} skipped, routed and bounded as the sink's sweep reads them. */
    public MarkerReader markers() {
        return new MarkerReader(router, versionBound);
    }

    /** How far ahead a version may be: for records read by other means than {@link #read} (resnapshot markers' epochs). */
    public VersionBound versionBound() {
        return versionBound;
    }

    /** The failure to report for a record {@link #read} threw on, with the reason operators see. */
    public static RecordFailure failure(SinkRecord record, MalformedRecordException e) {
        String reason = e instanceof RefusedRecordException ? e.getMessage() : "malformed record: " + e.getMessage();
        return new RecordFailure(record, reason, e);
    }
}

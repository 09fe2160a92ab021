package dev.tideline.sink;

import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import dev.tideline.sink.check.RecordFaults;
import dev.tideline.sink.config.SinkConfig;
import dev.tideline.sink.config.StaleGuardMode;
import dev.tideline.sink.front.SinkFrontEnd;
import dev.tideline.sink.guard.CopyBegins;
import dev.tideline.sink.guard.StaleWriteGuard;
import dev.tideline.sink.guard.VersionStore;
import dev.tideline.sink.guard.WriteGuard;
import dev.tideline.sink.plan.NamespaceBatch;
import dev.tideline.sink.plan.PaddingBudget;
import dev.tideline.sink.plan.WritePlan;
import dev.tideline.sink.plan.WriteFilter;
import dev.tideline.sink.plan.WritePlanner;
import dev.tideline.sink.route.RoutedChange;
import dev.tideline.sink.write.BulkWriteExecutor;
import dev.tideline.sink.write.PartialUpdates;
import dev.tideline.sink.write.RecordFailure;
import dev.tideline.sink.write.SweepWriter;
import dev.tideline.sink.write.WriteFailures;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Applies one batch: the front end ({@link SinkFrontEnd}: size, signature, decode, namespace policy, route, the
 * version's and a partial update's bounds) → plan → guard → partial updates made whole → record versions → write. Malformed and refused records are
 * collected, not thrown, so the rest of the batch is always applied; what to do with them is the caller's decision
 * ({@link dev.tideline.sink.front.FailedRecordHandler}). So is whatever else one record makes the in-memory stages
 * throw, a StackOverflowError or an OutOfMemoryError included ({@link RecordFaults}). Failures that are not about one
 * record throw.
 */
public final class BatchApplier {
    private final SinkFrontEnd frontEnd;
    private final WriteGuard guard;
    private final PartialUpdates partials;
    private final BulkWriteExecutor executor;
    private final int chunkSize;
    private final ResnapshotSweeper sweeper;

    private BatchApplier(SinkFrontEnd frontEnd, WriteGuard guard, PartialUpdates partials, BulkWriteExecutor executor, int chunkSize,
                 ResnapshotSweeper sweeper) {
        this.frontEnd = frontEnd;
        this.guard = guard;
        this.partials = partials;
        this.executor = executor;
        this.chunkSize = chunkSize;
        this.sweeper = sweeper;
    }

    public static BatchApplier create(SinkConfig config, MongoClient client) {
        var writes = config.writes();
        VersionStore versions = writes.staleGuard() == StaleGuardMode.OFF ? null : new VersionStore(client);
        WriteGuard guard = versions == null ? WriteGuard.NONE : new StaleWriteGuard(versions);
        SinkFrontEnd frontEnd = SinkFrontEnd.of(config, SinkFrontEnd.Documents.RAW);
        return new BatchApplier(frontEnd,
                guard, new PartialUpdates(client), new BulkWriteExecutor(client, writes.writeMode(), new WriteFilter(writes.shardKeyFields())),
                writes.bulkChunkSize(),
                new ResnapshotSweeper(frontEnd.router(), versions, new SweepWriter(client), new CopyBegins(client), frontEnd.versionBound()));
    }

    public BatchOutcome apply(Collection<SinkRecord> records) {
        List<RecordFailure> failures = new ArrayList<>();
        List<RoutedChange> routed = new ArrayList<>(records.size());
        int skipped = 0;
        int filtered = 0;
        List<ResnapshotSweeper.Pending> markers = new ArrayList<>();
        for (SinkRecord r : records) {
            try {
                SinkFrontEnd.Read read = frontEnd.read(r);
                if (read instanceof SinkFrontEnd.Routed routedChange) {
                    routed.add(routedChange.change());
                } else if (read instanceof SinkFrontEnd.Filtered) {
                    filtered++;
                } else {
                    // a control record: a resnapshot marker is applied after the batch's changes (see ResnapshotSweeper)
                    sweeper.read(r).ifPresent(markers::add);
                    skipped++;
                }
            } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
                failures.add(new RecordFailure(r, RecordFaults.reason("while reading it", e), e));
            }
        }
        PaddingBudget padding = new PaddingBudget();
        WritePlan plan = WritePlanner.plan(routed, padding);
        plan.refused().forEach(r -> failures.add(new RecordFailure(r.change().change().record(), r.reason(), null)));
        int stale = 0;
        int written = 0;
        for (NamespaceBatch planned : plan.batches()) {
            WriteGuard.Admitted admitted;
            try {
                admitted = guard.admit(planned);
            } catch (MongoException e) {
                throw WriteFailures.translate(e, "reading versions for " + planned.destination()
                        + " in the " + VersionStore.COLLECTION + " collection");
            }
            stale += admitted.stale();
            PartialUpdates.Resolved resolved = partials.resolve(admitted.batch(), padding);
            failures.addAll(resolved.refused());
            WriteGuard.Recorded recorded;
            try {
                recorded = guard.record(admitted, resolved.batch());
            } catch (MongoException e) {
                throw WriteFailures.translate(e, "recording versions for " + planned.destination()
                        + " in the " + VersionStore.COLLECTION + " collection");
            }
            stale += recorded.stale();
            List<RecordFailure> refused = executor.execute(recorded.batch(), chunkSize);
            failures.addAll(refused);
            written += recorded.batch().writes().size() - refused.size();
        }
        if (!markers.isEmpty()) {
            failures.addAll(sweeper.apply(markers));
        }
        return new BatchOutcome(records.size(), written, plan.superseded(), stale, skipped, filtered, failures);
    }
}

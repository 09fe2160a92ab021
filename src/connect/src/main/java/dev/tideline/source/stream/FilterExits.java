package dev.tideline.source.stream;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Op;
import dev.tideline.mongo.QueryMatcher;
import dev.tideline.source.capture.Captured;
import org.bson.BsonDocument;

/**
 * A document updated out of its collection's capture filter leaves the destination: the update (or
 * replace) whose looked-up document no longer matches arrives as the delete it is downstream. The
 * stream lets every update and replace of a filtered collection through for this
 * ({@link FilterRewriter}), so this only applies to filters {@link QueryMatcher}
 * can judge; other filters are left to the server and such a document stays (docs/operations.md). Pure.
 */
final class FilterExits {
    private FilterExits() {
    }

    /** {@code item}, or the delete it stands for when its document left {@code filter}. */
    static Captured apply(BsonDocument filter, Captured item) {
        if (filter == null || filter.isEmpty() || !(item instanceof Captured.Change change)) {
            return item;
        }
        ChangeEvent e = change.event();
        if ((e.op() != Op.UPDATE && e.op() != Op.REPLACE) || e.document() == null || !QueryMatcher.evaluable(filter)
                || QueryMatcher.matches(filter, e.document())) {
            return item;
        }
        // the document it was is the delete's "before": where the tenant of a delete is read from
        BsonDocument before = change.before() != null ? change.before() : e.document();
        return new Captured.Change(new ChangeEvent(Op.DELETE, e.ns(), e.id(), null, e.clusterTime(), e.wallTimeMillis(), e.origin(),
                e.shardKey()), change.offset(), before, change.transaction());
    }
}

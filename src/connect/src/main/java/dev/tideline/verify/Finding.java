package dev.tideline.verify;

import org.bson.BsonValue;

/**
 * One {@code _id} that differs, as the report lists it.
 *
 * @param seenAs         for {@link FindingKind#IN_FLIGHT}: how it differed at the last look (missing, extra or
 *                       different); otherwise the same as {@code kind}
 * @param fieldOrderOnly a {@link FindingKind#DIFFERENT} document whose two versions hold the same fields and values in
 *                       another order: what a pipeline that carries documents as JSON maps ({@code output.format=json})
 *                       makes, not a lost write
 */
public record Finding(FindingKind kind, CollectionPair collection, BsonValue id, FindingKind seenAs, boolean fieldOrderOnly) {
    /** Why a byte-different document is equal in content, in the report's and the health's words. */
    public static final String FIELD_ORDER_ONLY = "the same fields and values in another order: the json form (JsonConverter's maps) "
            + "does not keep field order; compare with verify.ignore.field.order=true (--ignore-field-order), "
            + "or replicate with output.format=bson to keep it";

    public Finding(FindingKind kind, CollectionPair collection, BsonValue id, FindingKind seenAs) {
        this(kind, collection, id, seenAs, false);
    }

    public Finding(FindingKind kind, CollectionPair collection, BsonValue id) {
        this(kind, collection, id, kind);
    }
}

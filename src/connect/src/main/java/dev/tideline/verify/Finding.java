package dev.tideline.verify;

import org.bson.BsonValue;

/**
 * One {@code _id} that differs, as the report lists it.
 *
 * @param seenAs for {@link FindingKind#IN_FLIGHT}: how it differed at the last look (missing, extra or
 *               different); otherwise the same as {@code kind}
 */
public record Finding(FindingKind kind, CollectionPair collection, BsonValue id, FindingKind seenAs) {
    public Finding(FindingKind kind, CollectionPair collection, BsonValue id) {
        this(kind, collection, id, kind);
    }
}

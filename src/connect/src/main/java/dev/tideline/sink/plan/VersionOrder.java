package dev.tideline.sink.plan;

import java.math.BigDecimal;
import java.util.Optional;
import org.bson.BsonValue;

/**
 * Orders two versions of a document. Versions are source cluster times (BSON timestamps) or values
 * of the configured version field (dates, numbers, strings, ObjectIds). Two versions of different
 * kinds cannot be ordered (a cluster time says nothing about an {@code updatedAt}): empty then, and
 * the caller applies the change rather than guess.
 */
public final class VersionOrder {
    private VersionOrder() {
    }

    public static Optional<Integer> compare(BsonValue a, BsonValue b) {
        if (a.isTimestamp() && b.isTimestamp()) {
            return Optional.of(Integer.signum(a.asTimestamp().compareTo(b.asTimestamp())));
        }
        if (a.isDateTime() && b.isDateTime()) {
            return Optional.of(Long.compare(a.asDateTime().getValue(), b.asDateTime().getValue()));
        }
        if (isNumeric(a) && isNumeric(b)) {
            return Optional.of(decimal(a).compareTo(decimal(b)));
        }
        if (a.isString() && b.isString()) {
            return Optional.of(Integer.signum(a.asString().getValue().compareTo(b.asString().getValue())));
        }
        if (a.isObjectId() && b.isObjectId()) {
            return Optional.of(Integer.signum(a.asObjectId().getValue().compareTo(b.asObjectId().getValue())));
        }
        return Optional.empty();
    }

    /**
     * As {@link #compare(BsonValue, BsonValue)}, then, for equal versions that both carry one, by their tie-breakers
     * (a change's index in its transaction: the changes of one transaction share their cluster time). Equal when
     * either has none: such changes apply in arrival order, as they did before tie-breakers.
     */
    public static Optional<Integer> compare(BsonValue a, Long tieA, BsonValue b, Long tieB) {
        Optional<Integer> byVersion = compare(a, b);
        if (byVersion.isEmpty() || byVersion.get() != 0 || tieA == null || tieB == null) {
            return byVersion;
        }
        return Optional.of(Long.compare(tieA, tieB));
    }

    private static boolean isNumeric(BsonValue v) {
        if (v.isDouble()) {
            return Double.isFinite(v.asDouble().getValue()); // NaN and infinities have no order to trust
        }
        return v.isNumber() || (v.isDecimal128() && v.asDecimal128().getValue().isFinite());
    }

    private static BigDecimal decimal(BsonValue v) {
        if (v.isDecimal128()) {
            return v.asDecimal128().getValue().bigDecimalValue();
        }
        if (v.isDouble()) {
            return BigDecimal.valueOf(v.asDouble().getValue());
        }
        return BigDecimal.valueOf(v.asNumber().longValue());
    }
}

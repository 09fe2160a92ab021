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

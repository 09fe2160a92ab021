package dev.tideline.fanout.channel;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A channel: {@code <db>.<collection>.<tenant>}. The database and the tenant have no dots, so the
 * first dot ends the database and the last dot starts the tenant, whatever dots the collection
 * name holds: one name maps to exactly one (db, collection, tenant) and back. Names are checked
 * strictly (no wildcards, no percent signs, no empty segments), so a subscription cannot smuggle a
 * second tenant into its channel.
 */
public record ChannelName(String db, String collection, String tenant) {
    private static final Pattern DB = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Pattern COLLECTION = Pattern.compile("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*");
    private static final Pattern TENANT = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final int MAX_COLLECTION = 120;

    public ChannelName {
        if (!isValidDb(db) || !isValidCollection(collection) || !isValidTenant(tenant)) {
            throw new IllegalArgumentException("not a valid channel: db '" + db + "', collection '" + collection
                    + "', tenant '" + tenant + "' (letters, digits, '_' and '-'; the collection may hold single dots)");
        }
    }

    /** The channel a subscriber names, or empty when the text is not a well-formed channel name. */
    public static Optional<ChannelName> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        int first = text.indexOf('.');
        int last = text.lastIndexOf('.');
        if (first <= 0 || last <= first) {
            return Optional.empty();
        }
        String db = text.substring(0, first);
        String coll = text.substring(first + 1, last);
        String tenant = text.substring(last + 1);
        if (!isValidDb(db) || !isValidCollection(coll) || !isValidTenant(tenant)) {
            return Optional.empty();
        }
        return Optional.of(new ChannelName(db, coll, tenant));
    }

    public static boolean isValidDb(String s) {
        return s != null && DB.matcher(s).matches();
    }

    public static boolean isValidCollection(String s) {
        return s != null && s.length() <= MAX_COLLECTION && COLLECTION.matcher(s).matches();
    }

    public static boolean isValidTenant(String s) {
        return s != null && TENANT.matcher(s).matches();
    }

    @Override
    public String toString() {
        return db + "." + collection + "." + tenant;
    }
}

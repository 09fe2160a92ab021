package dev.tideline.event;

/**
 * Header names on Tideline records: what routers, filters and the fanout gateway need without
 * parsing the value. Values are strings (seq is a decimal string).
 */
public final class EventHeaders {
    /** change | heartbeat | control */
    public static final String KIND = "tl.kind";
    public static final String OP = "tl.op";
    /** {@code db.collection} */
    public static final String NAMESPACE = "tl.ns";
    public static final String TENANT = "tl.tenant";
    /** one id per task run: with {@link #SEQ}, lets a consumer detect a gap */
    public static final String PRODUCER = "tl.producer";
    /** per producer and collection, from 1 */
    public static final String SEQ = "tl.seq";
    public static final String ORIGIN = "tl.origin";
    /**
     * On changes made by a multi-document transaction: its identity, {@code <session id>:<txnNumber>} (the session
     * id as a UUID), the same on every change of that transaction, in every collection; absent outside transactions.
     * The changes of one transaction share their cluster time.
     */
    public static final String TRANSACTION = "tl.txn";
    /**
     * On changes of a multi-document transaction, beside {@link #TRANSACTION}: the operation's index within it
     * (MongoDB's {@code txnOpIndex}, read from the event's resume token), in decimal, 0 to 2147483647. The sink's
     * stale-write guard compares it after the cluster time, so a re-delivered earlier change of the transaction
     * does not overwrite a later one. Absent when the token does not say it (a sink then applies equal versions
     * in arrival order).
     */
    public static final String TRANSACTION_OP = "tl.txn.op";
    /**
     * Only on marker records ({@link ResnapshotMarker}): which marker. Present on nothing else, so an
     * SMT predicate {@code HasHeaderKey name=tl.marker} singles markers out.
     */
    public static final String MARKER = "tl.marker";
    /** On markers: the resnapshot's epoch, a BSON timestamp's value (seconds &lt;&lt; 32 | increment) in decimal */
    public static final String EPOCH = "tl.epoch";
    /** On markers: how many partitions of the topic (0..n-1) the source sent this marker to */
    public static final String PARTITIONS = "tl.partitions";
    /**
     * On markers of a repair (a copy of an {@code _id} range, {@link IdScope}): the first id covered
     * (inclusive), as canonical Extended JSON of {@code {"v": <id>}}; absent: no lower bound. A marker with
     * neither scope header covers the whole collection (as every marker did before scopes).
     */
    public static final String SCOPE_FROM = "tl.scope.from";
    /** On markers of a repair: the id the range ends before (exclusive), as {@link #SCOPE_FROM}; absent: no upper bound */
    public static final String SCOPE_TO = "tl.scope.to";

    public static final String KIND_CHANGE = "change";
    public static final String KIND_HEARTBEAT = "heartbeat";
    public static final String KIND_CONTROL = "control";

    private EventHeaders() {
    }
}

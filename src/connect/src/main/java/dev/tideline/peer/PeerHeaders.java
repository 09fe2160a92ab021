package dev.tideline.peer;

/** Record headers peer mode adds (with {@code tl.origin}, the origin cluster id). */
public final class PeerHeaders {
    /** the cluster whose source emitted the record */
    public static final String CLUSTER = "tl.cluster";
    /** the write's version, {@code seconds.increment@origin} */
    public static final String VERSION = "tl.origin.version";
    /** the version the write was based on, when known */
    public static final String BASE = "tl.origin.base";
    /**
     * a delete's {@code keyId:mac} over its cluster, namespace, id, version and base ({@link StampKeys}); a write's
     * MAC is in its document's stamp
     */
    public static final String MAC = "tl.origin.mac";

    private PeerHeaders() {
    }
}

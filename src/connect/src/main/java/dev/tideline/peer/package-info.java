/**
 * Peer replication (active-active between clusters, docs/peer-replication.md): the decisions both
 * connectors share, pure, in this package; the peer sink in {@code dev.tideline.peer.sink}; the
 * source's half (one class) and the two settings fragments beside the connectors whose configuration
 * they are part of.
 *
 * <p>Where each piece lives:
 * <ul>
 *   <li><b>Here, pure:</b> versions and the merge rule ({@link dev.tideline.peer.Version},
 *       {@link dev.tideline.peer.LastWriterWins}, {@link dev.tideline.peer.DocState}), the stamp a
 *       replicated document carries and its keys ({@link dev.tideline.peer.PeerStamp},
 *       {@link dev.tideline.peer.StampKeys}, {@link dev.tideline.peer.PeerKeySettings}, on the key machinery of
 *       {@code dev.tideline.sign}, shared with signed change records), where a
 *       write came from ({@link dev.tideline.peer.OriginDetector}, {@link dev.tideline.peer.OriginLabeler},
 *       {@link dev.tideline.peer.LogicalClock}), tenant scope, round-trip lag, limits, and the names of
 *       the metadata collections and headers ({@link dev.tideline.peer.PeerCollections},
 *       {@link dev.tideline.peer.PeerHeaders}); after an outage past the tombstone TTL, which peer wins
 *       each differing id ({@link dev.tideline.peer.RecoveryRule}, docs/peer-recovery.md).</li>
 *   <li><b>The source's half:</b> {@code dev.tideline.source.PeerOriginTagger} labels each change
 *       with its origin, version and stamp; settings in {@code dev.tideline.source.config.PeerSourceSettings}.</li>
 *   <li><b>The sink's half:</b> {@code dev.tideline.peer.sink} ({@code PeerSinkTask}, reading records through the
 *       sink's own front end {@code dev.tideline.sink.front.SinkFrontEnd}; the decision per
 *       document {@code DocumentFold}, carried out by {@code PeerApplier}; queue, status, conflicts,
 *       local deletes); settings in {@code dev.tideline.sink.config.PeerSinkSettings}. Peer recovery
 *       ({@code ./verify --peer-recovery}) writes through the same store ({@code RecoveryStore}).</li>
 * </ul>
 */
package dev.tideline.peer;

package dev.tideline.sink.decode;

/** What reading a record gives: a change to apply, or a reason to skip the record. */
public sealed interface Decoded permits SinkChange, Decoded.Skip {
    /** A record that is fine but asks for no write (ignored tombstone, control record, unreadable-at-source update). */
    record Skip(String reason) implements Decoded {
    }
}

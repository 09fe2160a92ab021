package dev.tideline.sink.route;

import dev.tideline.event.Namespace;
import dev.tideline.sink.decode.SinkChange;

/** A change and the destination collection it lands in. */
public record RoutedChange(SinkChange change, Namespace destination) {
}

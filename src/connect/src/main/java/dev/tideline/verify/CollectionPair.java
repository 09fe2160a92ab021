package dev.tideline.verify;

import dev.tideline.event.Namespace;

/** A collection at the source (or peer A) and the collection that should equal it at the destination (peer B). */
public record CollectionPair(Namespace source, Namespace destination) {
    @Override
    public String toString() {
        return source.equals(destination) ? source.fullName() : source.fullName() + " -> " + destination.fullName();
    }
}

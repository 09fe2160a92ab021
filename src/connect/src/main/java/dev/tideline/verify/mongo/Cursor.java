package dev.tideline.verify.mongo;

import java.util.Iterator;

/**
 * Documents of one side in {@code _id} order. A failure while reading is thrown as a
 * {@link CursorFailure} naming the side.
 */
interface Cursor<T> extends Iterator<T>, AutoCloseable {
    @Override
    void close();
}

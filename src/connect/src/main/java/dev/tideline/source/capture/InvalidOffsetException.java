package dev.tideline.source.capture;

import org.apache.kafka.connect.errors.ConnectException;

/** A stored or hand-edited offset that cannot be used; the message names the key. */
public class InvalidOffsetException extends ConnectException {
    public InvalidOffsetException(String message) {
        super(message);
    }
}

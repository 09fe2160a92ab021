package dev.tideline.verify.mongo;

/** A cursor of one side failed (opening included): the original failure, with the side it came from. */
final class CursorFailure extends RuntimeException {
    private final String side;

    CursorFailure(String side, RuntimeException cause) {
        super(cause.getMessage(), cause);
        this.side = side;
    }

    String side() {
        return side;
    }

    RuntimeException failure() {
        return (RuntimeException) getCause();
    }
}

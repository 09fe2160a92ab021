package dev.tideline.verify.mongo;

/**
 * Why verify stopped comparing: a whole run ({@code run} true: credentials refused, a server out of
 * reach) or one collection. The message names the side and what to do; it never holds a connection
 * string.
 */
final class VerifyFailure extends RuntimeException {
    private final boolean wholeRun;

    VerifyFailure(String message, boolean wholeRun, Throwable cause) {
        super(message, cause);
        this.wholeRun = wholeRun;
    }

    boolean wholeRun() {
        return wholeRun;
    }
}

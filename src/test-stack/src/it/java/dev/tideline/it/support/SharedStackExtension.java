package dev.tideline.it.support;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Restores the shared test stack after every test, whether it passed or not: a test that kills the
 * worker and fails before restarting it must not fail every later test. Registered for every test by
 * JUnit's extension auto-detection (src/test-stack/src/test/resources/META-INF/services); a no-op where no stack runs.
 */
public final class SharedStackExtension implements AfterEachCallback {
    @Override
    public void afterEach(ExtensionContext context) {
        TestStack.restoreShared();
    }
}

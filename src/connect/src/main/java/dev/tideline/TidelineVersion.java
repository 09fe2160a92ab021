package dev.tideline;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The plugin's version, as Maven built it: {@code tideline-version.properties} is a filtered
 * resource (src/main/resources-filtered), so the connectors' {@code version()} and the plugin
 * manifest both come from the POM's {@code project.version}. Every connector uses this class.
 */
public final class TidelineVersion {
    private static final String RESOURCE = "/dev/tideline/tideline-version.properties";
    private static final String VERSION = load();

    private TidelineVersion() {
    }

    public static String get() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = TidelineVersion.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the plugin jar: the build is broken");
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version");
            if (v == null || v.isBlank() || v.startsWith("${")) {
                throw new IllegalStateException(RESOURCE + " was not filtered by the build (version=" + v + ")");
            }
            return v.trim();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }
}

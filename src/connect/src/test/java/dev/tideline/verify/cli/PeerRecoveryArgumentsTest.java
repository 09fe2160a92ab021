package dev.tideline.verify.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.peer.PeerStamp;
import dev.tideline.peer.RecoveryRule.Policy;
import dev.tideline.peer.StampKeys;
import dev.tideline.peer.Version;
import dev.tideline.sink.config.PeerSinkSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --peer-recovery}, {@code --peer-ids}, {@code --peer-key-file}: parsed, and every mistake named. */
class PeerRecoveryArgumentsTest {
    private static final String KEY = "k".repeat(32);
    private static final String PREVIOUS = "p".repeat(40);

    @TempDir
    Path dir;

    private Path keyFile(String... lines) throws IOException {
        return Files.writeString(dir.resolve("link-" + System.nanoTime() + ".properties"), String.join("\n", lines) + "\n");
    }

    private static VerifyArguments parse(String... more) {
        List<String> args = new ArrayList<>(List.of("--source", "mongodb://a", "--destination", "mongodb://b"));
        args.addAll(List.of(more));
        return VerifyArguments.parse(args.toArray(String[]::new), Map.of(), Instant.parse("2026-12-01T10:15:30Z"));
    }

    private static void refused(String startsWith, String... args) {
        assertThatThrownBy(() -> parse(args)).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(startsWith);
    }

    @Test
    void parsedWithTheLinksKeysAndTtl() throws IOException {
        Path f = keyFile("peer.stamp.key=" + KEY, "peer.stamp.key.previous=" + PREVIOUS, "peer.tombstone.ttl.ms=120000");
        PeerRecoveryOptions o = parse("--peers", "--peer-recovery", "COPY", "--peer-ids", " eu , us", "--peer-key-file", f.toString())
                .peerRecovery();
        assertThat(o.policy()).isEqualTo(Policy.COPY);
        assertThat(o.first()).isEqualTo("eu");
        assertThat(o.second()).isEqualTo("us");
        assertThat(o.tombstoneTtlMs()).isEqualTo(120_000);
        // the keys are the link's: a stamp signed with either verifies, the current one signs
        StampKeys link = new StampKeys(KEY, PREVIOUS);
        StampKeys old = new StampKeys(PREVIOUS, null);
        StampKeys.Bound b = new PeerStamp(new Version(new BsonTimestamp(5, 1), "eu"), "h", null).bound("us",
                new dev.tideline.event.Namespace("db", "c"), new BsonInt32(1));
        assertThat(o.keys().verify(old.sign(b), b)).isTrue();
        assertThat(o.keys().sign(b)).isEqualTo(link.sign(b));
    }

    @Test
    void defaultsAndOff() throws IOException {
        Path f = keyFile("# the link's secret", "peer.stamp.key=" + KEY);
        PeerRecoveryOptions o = parse("--peers", "--peer-recovery=report", "--peer-ids=A,B", "--peer-key-file=" + f).peerRecovery();
        assertThat(o.policy()).isEqualTo(Policy.REPORT);
        assertThat(o.tombstoneTtlMs()).isEqualTo(PeerSinkSettings.DEFAULT_TOMBSTONE_TTL_MS);
        assertThat(o.dryRun()).isFalse();
        assertThat(parse("--peers", "--peer-recovery=report", "--peer-ids=A,B", "--peer-key-file=" + f, "--dry-run").peerRecovery()
                .dryRun()).isTrue();
        assertThat(parse("--peers").peerRecovery()).isNull();
    }

    @Test
    void mistakesNameTheOption() throws IOException {
        Path f = keyFile("peer.stamp.key=" + KEY);
        String key = f.toString();
        refused("--peer-recovery needs --peers", "--peer-recovery", "copy", "--peer-ids", "A,B", "--peer-key-file", key);
        refused("--peer-recovery: 'newest' is not a recovery policy: report, copy or delete", "--peers", "--peer-recovery",
                "newest", "--peer-ids", "A,B", "--peer-key-file", key);
        refused("--peer-recovery needs --peer-ids A,B", "--peers", "--peer-recovery", "copy", "--peer-key-file", key);
        refused("--peer-recovery needs --peer-key-file FILE", "--peers", "--peer-recovery", "copy", "--peer-ids", "A,B");
        refused("--peer-ids takes two different cluster ids", "--peers", "--peer-recovery", "copy", "--peer-ids", "A",
                "--peer-key-file", key);
        refused("--peer-ids takes two different cluster ids", "--peers", "--peer-recovery", "copy", "--peer-ids", "A,A",
                "--peer-key-file", key);
        refused("--peer-ids takes two different cluster ids", "--peers", "--peer-recovery", "copy", "--peer-ids", "A,B,C",
                "--peer-key-file", key);
        refused("--peer-ids: 'e u' is not a cluster id", "--peers", "--peer-recovery", "copy", "--peer-ids", "e u,B",
                "--peer-key-file", key);
        refused("--peer-ids is only used with --peer-recovery", "--peers", "--peer-ids", "A,B");
        refused("--peer-key-file is only used with --peer-recovery", "--peers", "--peer-key-file", key);
        refused("--dry-run is only used with --peer-recovery", "--peers", "--dry-run");
        refused("--repair does not work with --peers", "--peers", "--repair", "--peer-recovery", "copy", "--peer-ids", "A,B",
                "--peer-key-file", key);
        refused("--peer-recovery needs the report in a file", "--peers", "--peer-recovery", "copy", "--peer-ids", "A,B",
                "--peer-key-file", key, "--report", "-");
        refused("--peer-recovery needs a value", "--peers", "--peer-recovery");
    }

    @Test
    void badKeyFilesAreNamed() throws IOException {
        String[] base = {"--peers", "--peer-recovery", "copy", "--peer-ids", "A,B", "--peer-key-file"};
        assertThatThrownBy(() -> parse(with(base, dir.resolve("missing.properties").toString())))
                .hasMessageStartingWith("--peer-key-file " + dir.resolve("missing.properties") + " cannot be read");
        Path noKey = keyFile("peer.stamp.key.previous=" + PREVIOUS);
        assertThatThrownBy(() -> parse(with(base, noKey.toString()))).hasMessageContaining("has no peer.stamp.key");
        Path shortKey = keyFile("peer.stamp.key=short");
        assertThatThrownBy(() -> parse(with(base, shortKey.toString())))
                .hasMessageContaining("peer.stamp.key is shorter than 32 characters");
        Path provider = keyFile("peer.stamp.key=${file:/etc/secrets.properties:peer.stamp.key}");
        assertThatThrownBy(() -> parse(with(base, provider.toString())))
                .hasMessageContaining("config provider reference").hasMessageContaining("put the secret itself");
        Path ttl = keyFile("peer.stamp.key=" + KEY, "peer.tombstone.ttl.ms=10");
        assertThatThrownBy(() -> parse(with(base, ttl.toString())))
                .hasMessageContaining("peer.tombstone.ttl.ms must be milliseconds, at least 60000");
        Path ttlText = keyFile("peer.stamp.key=" + KEY, "peer.tombstone.ttl.ms=7d");
        assertThatThrownBy(() -> parse(with(base, ttlText.toString()))).hasMessageContaining("got '7d'");
    }

    private static String[] with(String[] args, String last) {
        String[] out = java.util.Arrays.copyOf(args, args.length + 1);
        out[args.length] = last;
        return out;
    }
}

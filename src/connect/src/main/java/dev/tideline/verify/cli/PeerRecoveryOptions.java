package dev.tideline.verify.cli;

import dev.tideline.peer.ClusterId;
import dev.tideline.peer.PeerKeySettings;
import dev.tideline.peer.RecoveryRule.Policy;
import dev.tideline.peer.StampKeys;
import dev.tideline.sink.config.PeerSinkSettings;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigException;

/**
 * {@code --peer-recovery POLICY --peer-ids A,B --peer-key-file FILE}: after a peer run, decide each differing id by
 * {@link dev.tideline.peer.RecoveryRule} and write the decisions on the losing cluster ({@link PeerRecoveryRun}).
 *
 * @param first          the cluster id of {@code --source} (the first peer): its stamps are signed for it
 * @param second         the cluster id of {@code --destination}
 * @param keys           the link's {@code peer.stamp.key} (and {@code .previous}) from the key file
 * @param tombstoneTtlMs {@code peer.tombstone.ttl.ms} from the key file, or the sink's default
 */
public record PeerRecoveryOptions(Policy policy, String first, String second, StampKeys keys, long tombstoneTtlMs,
                                  boolean dryRun) {
    static final String POLICY_OPTION = "--peer-recovery";
    static final String DRY_RUN_OPTION = "--dry-run";
    static final String IDS_OPTION = "--peer-ids";
    static final String KEY_FILE_OPTION = "--peer-key-file";

    /**
     * @return null when none of the three options is given
     * @throws IllegalArgumentException naming the option at fault
     */
    static PeerRecoveryOptions of(String policy, String ids, String keyFile, boolean peers, boolean dryRun) {
        if (policy == null) {
            if (ids != null || keyFile != null || dryRun) {
                throw new IllegalArgumentException((ids != null ? IDS_OPTION : keyFile != null ? KEY_FILE_OPTION : DRY_RUN_OPTION)
                        + " is only used with " + POLICY_OPTION + " report|copy|delete");
            }
            return null;
        }
        if (!peers) {
            throw new IllegalArgumentException(POLICY_OPTION + " needs --peers: it decides between two peer clusters by their "
                    + "stamps; a destination is repaired with --repair");
        }
        Policy p;
        try {
            p = Policy.parse(policy);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(POLICY_OPTION + ": " + e.getMessage() + " (what to do with an id present on one "
                    + "side only that nothing decides)", e);
        }
        if (ids == null) {
            throw new IllegalArgumentException(POLICY_OPTION + " needs " + IDS_OPTION + " A,B: the peer.cluster.id of --source "
                    + "and of --destination, in that order (stamps are signed for the cluster that holds them)");
        }
        List<String> both = List.of(ids.split(",", -1)).stream().map(String::trim).toList();
        if (both.size() != 2 || both.get(0).equals(both.get(1))) {
            throw new IllegalArgumentException(IDS_OPTION + " takes two different cluster ids, the peer.cluster.id of --source "
                    + "and of --destination, e.g. " + IDS_OPTION + " eu,us; got '" + ids + "'");
        }
        for (String id : both) {
            try {
                ClusterId.validator().ensureValid(IDS_OPTION, id);
            } catch (ConfigException e) {
                throw new IllegalArgumentException(IDS_OPTION + ": '" + id + "' is not a cluster id: 1 to 32 letters, digits, "
                        + "'-' or '_', as peer.cluster.id", e);
            }
        }
        if (keyFile == null) {
            throw new IllegalArgumentException(POLICY_OPTION + " needs " + KEY_FILE_OPTION + " FILE: a properties file with the "
                    + "link's " + PeerKeySettings.KEY + " (and " + PeerKeySettings.PREVIOUS_KEY + " during a rotation), to check "
                    + "and make stamps and tombstones");
        }
        Properties props = load(Path.of(keyFile));
        String key = secret(props, PeerKeySettings.KEY, keyFile);
        if (key == null) {
            throw new IllegalArgumentException(KEY_FILE_OPTION + " " + keyFile + " has no " + PeerKeySettings.KEY
                    + ": add the line " + PeerKeySettings.KEY + "=<the secret every connector of the link has>");
        }
        return new PeerRecoveryOptions(p, both.get(0), both.get(1), new StampKeys(key, secret(props, PeerKeySettings.PREVIOUS_KEY,
                keyFile)), ttl(props, keyFile), dryRun);
    }

    private static Properties load(Path file) {
        Properties props = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(r);
        } catch (IOException e) {
            throw new IllegalArgumentException(KEY_FILE_OPTION + " " + file + " cannot be read (" + e + "): give the path of a "
                    + "properties file holding " + PeerKeySettings.KEY, e);
        }
        return props;
    }

    private static String secret(Properties props, String name, String file) {
        String v = props.getProperty(name);
        if (v == null || v.isEmpty()) {
            return null;
        }
        if (v.startsWith("${")) {
            throw new IllegalArgumentException(KEY_FILE_OPTION + " " + file + ": " + name + " is a config provider reference; "
                    + "verify does not resolve those: put the secret itself in the file (and keep the file private)");
        }
        if (v.length() < PeerKeySettings.MIN_LENGTH) {
            throw new IllegalArgumentException(KEY_FILE_OPTION + " " + file + ": " + name + " is shorter than "
                    + PeerKeySettings.MIN_LENGTH + " characters, so it is not the link's key (the connectors refuse such keys)");
        }
        return v;
    }

    private static long ttl(Properties props, String file) {
        String v = props.getProperty(PeerSinkSettings.TOMBSTONE_TTL_MS);
        if (v == null || v.isBlank()) {
            return PeerSinkSettings.DEFAULT_TOMBSTONE_TTL_MS;
        }
        try {
            long ms = Long.parseLong(v.trim());
            if (ms >= PeerSinkSettings.MIN_TOMBSTONE_TTL_MS) {
                return ms;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(KEY_FILE_OPTION + " " + file + ": " + PeerSinkSettings.TOMBSTONE_TTL_MS + " must be "
                + "milliseconds, at least " + PeerSinkSettings.MIN_TOMBSTONE_TTL_MS + " (the peer sinks' value), got '" + v + "'");
    }
}

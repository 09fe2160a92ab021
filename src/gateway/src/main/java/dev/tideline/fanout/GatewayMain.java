package dev.tideline.fanout;

import dev.tideline.fanout.auth.JwtVerifier;
import dev.tideline.fanout.config.AuthSettings;
import dev.tideline.fanout.config.GatewaySettings;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.config.ConfigException;

/**
 * {@code ./gateway [config/fanout-gateway.properties]} runs the gateway until SIGTERM/Ctrl-C;
 * {@code ./gateway token <tenant> <channel-pattern>... [--ttl <seconds>] [--config <file>]} prints
 * a token signed with the configured secret (for the demo page and for trying things out);
 * {@code ./gateway token --admin} an operator token for /stats.
 */
public final class GatewayMain {
    private GatewayMain() {
    }

    public static void main(String[] args) throws Exception {
        List<String> rest = new java.util.ArrayList<>(Arrays.asList(args));
        String config = option(rest, "--config", "config/fanout-gateway.properties");
        if (!rest.isEmpty() && rest.get(0).equals("token")) {
            long ttl = Long.parseLong(option(rest, "--ttl", "3600"));
            boolean admin = rest.remove("--admin");
            if (!admin && rest.size() < 3) {
                System.err.println("usage: ./gateway token <tenant> <channel-pattern>... [--ttl seconds] [--config file]\n"
                        + "       ./gateway token --admin [--ttl seconds] [--config file]   (an operator token, for /stats)");
                System.exit(2);
            }
            GatewaySettings settings = load(config);
            if (ttl * 1000 > settings.auth().maxLifetimeMs()) {
                System.err.println("--ttl " + ttl + " is longer than auth.token.max.lifetime.ms allows ("
                        + settings.auth().maxLifetimeMs() / 1000 + " s): the gateway would refuse the token");
                System.exit(2);
            }
            long exp = System.currentTimeMillis() / 1000 + ttl;
            if (admin) {
                byte[] adminKey = settings.auth().adminSecret();
                if (adminKey == null) {
                    System.err.println("no operator key: set " + AuthSettings.ADMIN_SECRET_ENV + " or " + AuthSettings.ADMIN_SECRET
                            + " (another secret than the subscriber key), e.g. from `openssl rand -base64 48`");
                    System.exit(2);
                }
                System.out.println(new JwtVerifier(adminKey, 0).issueAdmin(exp));
            } else {
                System.out.println(new JwtVerifier(settings.auth().secret(), 0).issue(null, rest.get(1), rest.subList(2, rest.size()), exp));
            }
            return;
        }
        if (!rest.isEmpty()) {
            config = rest.get(0);
        }
        FanoutGateway gateway = FanoutGateway.start(load(config));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            gateway.close();
            stopped.countDown();
        }, "tideline-fanout-shutdown"));
        System.out.println("fanout gateway: " + gateway.baseUrl() + "/demo.html  (Ctrl-C stops it)");
        stopped.await();
    }

    private static GatewaySettings load(String file) throws IOException {
        Properties props = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8)) {
            props.load(r);
        }
        // an environment variable wins over the file, so a secret need not be written down
        for (String[] envAndKey : new String[][] {{AuthSettings.SECRET_ENV, AuthSettings.SECRET},
                {AuthSettings.ADMIN_SECRET_ENV, AuthSettings.ADMIN_SECRET}}) {
            String secret = System.getenv(envAndKey[0]);
            if (secret != null && !secret.isEmpty()) {
                props.setProperty(envAndKey[1], secret);
            }
        }
        try {
            return new GatewaySettings(props);
        } catch (ConfigException e) {
            System.err.println("fanout gateway: bad setting in " + file + ": " + e.getMessage());
            System.exit(2);
            throw e;
        }
    }

    private static String option(List<String> args, String name, String fallback) {
        int i = args.indexOf(name);
        if (i < 0 || i + 1 >= args.size()) {
            return fallback;
        }
        String v = args.get(i + 1);
        args.remove(i + 1);
        args.remove(i);
        return v;
    }
}

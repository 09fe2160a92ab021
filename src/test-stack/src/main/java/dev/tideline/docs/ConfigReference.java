package dev.tideline.docs;

import dev.tideline.config.ConfigTable;
import dev.tideline.fanout.config.GatewaySettings;
import dev.tideline.sink.config.SinkConfig;
import dev.tideline.source.config.SourceConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Writes docs/config-reference.md from the connectors' ConfigDefs, so the reference can never drift
 * from the code (a test fails when the committed file differs). Run: {@code ./docs/generate}.
 */
public final class ConfigReference {
    private ConfigReference() {
    }

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args.length > 0 ? args[0] : "docs/config-reference.md");
        Files.writeString(out, render(), StandardCharsets.UTF_8);
        System.out.println("wrote " + out);
    }

    public static String render() {
        StringBuilder md = new StringBuilder();
        md.append("# Configuration reference\n\n")
                .append("Generated from the connectors' ConfigDefs by `dev.tideline.docs.ConfigReference` (`./docs/generate`); ")
                .append("do not edit by hand. Connect's own keys (`name`, `tasks.max`, converters, `topics`, `errors.*`, ...) ")
                .append("work as usual and are documented by Kafka Connect.\n\n");
        section(md, "Source connector", "dev.tideline.source.TidelineSourceConnector", SourceConfig.CONFIG_DEF);
        section(md, "Sink connector", "dev.tideline.sink.TidelineSinkConnector", SinkConfig.configDef());
        md.append("## Fanout gateway\n\nKeys of `config/fanout-gateway.properties`, read by `./gateway` ")
                .append("(`dev.tideline.fanout.GatewayMain`); the environment variables `FANOUT_HMAC_SECRET` and `FANOUT_ADMIN_HMAC_SECRET` override `auth.hmac.secret` and `auth.admin.hmac.secret`.\n\n");
        groups(md, GatewaySettings.CONFIG_DEF);
        return md.toString();
    }

    private static void section(StringBuilder md, String title, String connectorClass, ConfigDef def) {
        md.append("## ").append(title).append("\n\n`connector.class=").append(connectorClass).append("`\n\n");
        groups(md, def);
    }

    private static void groups(StringBuilder md, ConfigDef def) {
        ConfigTable.append(md, def, ConfigTable.groupsOf(def), "### ");
    }
}

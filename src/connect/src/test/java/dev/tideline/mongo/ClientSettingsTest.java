package dev.tideline.mongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.AuthenticationMechanism;
import com.mongodb.MongoClientSettings;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/** TLS and authentication options of the connection string reach the driver as they are; the password never reaches a message. */
class ClientSettingsTest {
    private static final int READ = MongoClientFactory.DEFAULT_READ_TIMEOUT_MS;


    @Test
    void tlsOptionsPassThrough() {
        MongoClientSettings s = MongoClientFactory.settings(
                "mongodb://db1.example.net:27017,db2.example.net:27017/?replicaSet=rs0&tls=true&tlsAllowInvalidHostnames=true",
                "tideline-source", 4_000, READ);
        assertThat(s.getSslSettings().isEnabled()).isTrue();
        assertThat(s.getSslSettings().isInvalidHostNameAllowed()).isTrue();
        assertThat(s.getClusterSettings().getRequiredReplicaSetName()).isEqualTo("rs0");
        assertThat(s.getSocketSettings().getConnectTimeout(TimeUnit.MILLISECONDS)).isEqualTo(4_000);
        assertThat(s.getClusterSettings().getServerSelectionTimeout(TimeUnit.MILLISECONDS)).isEqualTo(4_000);
        assertThat(s.getApplicationName()).isEqualTo("tideline-source");
    }

    @Test
    void tlsIsOffUnlessAskedAndSrvTurnsItOn() {
        assertThat(MongoClientFactory.settings("mongodb://h:27017", "a", 1_000, READ).getSslSettings().isEnabled()).isFalse();
        assertThat(MongoClientFactory.settings("mongodb://h:27017/?ssl=true", "a", 1_000, READ).getSslSettings().isEnabled()).isTrue();
        assertThat(MongoClientFactory.settings("mongodb://h:27017/?tls=true", "a", 1_000, READ).getSslSettings().isInvalidHostNameAllowed())
                .isFalse();
    }

    @Test
    void credentialsAndMechanismPassThroughAndTheAppNameOfTheUriWins() {
        MongoClientSettings s = MongoClientFactory.settings(
                "mongodb://app:s3cret@h:27017/?authMechanism=SCRAM-SHA-256&authSource=admin&appName=billing", "tideline-sink", 1_000, READ);
        assertThat(s.getCredential().getUserName()).isEqualTo("app");
        assertThat(s.getCredential().getPassword()).isEqualTo("s3cret".toCharArray());
        assertThat(s.getCredential().getAuthenticationMechanism()).isEqualTo(AuthenticationMechanism.SCRAM_SHA_256);
        assertThat(s.getCredential().getSource()).isEqualTo("admin");
        assertThat(s.getApplicationName()).isEqualTo("billing");
    }

    @Test
    void aBadConnectionStringIsRefusedWithoutEchoingThePassword() {
        assertThatThrownBy(() -> MongoClientFactory.settings("mongodb://app:s3cret@h:notaport/", "a", 1_000, READ))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(MongoClientFactory.URI_KEY)
                .hasMessageNotContaining("s3cret");
        assertThat(MongoClientFactory.redact("failed for mongodb://app:s3cret@h:27017/x", "mongodb://app:s3cret@h:27017/?x=1"))
                .doesNotContain("s3cret");
    }
}

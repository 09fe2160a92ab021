package dev.tideline.fanout.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

class JwtVerifierTest {
    static final byte[] SECRET = "0123456789abcdef0123456789abcdef-test".getBytes(StandardCharsets.UTF_8);
    static final long NOW = 1_800_000_000_000L;
    private final JwtVerifier verifier = new JwtVerifier(SECRET, 0);

    private static String b64(String s) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private String payload(long exp) {
        return "{\"sub\":\"u1\",\"tenant\":\"acme\",\"channels\":[\"shop.*.acme\"],\"exp\":" + exp + "}";
    }

    private String reason(String token) {
        try {
            verifier.verify(token, NOW);
            return "accepted";
        } catch (TokenRejectedException e) {
            return e.reason();
        }
    }

    @Test
    void acceptsAValidTokenAndReadsItsClaims() throws Exception {
        TokenClaims claims = verifier.verify(verifier.issue("u1", "acme", List.of("shop.*.acme"), NOW / 1000 + 60), NOW);

        assertThat(claims.tenant()).isEqualTo("acme");
        assertThat(claims.channelPatterns()).containsExactly("shop.*.acme");
        assertThat(claims.subject()).isEqualTo("u1");
        assertThat(claims.expiresAtMillis()).isEqualTo(NOW + 60_000);
    }

    @Test
    void refusesATamperedSignatureOrPayload() {
        String token = verifier.issue("u1", "acme", List.of("shop.*.acme"), NOW / 1000 + 60);
        String[] p = token.split("\\.");
        char last = p[2].charAt(p[2].length() - 2);
        String badSig = p[0] + "." + p[1] + "." + p[2].substring(0, p[2].length() - 2) + (last == 'A' ? 'B' : 'A') + p[2].charAt(p[2].length() - 1);
        String otherTenant = p[0] + "." + b64(payload(NOW / 1000 + 60).replace("acme", "evil")) + "." + p[2];

        assertThat(reason(badSig)).isEqualTo("bad-signature");
        assertThat(reason(otherTenant)).isEqualTo("bad-signature");
        assertThat(reason(new JwtVerifier("another-secret-another-secret-another".getBytes(StandardCharsets.UTF_8), 0)
                .issue("u1", "acme", List.of("shop.*.acme"), NOW / 1000 + 60))).isEqualTo("bad-signature");
    }

    @Test
    void refusesAlgNoneAndEveryAlgorithmButHs256() {
        String body = b64(payload(NOW / 1000 + 60));
        assertThat(reason(b64("{\"alg\":\"none\",\"typ\":\"JWT\"}") + "." + body + ".")).isEqualTo("bad-alg");
        assertThat(reason(b64("{\"alg\":\"None\"}") + "." + body + ".")).isEqualTo("bad-alg");
        assertThat(reason(b64("{\"typ\":\"JWT\"}") + "." + body + ".")).isEqualTo("bad-alg");
        // signed with our key but declaring another algorithm: still refused, alg is not negotiable
        assertThat(reason(verifier.signRaw("{\"alg\":\"HS512\"}", payload(NOW / 1000 + 60)))).isEqualTo("bad-alg");
        assertThat(reason(verifier.signRaw("{\"alg\":\"RS256\"}", payload(NOW / 1000 + 60)))).isEqualTo("bad-alg");
        assertThat(reason(verifier.signRaw("{\"alg\":[\"HS256\"]}", payload(NOW / 1000 + 60)))).isEqualTo("bad-alg");
    }

    @Test
    void checksExpAndNbf() {
        assertThat(reason(verifier.issue(null, "acme", List.of(), NOW / 1000))).isEqualTo("expired");
        assertThat(reason(verifier.issue(null, "acme", List.of(), NOW / 1000 - 1))).isEqualTo("expired");
        assertThat(reason(verifier.signRaw("{\"alg\":\"HS256\"}", "{\"tenant\":\"acme\",\"channels\":[]}"))).isEqualTo("malformed");
        assertThat(reason(verifier.signRaw("{\"alg\":\"HS256\"}", "{\"tenant\":\"acme\",\"channels\":[],\"exp\":\"soon\"}"))).isEqualTo("malformed");
        assertThat(reason(verifier.signRaw("{\"alg\":\"HS256\"}",
                "{\"tenant\":\"acme\",\"channels\":[],\"exp\":" + (NOW / 1000 + 60) + ",\"nbf\":" + (NOW / 1000 + 30) + "}"))).isEqualTo("not-yet-valid");
        assertThat(reason(verifier.signRaw("{\"alg\":\"HS256\"}",
                "{\"tenant\":\"acme\",\"channels\":[],\"exp\":" + (NOW / 1000 + 60) + ",\"nbf\":" + (NOW / 1000 - 30) + "}"))).isEqualTo("accepted");
    }

    @Test
    void refusesMalformedTokensAndClaims() {
        assertThat(reason(null)).isEqualTo("missing");
        assertThat(reason("")).isEqualTo("missing");
        assertThat(reason("a.b")).isEqualTo("malformed");
        assertThat(reason("a.b.c.d")).isEqualTo("malformed");
        assertThat(reason("!!!.???.***")).isEqualTo("malformed");
        assertThat(reason(verifier.signRaw("{\"alg\":\"HS256\"}", "{\"tenant\":\"a.b\",\"channels\":[],\"exp\":" + (NOW / 1000 + 60) + "}")))
                .isEqualTo("malformed");
        assertThat(reason(verifier.signRaw("{\"alg\":\"HS256\"}", "{\"tenant\":\"acme\",\"exp\":" + (NOW / 1000 + 60) + "}")))
                .isEqualTo("malformed");
        assertThat(reason(verifier.signRaw("{\"alg\":\"HS256\"}", "{\"tenant\":\"acme\",\"channels\":[1],\"exp\":" + (NOW / 1000 + 60) + "}")))
                .isEqualTo("malformed");
        assertThat(reason(verifier.signRaw("{\"alg\":\"HS256\"}", "not json"))).isEqualTo("malformed");
    }

    @Test
    void refusesAShortSecret() {
        assertThatThrownBy(() -> new JwtVerifier("short".getBytes(StandardCharsets.UTF_8), 0))
                .hasMessageContaining("at least 32 bytes");
    }

    @Test
    void operatorTokensAreSeparateFromSubscriberTokens() throws Exception {
        String admin = verifier.issueAdmin(NOW / 1000 + 60);
        String subscriber = verifier.issue("u1", "acme", List.of("shop.*.acme"), NOW / 1000 + 60);

        verifier.verifyAdmin(admin, NOW);
        assertThat(reason(admin)).isEqualTo("malformed"); // no tenant: it subscribes to nothing
        assertThatThrownBy(() -> verifier.verifyAdmin(subscriber, NOW)).isInstanceOf(TokenRejectedException.class)
                .hasMessageContaining("operator token");
        assertThatThrownBy(() -> verifier.verifyAdmin(verifier.issueAdmin(NOW / 1000 - 1), NOW)).isInstanceOf(TokenRejectedException.class)
                .hasMessageContaining("expired");
        String forged = verifier.signRaw("{\"alg\":\"HS256\"}", "{\"role\":\"admin\",\"exp\":" + (NOW / 1000 + 60) + "}");
        JwtVerifier other = new JwtVerifier("another-secret-of-at-least-32-bytes!!".getBytes(StandardCharsets.UTF_8), 0);
        assertThatThrownBy(() -> other.verifyAdmin(forged, NOW)).isInstanceOf(TokenRejectedException.class)
                .hasMessageContaining("signature");
    }
}

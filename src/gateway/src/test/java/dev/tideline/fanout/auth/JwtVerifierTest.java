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
        // unsigned: refused on the signature, before its header is even decoded
        assertThat(reason(b64("{\"alg\":\"none\",\"typ\":\"JWT\"}") + "." + body + ".")).isEqualTo("bad-signature");
        assertThat(reason(b64("{\"alg\":\"None\"}") + "." + body + ".")).isEqualTo("bad-signature");
        assertThat(reason(b64("{\"typ\":\"JWT\"}") + "." + body + ".")).isEqualTo("bad-signature");
        assertThat(reason(verifier.signRaw("{\"typ\":\"JWT\"}", payload(NOW / 1000 + 60)))).isEqualTo("bad-alg");
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
        assertThat(reason("a.b.c\u00e9")).isEqualTo("malformed");
        assertThat(reason(verifier.signRaw("{\"alg\":\"HS256\"}", "{\"tenant\":\"a.b\",\"channels\":[],\"exp\":" + (NOW / 1000 + 60) + "}")))
                .isEqualTo("malformed");
        assertThat(reason(verifier.signRaw("{\"alg\":\"HS256\"}", "{\"tenant\":\"acme\",\"exp\":" + (NOW / 1000 + 60) + "}")))
                .isEqualTo("malformed");
        assertThat(reason(verifier.signRaw("{\"alg\":\"HS256\"}", "{\"tenant\":\"acme\",\"channels\":[1],\"exp\":" + (NOW / 1000 + 60) + "}")))
                .isEqualTo("malformed");
        assertThat(reason(verifier.signRaw("{\"alg\":\"HS256\"}", "not json"))).isEqualTo("malformed");
    }

    /** Runs verify on a thread with a small stack: a recursive parse of a deep token would overflow it. */
    private String reasonOnASmallStack(String token) throws InterruptedException {
        String[] out = new String[1];
        Thread t = new Thread(null, () -> {
            try {
                out[0] = reason(token);
            } catch (StackOverflowError e) {
                out[0] = "StackOverflowError";
            }
        }, "small-stack", 128 * 1024);
        t.start();
        t.join();
        return out[0];
    }

    @Test
    void anUnauthenticatedDeeplyNestedTokenIsRefusedBeforeAnythingIsParsed() throws Exception {
        String payload = b64(payload(NOW / 1000 + 60));
        // a header of nested arrays as long as the length bound allows (about 5,000 levels)
        String deepHeader = b64("[".repeat(5_000));
        String deep = deepHeader + "." + payload + "." + b64("x");
        assertThat(deep.length()).isLessThanOrEqualTo(JwtVerifier.MAX_TOKEN_CHARS);
        // before, BsonDocument.parse read the header first and overflowed the stack: one StackOverflowError per request
        assertThat(reasonOnASmallStack(deep)).isEqualTo("bad-signature");
        // the token of the issue: 32 KB of nested arrays, refused on its length alone
        String huge = b64("[".repeat(24_000)) + "." + payload + "." + b64("x");
        assertThat(huge.length()).isGreaterThan(32_000);
        assertThat(reasonOnASmallStack(huge)).isEqualTo("too-long");
    }

    @Test
    void aSignedButDeeplyNestedTokenIsRefusedWithoutRecursingIntoIt() throws Exception {
        // only a holder of the key can sign one; still a bounded parse
        assertThat(reasonOnASmallStack(verifier.signRaw("{\"alg\":\"HS256\",\"x\":" + "[".repeat(2_500) + "]".repeat(2_500) + "}",
                payload(NOW / 1000 + 60)))).isEqualTo("malformed");
        assertThat(reasonOnASmallStack(verifier.signRaw("{\"alg\":\"HS256\"}", "{\"tenant\":\"acme\",\"channels\":"
                + "[".repeat(2_500) + "]".repeat(2_500) + ",\"exp\":" + (NOW / 1000 + 60) + "}"))).isEqualTo("malformed");
    }

    @Test
    void refusesTokensThatLiveLongerThanTheMaximumLifetime() {
        JwtVerifier hourCap = new JwtVerifier(SECRET, 0, 3_600_000);
        assertThat(reasonOf(hourCap, hourCap.issue(null, "acme", List.of("shop.*.acme"), NOW / 1000 + 3600))).isEqualTo("accepted");
        assertThat(reasonOf(hourCap, hourCap.issue(null, "acme", List.of("shop.*.acme"), NOW / 1000 + 3601))).isEqualTo("lifetime-too-long");
        assertThat(reasonOf(hourCap, hourCap.issue(null, "acme", List.of("shop.*.acme"), Long.MAX_VALUE))).isEqualTo("lifetime-too-long");
        assertThat(reasonOf(hourCap, hourCap.signRaw("{\"alg\":\"HS256\"}", "{\"tenant\":\"acme\",\"channels\":[],\"exp\":1e300}")))
                .isEqualTo("lifetime-too-long");
        assertThat(reasonOf(hourCap, hourCap.issue(null, "acme", List.of("shop.*.acme"), Long.MIN_VALUE))).isEqualTo("expired");
        // none: refused as well
        assertThat(reasonOf(hourCap, hourCap.signRaw("{\"alg\":\"HS256\"}", "{\"tenant\":\"acme\",\"channels\":[]}"))).isEqualTo("malformed");
        assertThatThrownBy(() -> hourCap.verifyAdmin(hourCap.issueAdmin(NOW / 1000 + 7200), NOW))
                .isInstanceOf(TokenRejectedException.class).hasMessageContaining("auth.token.max.lifetime.ms");
    }

    private static String reasonOf(JwtVerifier v, String token) {
        try {
            v.verify(token, NOW);
            return "accepted";
        } catch (TokenRejectedException e) {
            return e.reason();
        }
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

package dev.tideline.fanout.auth;

import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.nesting.NestingDepth;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.json.JsonParseException;

/**
 * Verifies HS256 JSON Web Tokens signed with one key, and nothing else: small on purpose, so it can
 * be audited. Tokens are untrusted until their signature holds, so the signature is checked first, on
 * the token's raw characters: a token longer than {@link #MAX_TOKEN_CHARS}, with a character outside
 * base64url, or not of three parts is refused without decoding anything, and nothing of an
 * unauthenticated token is ever parsed (RFC 7515 5.2 allows validating in this order). Only then are
 * header and payload decoded, each checked for nesting before the (recursive) JSON parser sees it.
 * The header must say {@code "alg":"HS256"}, the signature is compared in constant time,
 * {@code exp} is required, at most {@code maxLifetimeMillis} ahead, and {@code nbf} honoured.
 * Claims: {@code tenant} (string), {@code channels} (array of patterns), optional {@code sub}.
 */
public final class JwtVerifier {
    static final String HMAC = "HmacSHA256";
    static final String ADMIN = "admin";
    /** Longest token accepted: 32 channel patterns of 200 characters fit, a request line of 32 KB does not. */
    public static final int MAX_TOKEN_CHARS = 8192;
    /** A token nests at most two levels (the claims object, the channels array); a little room beyond. */
    static final int MAX_JSON_DEPTH = 4;
    /** The maximum lifetime of a verifier made without one: one day, the default of auth.token.max.lifetime.ms. */
    public static final long DEFAULT_MAX_LIFETIME_MILLIS = 86_400_000L;
    private static final Base64.Decoder B64 = Base64.getUrlDecoder();

    private final SecretKeySpec key;
    private final long leewayMillis;
    private final long maxLifetimeMillis;

    /** A verifier (and signer) whose tokens may live at most {@link #DEFAULT_MAX_LIFETIME_MILLIS}. */
    public JwtVerifier(byte[] secret, long leewayMillis) {
        this(secret, leewayMillis, DEFAULT_MAX_LIFETIME_MILLIS);
    }

    /**
     * @param secret            the HMAC key, at least 32 bytes (RFC 7518 3.2: a key as long as the hash)
     * @param maxLifetimeMillis how far ahead a token's {@code exp} may be: a token that lives longer is refused
     */
    public JwtVerifier(byte[] secret, long leewayMillis, long maxLifetimeMillis) {
        if (secret.length < 32) {
            throw new IllegalArgumentException("the HMAC secret must be at least 32 bytes, got " + secret.length);
        }
        this.key = new SecretKeySpec(secret.clone(), HMAC);
        this.leewayMillis = leewayMillis;
        this.maxLifetimeMillis = maxLifetimeMillis;
    }

    public long maxLifetimeMillis() {
        return maxLifetimeMillis;
    }

    /** The claims of a subscriber token: signature, expiry, tenant and channel patterns checked. */
    public TokenClaims verify(String token, long nowMillis) throws TokenRejectedException {
        BsonDocument claims = verifiedClaims(token, nowMillis);
        long exp = secondsClaim(claims, "exp", true);
        BsonValue tenant = claims.get("tenant");
        if (tenant == null || !tenant.isString() || !ChannelName.isValidTenant(tenant.asString().getValue())) {
            throw new TokenRejectedException("malformed", "the token has no valid 'tenant' claim");
        }
        BsonValue channels = claims.get("channels");
        if (channels == null || !channels.isArray()) {
            throw new TokenRejectedException("malformed", "the token has no 'channels' array claim");
        }
        List<String> patterns = new ArrayList<>();
        for (BsonValue v : channels.asArray()) {
            if (!v.isString()) {
                throw new TokenRejectedException("malformed", "'channels' must hold strings");
            }
            patterns.add(v.asString().getValue());
        }
        BsonValue sub = claims.get("sub");
        return new TokenClaims(sub != null && sub.isString() ? sub.asString().getValue() : null,
                tenant.asString().getValue(), patterns, exp * 1000);
    }

    /** Checks an operator token ({@code "role":"admin"}), which /stats requires. */
    public void verifyAdmin(String token, long nowMillis) throws TokenRejectedException {
        BsonDocument claims = verifiedClaims(token, nowMillis);
        BsonValue role = claims.get("role");
        if (role == null || !role.isString() || !ADMIN.equals(role.asString().getValue())) {
            throw new TokenRejectedException("not-admin", "this needs an operator token (role admin): ./gateway token --admin");
        }
    }

    /** An operator token, for /stats. */
    public String issueAdmin(long expiresAtSeconds) {
        BsonDocument payload = new BsonDocument("role", new org.bson.BsonString(ADMIN))
                .append("exp", new org.bson.BsonInt64(expiresAtSeconds));
        return signRaw("{\"alg\":\"HS256\",\"typ\":\"JWT\"}", payload.toJson());
    }

    /** The payload of a token whose signature, algorithm, expiry, lifetime and not-before hold. */
    private BsonDocument verifiedClaims(String token, long nowMillis) throws TokenRejectedException {
        if (token == null || token.isEmpty()) {
            throw new TokenRejectedException("missing", "no token: pass ?token= or an Authorization: Bearer header");
        }
        if (token.length() > MAX_TOKEN_CHARS) {
            throw new TokenRejectedException("too-long", "a token has at most " + MAX_TOKEN_CHARS + " characters, this one "
                    + token.length());
        }
        int firstDot = -1;
        int lastDot = -1;
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c == '.') {
                if (firstDot >= 0 && lastDot != firstDot) {
                    throw new TokenRejectedException("malformed", "a JWT has 3 dot-separated parts, this one has more");
                }
                lastDot = i;
                firstDot = firstDot < 0 ? i : firstDot;
            } else if (!isBase64Url(c)) {
                throw new TokenRejectedException("malformed", "a JWT holds base64url characters and two dots only");
            }
        }
        if (firstDot < 0 || firstDot == lastDot) {
            throw new TokenRejectedException("malformed", "a JWT has 3 dot-separated parts, this one has " + (firstDot < 0 ? 1 : 2));
        }
        byte[] actual;
        try {
            actual = B64.decode(token.substring(lastDot + 1));
        } catch (IllegalArgumentException e) {
            throw new TokenRejectedException("malformed", "the signature is not base64url");
        }
        // the signing input as sent: ASCII, checked above
        if (!MessageDigest.isEqual(sign(token.substring(0, lastDot)), actual)) { // constant time
            throw new TokenRejectedException("bad-signature", "the token's signature does not match");
        }
        BsonDocument header = json(token.substring(0, firstDot), "header");
        BsonValue alg = header.get("alg");
        if (alg == null || !alg.isString() || !"HS256".equals(alg.asString().getValue())) {
            throw new TokenRejectedException("bad-alg", "only alg HS256 is accepted, the token says "
                    + (alg == null ? "nothing" : alg.isString() ? alg.asString().getValue() : alg.getBsonType().toString()));
        }
        BsonDocument claims = json(token.substring(firstDot + 1, lastDot), "payload");
        long exp = secondsClaim(claims, "exp", true);
        if (exp > (nowMillis + leewayMillis + maxLifetimeMillis) / 1000) {
            throw new TokenRejectedException("lifetime-too-long", "the token expires at " + exp + " (epoch seconds), more than "
                    + maxLifetimeMillis / 1000 + " s from now (auth.token.max.lifetime.ms): issue shorter-lived tokens");
        }
        if (exp <= 0 || nowMillis - leewayMillis >= exp * 1000) { // 0 < exp <= about now: no overflow
            throw new TokenRejectedException("expired", "the token expired at " + exp + " (epoch seconds)");
        }
        long nbf = secondsClaim(claims, "nbf", false);
        if (nbf > 0 && (nbf > exp || nowMillis + leewayMillis < nbf * 1000)) {
            throw new TokenRejectedException("not-yet-valid", "the token is not valid before " + nbf + " (epoch seconds)");
        }
        return claims;
    }

    private static boolean isBase64Url(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '=';
    }

    /** Issues a token with this verifier's key: for tests, the benchmark and the demo's operator. */
    public String issue(String subject, String tenant, List<String> channels, long expiresAtSeconds) {
        BsonDocument payload = new BsonDocument();
        if (subject != null) {
            payload.append("sub", new org.bson.BsonString(subject));
        }
        payload.append("tenant", new org.bson.BsonString(tenant));
        org.bson.BsonArray array = new org.bson.BsonArray();
        channels.forEach(c -> array.add(new org.bson.BsonString(c)));
        payload.append("channels", array);
        payload.append("exp", new org.bson.BsonInt64(expiresAtSeconds));
        return signRaw("{\"alg\":\"HS256\",\"typ\":\"JWT\"}", payload.toJson());
    }

    /** Signs any header and payload text as given (tests build hostile tokens with it). */
    public String signRaw(String headerJson, String payloadJson) {
        Base64.Encoder enc = Base64.getUrlEncoder().withoutPadding();
        String signingInput = enc.encodeToString(headerJson.getBytes(StandardCharsets.UTF_8)) + "."
                + enc.encodeToString(payloadJson.getBytes(StandardCharsets.UTF_8));
        return signingInput + "." + enc.encodeToString(sign(signingInput));
    }

    private byte[] sign(String signingInput) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(key);
            return mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }

    /** A signed part as JSON, its nesting checked before the recursive parser sees it. */
    private static BsonDocument json(String part, String what) throws TokenRejectedException {
        try {
            byte[] utf8 = B64.decode(part);
            if (NestingDepth.jsonExceeds(utf8, MAX_JSON_DEPTH)) {
                throw new TokenRejectedException("malformed", "the token's " + what + " nests deeper than " + MAX_JSON_DEPTH + " levels");
            }
            return BsonDocument.parse(new String(utf8, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException | JsonParseException | org.bson.BsonInvalidOperationException e) {
            throw new TokenRejectedException("malformed", "the token's " + what + " is not base64url JSON");
        }
    }

    private static long secondsClaim(BsonDocument claims, String name, boolean required) throws TokenRejectedException {
        BsonValue v = claims.get(name);
        if (v == null) {
            if (required) {
                throw new TokenRejectedException("malformed", "the token has no '" + name + "' claim: tokens must expire");
            }
            return 0;
        }
        if (!v.isNumber()) {
            throw new TokenRejectedException("malformed", "claim '" + name + "' must be a number (epoch seconds)");
        }
        return v.asNumber().longValue();
    }
}

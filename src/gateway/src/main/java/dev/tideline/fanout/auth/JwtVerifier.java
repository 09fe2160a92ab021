package dev.tideline.fanout.auth;

import dev.tideline.fanout.channel.ChannelName;
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
 * Verifies HS256 JSON Web Tokens, and nothing else: small on purpose, so it can be audited.
 * The header must say {@code "alg":"HS256"} (so {@code none} and every other algorithm are refused
 * before any signature is looked at), the signature is compared in constant time, {@code exp} is
 * required and {@code nbf} honoured. Claims: {@code tenant} (string), {@code channels} (array of
 * patterns), optional {@code sub}.
 */
public final class JwtVerifier {
    static final String HMAC = "HmacSHA256";
    static final String ADMIN = "admin";
    private static final Base64.Decoder B64 = Base64.getUrlDecoder();

    private final SecretKeySpec key;
    private final long leewayMillis;

    /** @param secret the shared HMAC key, at least 32 bytes (RFC 7518 3.2: a key as long as the hash) */
    public JwtVerifier(byte[] secret, long leewayMillis) {
        if (secret.length < 32) {
            throw new IllegalArgumentException("the HMAC secret must be at least 32 bytes, got " + secret.length);
        }
        this.key = new SecretKeySpec(secret.clone(), HMAC);
        this.leewayMillis = leewayMillis;
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

    /** The payload of a token whose algorithm, signature, expiry and not-before hold. */
    private BsonDocument verifiedClaims(String token, long nowMillis) throws TokenRejectedException {
        if (token == null || token.isEmpty()) {
            throw new TokenRejectedException("missing", "no token: pass ?token= or an Authorization: Bearer header");
        }
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3) {
            throw new TokenRejectedException("malformed", "a JWT has 3 dot-separated parts, this one has " + parts.length);
        }
        BsonDocument header = json(parts[0], "header");
        BsonValue alg = header.get("alg");
        if (alg == null || !alg.isString() || !"HS256".equals(alg.asString().getValue())) {
            throw new TokenRejectedException("bad-alg", "only alg HS256 is accepted, the token says "
                    + (alg == null ? "nothing" : alg.isString() ? alg.asString().getValue() : alg.getBsonType().toString()));
        }
        byte[] expected = sign(parts[0] + "." + parts[1]);
        byte[] actual;
        try {
            actual = B64.decode(parts[2]);
        } catch (IllegalArgumentException e) {
            throw new TokenRejectedException("malformed", "the signature is not base64url");
        }
        if (!MessageDigest.isEqual(expected, actual)) { // constant time
            throw new TokenRejectedException("bad-signature", "the token's signature does not match");
        }
        BsonDocument claims = json(parts[1], "payload");
        long exp = secondsClaim(claims, "exp", true);
        if (nowMillis - leewayMillis >= exp * 1000) {
            throw new TokenRejectedException("expired", "the token expired at " + exp + " (epoch seconds)");
        }
        long nbf = secondsClaim(claims, "nbf", false);
        if (nbf > 0 && nowMillis + leewayMillis < nbf * 1000) {
            throw new TokenRejectedException("not-yet-valid", "the token is not valid before " + nbf + " (epoch seconds)");
        }
        return claims;
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

    private static BsonDocument json(String part, String what) throws TokenRejectedException {
        try {
            return BsonDocument.parse(new String(B64.decode(part), StandardCharsets.UTF_8));
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

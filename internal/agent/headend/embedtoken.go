package headend

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Signed embed tokens (docs/ai-agent.md, Embed headend): the operator's
// own backend, which holds auth.signedTokens.secret, mints a token for a
// page it serves; the page sends it as "Authorization: Bearer TOKEN"; the
// headend checks the signature and that the token is younger than
// ttlSeconds. The secret itself never reaches a browser.
//
// A token is "v1.<issued>.<signature>": issued is the Unix time in
// seconds, and the signature is the lowercase hex HMAC-SHA256, keyed with
// the secret, of "v1.<issued>".
const (
	tokenVersion = "v1"
	// DefaultTokenTTL is the lifetime of a signed token when
	// auth.signedTokens.ttlSeconds is not set (the original's documented
	// value).
	DefaultTokenTTL = time.Hour
	// tokenSkew is how far in the future a token's issue time may be: the
	// minting backend's clock may run a little ahead.
	tokenSkew = time.Minute
	// maxTokenLen bounds a presented token; a longer one is malformed.
	maxTokenLen = 128
)

// Token errors, returned by verifyToken; test with errors.Is.
var (
	// ErrTokenMissing: the request carries no bearer token.
	ErrTokenMissing = errors.New("no signed token: send Authorization: Bearer v1.<issued>.<signature>")
	// ErrTokenMalformed: the token is not v1.<issued>.<signature>.
	ErrTokenMalformed = errors.New("malformed signed token: expected v1.<issued>.<signature>")
	// ErrTokenForged: the signature is not the secret's.
	ErrTokenForged = errors.New("signed token refused: its signature does not match")
	// ErrTokenExpired: the token is older than its TTL.
	ErrTokenExpired = errors.New("signed token expired")
	// ErrTokenFuture: the token was issued later than now (plus a minute
	// of clock skew).
	ErrTokenFuture = errors.New("signed token refused: it was issued in the future")
)

// SignToken mints the token of secret issued at issued.
func SignToken(secret string, issued time.Time) string {
	payload := tokenVersion + "." + strconv.FormatInt(issued.Unix(), 10)
	return payload + "." + tokenMAC(secret, payload)
}

func tokenMAC(secret, payload string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(payload))
	return hex.EncodeToString(m.Sum(nil))
}

// verifyToken checks a presented token against secret at now: nil, or an
// error wrapping one of the token errors. The signature is compared in
// constant time, before the token's times are looked at, so a forged
// token learns nothing about them.
func verifyToken(secret, token string, ttl time.Duration, now time.Time) error {
	if token == "" {
		return ErrTokenMissing
	}
	if len(token) > maxTokenLen {
		return ErrTokenMalformed
	}
	version, rest, ok := strings.Cut(token, ".")
	issuedText, sig, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 || version != tokenVersion || len(sig) != sha256.Size*2 || !decimal(issuedText) {
		return ErrTokenMalformed
	}
	got, err := hex.DecodeString(sig)
	if err != nil {
		return ErrTokenMalformed
	}
	want, _ := hex.DecodeString(tokenMAC(secret, version+"."+issuedText))
	if !hmac.Equal(got, want) {
		return ErrTokenForged
	}
	secs, err := strconv.ParseInt(issuedText, 10, 64)
	if err != nil {
		return ErrTokenMalformed
	}
	issued := time.Unix(secs, 0)
	if issued.After(now.Add(tokenSkew)) {
		return fmt.Errorf("%w (issued %s, now %s)", ErrTokenFuture, issued.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	if expires := issued.Add(ttl); !now.Before(expires) {
		return fmt.Errorf("%w at %s (issued %s, ttl %s): fetch a new one", ErrTokenExpired, expires.UTC().Format(time.RFC3339), issued.UTC().Format(time.RFC3339), ttl)
	}
	return nil
}

// decimal reports whether s is 1 to 12 ASCII digits (Unix seconds until
// the year 33658).
func decimal(s string) bool {
	if s == "" || len(s) > 12 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

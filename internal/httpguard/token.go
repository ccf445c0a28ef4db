package httpguard

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// SessionCookie is the cookie salve's web pages keep the token in after
// /login?token=…, HttpOnly and SameSite=Strict.
const SessionCookie = "salve_token"

// Token is the credential a server requires. The zero Token requires
// none.
type Token struct {
	// Value is the token; empty authorizes every request.
	Value string
	// Header, when set, names a header that may carry the bare token when
	// the request sends no bearer token (x-api-key of the Anthropic API).
	Header string
	// Cookie, when set, names a cookie that may carry it when the request
	// sends neither (a browser after /login).
	Cookie string
}

// Authorized reports whether r carries the token: "Authorization: Bearer
// <token>" (the scheme in any case), else the Header, else the Cookie,
// compared in constant time.
func (t Token) Authorized(r *http.Request) bool {
	if t.Value == "" {
		return true
	}
	return Equal(t.presented(r), t.Value)
}

// Bearer is the token of r's "Authorization: Bearer <token>" header (the
// scheme in any case), "" when it sends none.
func Bearer(r *http.Request) string {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// presented is the credential r carries, "" when none.
func (t Token) presented(r *http.Request) string {
	if tok := Bearer(r); tok != "" {
		return tok
	}
	if t.Header != "" {
		if v := r.Header.Get(t.Header); v != "" {
			return v
		}
	}
	if t.Cookie != "" {
		if c, err := r.Cookie(t.Cookie); err == nil {
			return c.Value
		}
	}
	return ""
}

// Equal compares a presented token with the configured one in constant
// time, whatever their lengths (both are hashed first). An empty token
// never matches.
func Equal(got, want string) bool {
	a := sha256.Sum256([]byte(got))
	b := sha256.Sum256([]byte(want))
	return got != "" && want != "" && subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

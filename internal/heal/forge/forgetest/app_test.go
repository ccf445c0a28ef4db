package forgetest_test

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
)

// sign makes a JWT of header and claims (JSON) signed with key.
func sign(t *testing.T, key *rsa.PrivateKey, header, claims string) string {
	t.Helper()
	enc := base64.RawURLEncoding.EncodeToString
	s := enc([]byte(header)) + "." + enc([]byte(claims))
	sum := sha256.Sum256([]byte(s))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return s + "." + enc(sig)
}

// TestVerifyJWT: the server takes what GitHub takes and refuses what it
// refuses.
func TestVerifyJWT(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	now := time.Unix(1_800_000_000, 0)
	rs := `{"alg":"RS256","typ":"JWT"}`
	tests := []struct {
		name string
		jwt  string
		want string // "" for accepted, else part of the error
	}{
		{"string issuer", sign(t, key, rs, `{"iat":1799999940,"exp":1800000480,"iss":"123"}`), ""},
		{"number issuer", sign(t, key, rs, `{"iat":1799999940,"exp":1800000480,"iss":123}`), ""},
		{"another key", sign(t, other, rs, `{"iat":1799999940,"exp":1800000480,"iss":"123"}`), "signature"},
		{"HS256", sign(t, key, `{"alg":"HS256"}`, `{"iat":1799999940,"exp":1800000480,"iss":"123"}`), "RS256"},
		{"expired", sign(t, key, rs, `{"iat":1799999000,"exp":1799999999,"iss":"123"}`), "'exp'"},
		{"too long", sign(t, key, rs, `{"iat":1799999940,"exp":1800000601,"iss":"123"}`), "too far"},
		{"issued in the future", sign(t, key, rs, `{"iat":1800000010,"exp":1800000480,"iss":"123"}`), "'iat'"},
		{"no issuer", sign(t, key, rs, `{"iat":1799999940,"exp":1800000480}`), "'iss'"},
		{"not a JWT", "abc.def", "decoded"},
	}
	for _, tt := range tests {
		c, err := forgetest.VerifyJWT(tt.jwt, &key.PublicKey, now)
		switch {
		case tt.want == "" && (err != nil || c.Iss != "123"):
			t.Errorf("%s: %+v, %v", tt.name, c, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

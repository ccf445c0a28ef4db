package forgetest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// app is a GitHub App the server knows.
type app struct {
	id           string
	key          *rsa.PublicKey
	installation int64
	repos        []string // "owner/name"
}

// Claims are the verified claims of an App's JWT.
type Claims struct {
	Iss string
	Iat int64
	Exp int64
}

// Mint is an installation token the server issued.
type Mint struct {
	App          string
	Installation int64
	Token        string
	// JWT is the token that asked for it, and Claims its verified claims.
	JWT    string
	Claims Claims
	// Repositories are the names the request limited the token to.
	Repositories []string
	ExpiresAt    time.Time
}

// AddApp registers a GitHub App: its id (the JWT's issuer), public key,
// and one installation on the repositories given ("owner/name"), which
// the server also makes known.
func (s *Server) AddApp(id string, pub *rsa.PublicKey, installation int64, repos ...string) {
	for _, r := range repos {
		s.AddRepo("github", r)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apps[id] = &app{id: id, key: pub, installation: installation, repos: append([]string(nil), repos...)}
}

// Minted returns every installation token issued so far.
func (s *Server) Minted() []Mint {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Mint, len(s.minted))
	for i, m := range s.minted {
		m.Repositories = append([]string(nil), m.Repositories...)
		out[i] = m
	}
	return out
}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// MaxJWTLifetime is GitHub's limit: a JWT may expire at most ten minutes
// after the time it is checked.
const MaxJWTLifetime = 10 * time.Minute

// errUndecodable is GitHub's own message for a JWT it cannot read. VerifyJWT's
// errors are served word for word as the API error's message, so this one
// keeps GitHub's capital letter.
//
//lint:ignore ST1005 not a Go-style error string: GitHub's message, quoted verbatim for the fake's responses
var errUndecodable = errors.New("A JSON web token could not be decoded")

// VerifyJWT checks a GitHub App JWT as GitHub does: three base64url parts,
// header alg RS256, a PKCS#1 v1.5 SHA-256 signature by pub's private key,
// an integer iat not in the future and an exp after now and at most ten
// minutes ahead, and an iss (string or number). It returns the claims.
func VerifyJWT(jwt string, pub *rsa.PublicKey, now time.Time) (Claims, error) {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return Claims{}, errUndecodable
	}
	hb, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	cb, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return Claims{}, errUndecodable
	}
	var header struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(hb, &header) != nil || header.Alg != "RS256" {
		return Claims{}, fmt.Errorf("the JWT's algorithm %q is not RS256", header.Alg)
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig) != nil {
		return Claims{}, fmt.Errorf("%w: the signature does not verify", errUndecodable)
	}
	var raw struct {
		Iss json.RawMessage `json:"iss"`
		Iat json.Number     `json:"iat"`
		Exp json.Number     `json:"exp"`
	}
	dec := json.NewDecoder(strings.NewReader(string(cb)))
	dec.UseNumber()
	if dec.Decode(&raw) != nil {
		return Claims{}, errUndecodable
	}
	c := Claims{Iss: issuer(raw.Iss)}
	if c.Iss == "" {
		return Claims{}, errors.New("'Issuer' claim ('iss') must be an Integer or a String")
	}
	iat, err1 := raw.Iat.Int64()
	exp, err2 := raw.Exp.Int64()
	if err1 != nil {
		return Claims{}, errors.New("'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued")
	}
	if err2 != nil {
		return Claims{}, errors.New("'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires")
	}
	c.Iat, c.Exp = iat, exp
	switch n := now.Unix(); {
	case iat > n:
		return c, errors.New("'Issued at' claim ('iat') must be an Integer representing a time in the past")
	case exp <= n:
		return c, errors.New("'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires")
	case exp > n+int64(MaxJWTLifetime/time.Second):
		return c, errors.New("'Expiration time' claim ('exp') is too far in the future")
	case exp <= iat:
		return c, errors.New("'Expiration time' claim ('exp') is before 'Issued at' ('iat')")
	}
	return c, nil
}

// appAuth verifies the request's JWT and returns its App.
func (s *Server) appAuth(w http.ResponseWriter, r *http.Request) (*app, string, Claims, bool) {
	jwt, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || jwt == "" {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "A JSON web token could not be decoded"})
		return nil, "", Claims{}, false
	}
	// Find the App by the claimed issuer, then verify with its key.
	var iss string
	if p := strings.Split(jwt, "."); len(p) == 3 {
		if b, err := base64.RawURLEncoding.DecodeString(p[1]); err == nil {
			var c struct {
				Iss json.RawMessage `json:"iss"`
			}
			_ = json.Unmarshal(b, &c)
			iss = issuer(c.Iss)
		}
	}
	s.mu.Lock()
	a := s.apps[iss]
	s.mu.Unlock()
	if a == nil {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "'Issuer' claim ('iss') must be an Integer or a String"})
		return nil, "", Claims{}, false
	}
	c, err := VerifyJWT(jwt, a.key, s.now())
	if err != nil {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": err.Error(), "documentation_url": "https://docs.github.com/rest"})
		return nil, "", Claims{}, false
	}
	return a, jwt, c, true
}

// app serves POST /app/installations/{id}/access_tokens.
func (s *Server) app(w http.ResponseWriter, r *http.Request, rest string, body []byte) {
	parts := strings.Split(rest, "/")
	if r.Method != http.MethodPost || len(parts) != 3 || parts[0] != "installations" || parts[2] != "access_tokens" {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	a, jwt, claims, ok := s.appAuth(w, r)
	if !ok {
		return
	}
	id, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || id != a.installation {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	var in struct {
		Repositories []string `json:"repositories"`
	}
	if len(body) > 0 && json.Unmarshal(body, &in) != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	for _, name := range in.Repositories {
		if !a.hasRepoName(name) {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "There is at least one repository that does not exist or is not accessible to the parent installation."})
			return
		}
	}
	var rnd [20]byte
	_, _ = rand.Read(rnd[:])
	ttl := s.TokenTTL
	if ttl <= 0 {
		ttl = time.Hour
	}
	m := Mint{App: a.id, Installation: id, Token: "ghs_" + hex.EncodeToString(rnd[:]), JWT: jwt, Claims: claims,
		Repositories: in.Repositories, ExpiresAt: s.now().Add(ttl).UTC().Truncate(time.Second)}
	s.mu.Lock()
	s.minted = append(s.minted, m)
	s.mu.Unlock()
	selection := "all"
	if len(in.Repositories) > 0 {
		selection = "selected"
	}
	writeJSON(w, http.StatusCreated, map[string]any{"token": m.Token, "expires_at": m.ExpiresAt.Format(time.RFC3339),
		"permissions":          map[string]string{"checks": "write", "contents": "write", "pull_requests": "write", "statuses": "write"},
		"repository_selection": selection})
}

func (a *app) hasRepoName(name string) bool {
	for _, r := range a.repos {
		if _, n, _ := strings.Cut(r, "/"); n == name || r == name {
			return true
		}
	}
	return false
}

// repoInstallation serves GET /repos/{owner}/{repo}/installation.
func (s *Server) repoInstallation(w http.ResponseWriter, r *http.Request, rest string) {
	a, _, _, ok := s.appAuth(w, r)
	if !ok {
		return
	}
	repo := strings.TrimSuffix(rest, "/installation")
	for _, name := range a.repos {
		if name == repo {
			owner, _, _ := strings.Cut(repo, "/")
			writeJSON(w, http.StatusOK, map[string]any{"id": a.installation, "app_id": a.id, "target_type": "Organization",
				"account": map[string]any{"login": owner}, "repository_selection": "selected",
				"access_tokens_url": fmt.Sprintf("%s/app/installations/%d/access_tokens", s.URL, a.installation)})
			return
		}
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

// githubAuth accepts the server's token, or an installation token it
// issued that has not expired and covers the repository.
func (s *Server) githubAuth(w http.ResponseWriter, auth, rest string) bool {
	if auth == "Bearer "+s.Token {
		return true
	}
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		tok, ok = strings.CutPrefix(auth, "token ")
	}
	p := strings.SplitN(rest, "/", 3)
	s.mu.Lock()
	var m *Mint
	for i := range s.minted {
		if ok && tok != "" && s.minted[i].Token == tok {
			m = &s.minted[i]
		}
	}
	var expired, covered bool
	if m != nil {
		expired = !s.now().Before(m.ExpiresAt)
		covered = len(m.Repositories) == 0
		for _, r := range m.Repositories {
			covered = covered || (len(p) >= 2 && r == p[1])
		}
	}
	s.mu.Unlock()
	switch {
	case m == nil || expired:
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
		return false
	case !covered:
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
		return false
	}
	return true
}

// issuer reads an iss claim written as a string or an integer.
func issuer(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		if _, err := n.Int64(); err == nil {
			return n.String()
		}
	}
	return ""
}

package forge

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/safefile"
)

// The environment variables of a GitHub App's identity. The private key
// comes either inline (the PEM text, as a CI secret holds it) or from a
// file.
const (
	EnvAppID             = "SALVE_GITHUB_APP_ID"
	EnvAppPrivateKey     = "SALVE_GITHUB_APP_PRIVATE_KEY"
	EnvAppPrivateKeyFile = "SALVE_GITHUB_APP_PRIVATE_KEY_FILE"
	EnvAppInstallationID = "SALVE_GITHUB_APP_INSTALLATION_ID"
)

// JWTLifetime is how long an App's JSON Web Token is valid: GitHub refuses
// one that expires more than ten minutes after it is issued, so salve
// stays under that with room for clock drift. The token is dated a minute
// in the past (JWTBackdate) for the same reason.
const (
	JWTLifetime = 9 * time.Minute
	JWTBackdate = 60 * time.Second
)

// TokenRefreshMargin is how long before its expiry an installation token
// is replaced by a new one, so that no call starts with a token about to
// lapse.
const TokenRefreshMargin = 5 * time.Minute

// maxKeyBytes bounds the private key file; a PEM RSA key of 4096 bits is
// about 3 KB.
const maxKeyBytes = 64 << 10

// AppConfig configures NewApp.
type AppConfig struct {
	// API is the REST root; empty means DefaultGitHubAPI.
	API string
	// Repo is "owner/name": the repository the installation token is
	// limited to, and where the installation is looked up when
	// InstallationID is 0.
	Repo string
	// ID is the App's id (digits) or client id, the JWT's issuer.
	ID string
	// PrivateKey is the App's private key, PEM (PKCS#1 as GitHub issues
	// it, or PKCS#8).
	PrivateKey []byte
	// InstallationID is the installation to act as: from
	// SALVE_GITHUB_APP_INSTALLATION_ID, or a webhook payload's
	// installation.id. 0 means look it up from Repo.
	InstallationID int64
	// HTTP is the client; nil means one with a 30 s timeout.
	HTTP *http.Client
}

// App authenticates as a GitHub App installation: it signs a short-lived
// JWT (RS256) with the App's private key, exchanges it for an installation
// access token (POST /app/installations/{id}/access_tokens), and hands
// that token out until shortly before it expires, then mints another. The
// token serves the REST API (give the App to [GitHubConfig]) and git push
// ([App.GitCredentials]). Pull requests opened with it are the App's, so
// GitHub starts the workflows they trigger, which it never does for the
// workflow's own GITHUB_TOKEN.
//
// An App is safe for concurrent use. No token, JWT or key ever appears in
// its errors.
type App struct {
	id          string
	key         *rsa.PrivateKey
	api         string
	owner, repo string
	c           client

	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time

	mu           sync.Mutex
	installation int64
	token        string
	expires      time.Time
	issued       []string
}

// NewApp checks cfg and parses the key.
func NewApp(cfg AppConfig) (*App, error) {
	if !validAppID(cfg.ID) {
		return nil, fmt.Errorf("forge: GitHub App id %q is not an App id or client id", cfg.ID)
	}
	key, err := parseRSAKey(cfg.PrivateKey)
	if err != nil {
		return nil, err
	}
	api := strings.TrimRight(cfg.API, "/")
	if api == "" {
		api = DefaultGitHubAPI
	}
	if u, err := url.Parse(api); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("forge: GitHub API %q is not an http(s) URL", cfg.API)
	}
	a := &App{id: cfg.ID, key: key, api: api, installation: cfg.InstallationID}
	if cfg.Repo != "" {
		owner, name, ok := strings.Cut(cfg.Repo, "/")
		if !ok || !validName(owner) || !validName(name) {
			return nil, fmt.Errorf("forge: GitHub repository %q is not owner/name", cfg.Repo)
		}
		a.owner, a.repo = owner, name
	}
	if cfg.InstallationID < 0 || (cfg.InstallationID == 0 && a.repo == "") {
		return nil, fmt.Errorf("forge: a GitHub App needs an installation id or a repository to find it from")
	}
	a.c = client{HTTP: cfg.HTTP, auth: ghHeaders, secrets: a.Secrets, Now: a.now,
		token: func(context.Context) (string, error) { return a.JWT() }}
	return a, nil
}

// ghHeaders sets the headers every GitHub call carries but the token.
func ghHeaders(r *http.Request) {
	r.Header.Set("Accept", "application/vnd.github+json")
	r.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	r.Header.Set("User-Agent", "salve")
}

// validAppID accepts an App id (digits) or a client id (letters, digits
// and dots, such as "Iv23li…").
func validAppID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.') {
			return false
		}
	}
	return true
}

// parseRSAKey reads a PEM RSA private key, PKCS#1 or PKCS#8. A key pasted
// into a CI variable with its line breaks written as "\n" is accepted too.
func parseRSAKey(pemText []byte) (*rsa.PrivateKey, error) {
	text := strings.TrimSpace(string(pemText))
	if !strings.Contains(text, "\n") && strings.Contains(text, `\n`) {
		text = strings.ReplaceAll(text, `\n`, "\n")
	}
	block, _ := pem.Decode([]byte(text))
	if block == nil {
		return nil, errors.New("forge: the GitHub App private key is not PEM")
	}
	var key *rsa.PrivateKey
	switch block.Type {
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			return nil, errors.New("forge: the GitHub App private key is not a valid RSA key")
		}
		key = k
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		rk, ok := k.(*rsa.PrivateKey)
		if err != nil || !ok {
			return nil, errors.New("forge: the GitHub App private key is not an RSA key")
		}
		key = rk
	default:
		return nil, fmt.Errorf("forge: the GitHub App private key is a PEM %q block, not an RSA private key", block.Type)
	}
	if key.N.BitLen() < 2048 {
		return nil, fmt.Errorf("forge: the GitHub App private key has %d bits; GitHub issues 2048", key.N.BitLen())
	}
	return key, nil
}

// AppConfigFromEnv reads a GitHub App's identity from the environment:
// SALVE_GITHUB_APP_ID, the key from SALVE_GITHUB_APP_PRIVATE_KEY or the
// file SALVE_GITHUB_APP_PRIVATE_KEY_FILE, and the installation from
// SALVE_GITHUB_APP_INSTALLATION_ID, else from the installation.id of the
// event payload at GITHUB_EVENT_PATH (a run started by the App's own
// webhook). ok is false when no App id is set; API, Repo and HTTP are left
// for the caller.
func AppConfigFromEnv(getenv func(string) string) (cfg AppConfig, ok bool, err error) {
	id := strings.TrimSpace(getenv(EnvAppID))
	if id == "" {
		return AppConfig{}, false, nil
	}
	cfg.ID = id
	switch inline, file := getenv(EnvAppPrivateKey), getenv(EnvAppPrivateKeyFile); {
	case strings.TrimSpace(inline) != "":
		cfg.PrivateKey = []byte(inline)
	case file != "":
		b, err := safefile.Read(file, maxKeyBytes)
		if err != nil {
			return AppConfig{}, true, fmt.Errorf("forge: %s: %w", EnvAppPrivateKeyFile, err)
		}
		cfg.PrivateKey = b
	default:
		return AppConfig{}, true, fmt.Errorf("forge: %s is set but neither %s nor %s is", EnvAppID, EnvAppPrivateKey, EnvAppPrivateKeyFile)
	}
	if s := strings.TrimSpace(getenv(EnvAppInstallationID)); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return AppConfig{}, true, fmt.Errorf("forge: %s %q is not an installation id", EnvAppInstallationID, s)
		}
		cfg.InstallationID = n
	} else if p := getenv("GITHUB_EVENT_PATH"); p != "" {
		if ev, err := ReadEvent(p); err == nil {
			cfg.InstallationID = ev.Installation
		}
	}
	return cfg, true, nil
}

func (a *App) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// remember keeps a minted secret for the scrubber; the last few suffice,
// since older ones have expired.
func (a *App) remember(s string) {
	const keep = 8
	a.issued = append(a.issued, s)
	if len(a.issued) > keep {
		a.issued = append([]string(nil), a.issued[len(a.issued)-keep:]...)
	}
}

// Secrets returns the JWTs and installation tokens this App issued
// recently, for a caller that masks its own output.
func (a *App) Secrets() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.issued...)
}

// JWT returns a new JSON Web Token for the App: RS256, issued a minute ago
// (clock drift), expiring JWTLifetime later, issuer the App id.
func (a *App) JWT() (string, error) {
	now := a.now()
	header := map[string]string{"alg": "RS256", "typ": "JWT"}
	claims := map[string]any{"iat": now.Add(-JWTBackdate).Unix(), "exp": now.Add(JWTLifetime - JWTBackdate).Unix(), "iss": a.id}
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	signing := b64(h) + "." + b64(c)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, a.key, crypto.SHA256, sum[:])
	if err != nil {
		return "", fmt.Errorf("forge: sign the GitHub App JWT: %w", err)
	}
	jwt := signing + "." + b64(sig)
	a.mu.Lock()
	a.remember(jwt)
	a.mu.Unlock()
	return jwt, nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// Installation returns the installation id: the configured one, else the
// one GitHub gives for the repository (GET /repos/{owner}/{repo}/installation).
func (a *App) Installation(ctx context.Context) (int64, error) {
	a.mu.Lock()
	id := a.installation
	a.mu.Unlock()
	if id > 0 {
		return id, nil
	}
	var out struct {
		ID int64 `json:"id"`
	}
	path := "/repos/" + url.PathEscape(a.owner) + "/" + url.PathEscape(a.repo) + "/installation"
	if _, err := a.c.callJSON(ctx, a.api, http.MethodGet, path, nil, nil, &out, ghMessage); err != nil {
		return 0, fmt.Errorf("forge: find the GitHub App's installation on %s/%s: %w", a.owner, a.repo, err)
	}
	if out.ID <= 0 {
		return 0, fmt.Errorf("forge: %w: no installation id for %s/%s", ErrAPI, a.owner, a.repo)
	}
	a.mu.Lock()
	a.installation = out.ID
	a.mu.Unlock()
	return out.ID, nil
}

// maxTokenLen bounds an installation token from the API (the newer
// stateless tokens are longer than the classic 40 characters).
const maxTokenLen = 8 << 10

// Token returns an installation access token valid for at least
// TokenRefreshMargin, minting a new one when the last is about to expire.
// When the App knows its repository, the token is limited to it.
func (a *App) Token(ctx context.Context) (string, error) {
	a.mu.Lock()
	if a.token != "" && a.now().Before(a.expires.Add(-TokenRefreshMargin)) {
		t := a.token
		a.mu.Unlock()
		return t, nil
	}
	a.mu.Unlock()
	id, err := a.Installation(ctx)
	if err != nil {
		return "", err
	}
	var body any
	if a.repo != "" {
		body = map[string]any{"repositories": []string{a.repo}}
	}
	var out struct {
		Token     string `json:"token"`
		ExpiresAt string `json:"expires_at"`
	}
	path := "/app/installations/" + strconv.FormatInt(id, 10) + "/access_tokens"
	if _, err := a.c.callJSON(ctx, a.api, http.MethodPost, path, nil, body, &out, ghMessage); err != nil {
		return "", fmt.Errorf("forge: mint a GitHub App installation token: %w", err)
	}
	if out.Token == "" || len(out.Token) > maxTokenLen || strings.ContainsFunc(out.Token, func(r rune) bool { return r <= ' ' || r > '~' }) {
		return "", fmt.Errorf("forge: %w: the installation token GitHub returned is empty or malformed", ErrAPI)
	}
	exp, err := time.Parse(time.RFC3339, out.ExpiresAt)
	if err != nil {
		// GitHub's tokens last an hour; without a date, assume the least
		// that still lets a call through.
		exp = a.now().Add(TokenRefreshMargin + time.Minute)
	}
	a.mu.Lock()
	a.token, a.expires = out.Token, exp
	a.remember(out.Token)
	a.mu.Unlock()
	return out.Token, nil
}

// GitCredentials returns the user name and password that push over HTTPS
// as the installation: "x-access-token" and the installation token.
func (a *App) GitCredentials(ctx context.Context) (user, password string, err error) {
	tok, err := a.Token(ctx)
	if err != nil {
		return "", "", err
	}
	return "x-access-token", tok, nil
}

// GitBasicAuth returns the value of an HTTP Authorization header that
// authenticates git over HTTPS with a GitHub token ("basic " and
// base64 of "x-access-token:<token>"), for http.extraHeader.
func GitBasicAuth(token string) string {
	return "basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token))
}

// DefaultGitHubServer is the public GitHub's web and git root
// ($GITHUB_SERVER_URL on GitHub Actions).
const DefaultGitHubServer = "https://github.com"

// GitEnv returns the environment that makes git push (and fetch) over
// HTTPS as the installation, with no token in a URL, an argument or a
// file: git configuration (GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n,
// GIT_CONFIG_VALUE_n) setting http.<server>/.extraHeader to
// [GitBasicAuth] of a current installation token, after an empty value
// that clears any header set before for that server (actions/checkout
// persists one with the workflow's token, and two Authorization headers
// are refused). The header is scoped to server (empty means
// DefaultGitHubServer), so no other host ever receives it. Called before
// each git command, it hands out a token refreshed before it expires.
func (a *App) GitEnv(ctx context.Context, server string) ([]string, error) {
	tok, err := a.Token(ctx)
	if err != nil {
		return nil, err
	}
	key, err := extraHeaderKey(server)
	if err != nil {
		return nil, err
	}
	return []string{
		"GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0=" + key, "GIT_CONFIG_VALUE_0=",
		"GIT_CONFIG_KEY_1=" + key, "GIT_CONFIG_VALUE_1=AUTHORIZATION: " + GitBasicAuth(tok),
	}, nil
}

// PushEnv returns the git agent's environment hook that makes every
// git_push go as the App (GitEnv for server), and gives every other
// action nothing: one rule for salve heal --push and the queue worker.
func (a *App) PushEnv(server string) func(ctx context.Context, action string) ([]string, error) {
	return func(ctx context.Context, action string) ([]string, error) {
		if action != contract.ActionGitPush {
			return nil, nil
		}
		return a.GitEnv(ctx, server)
	}
}

// extraHeaderKey returns the http.<url>.extraHeader key of a GitHub
// server root: an https URL, with a trailing slash so that the header
// matches that host's paths only.
func extraHeaderKey(server string) (string, error) {
	if server == "" {
		server = DefaultGitHubServer
	}
	u, err := url.Parse(server)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" ||
		strings.ContainsFunc(server, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return "", fmt.Errorf("forge: GitHub server %q is not an https URL", server)
	}
	return "http." + strings.TrimRight(u.String(), "/") + "/.extraheader", nil
}

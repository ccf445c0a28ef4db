package forge_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
)

var (
	keyOnce sync.Once
	testKey *rsa.PrivateKey
)

// appKey returns an RSA key made once per test binary (2048 bits, as
// GitHub issues them).
func appKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	keyOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		testKey = k
	})
	return testKey
}

func pkcs1(k *rsa.PrivateKey) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
}

// clock is a settable time shared by the client and the server.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

const appID = "424242"

func appKit(t *testing.T, cfg forge.AppConfig) (*forgetest.Server, *forge.App, *forge.GitHub, *clock) {
	t.Helper()
	key := appKey(t)
	srv := forgetest.New("not-the-app-token")
	t.Cleanup(srv.Close)
	srv.AddApp(appID, &key.PublicKey, 77, "acme/app")
	clk := &clock{t: time.Now()}
	srv.Now = clk.Now
	if cfg.ID == "" {
		cfg.ID = appID
	}
	if cfg.PrivateKey == nil {
		cfg.PrivateKey = pkcs1(key)
	}
	cfg.API, cfg.Repo = srv.GitHubAPI(), "acme/app"
	app, err := forge.NewApp(cfg)
	if err != nil {
		t.Fatal(err)
	}
	app.Now = clk.Now
	g, err := forge.NewGitHub(forge.GitHubConfig{API: srv.GitHubAPI(), Repo: "acme/app", App: app})
	if err != nil {
		t.Fatal(err)
	}
	return srv, app, g, clk
}

// TestAppMintsAndRefreshes: the client looks the installation up with a
// JWT the server verifies (RS256, iss, a lifetime within ten minutes),
// mints one installation token limited to the repository, uses it for
// every API call, and mints the next only when the first is about to
// expire.
func TestAppMintsAndRefreshes(t *testing.T) {
	srv, app, g, clk := appKit(t, forge.AppConfig{})
	ctx := context.Background()
	if _, err := g.OpenOrUpdate(ctx, req()); err != nil {
		t.Fatal(err)
	}
	if err := g.Comment(ctx, 1, "hello"); err != nil {
		t.Fatal(err)
	}
	minted := srv.Minted()
	if len(minted) != 1 {
		t.Fatalf("%d tokens minted, want 1", len(minted))
	}
	m := minted[0]
	if m.Claims.Iss != appID || m.Installation != 77 || m.Claims.Exp-m.Claims.Iat > 600 || m.Claims.Iat > clk.Now().Unix()-59 ||
		len(m.Repositories) != 1 || m.Repositories[0] != "app" {
		t.Errorf("mint %+v", m)
	}
	if _, err := forgetest.VerifyJWT(m.JWT, &appKey(t).PublicKey, clk.Now()); err != nil {
		t.Errorf("the JWT does not verify: %v", err)
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	if _, err := forgetest.VerifyJWT(m.JWT, &other.PublicKey, clk.Now()); err == nil {
		t.Error("the JWT verifies against another key")
	}
	lookups := 0
	for _, c := range srv.Calls() {
		switch {
		case strings.HasSuffix(c.Path, "/installation"), strings.HasPrefix(c.Path, "/app/"):
			lookups += map[bool]int{true: 1}[strings.HasSuffix(c.Path, "/installation")]
			if c.Auth != "Bearer "+m.JWT && !strings.HasPrefix(c.Path, "/app/") {
				t.Errorf("%s %s without the JWT", c.Method, c.Path)
			}
		case c.Auth != "Bearer "+m.Token:
			t.Errorf("%s %s carried %q, not the installation token", c.Method, c.Path, c.Auth)
		}
	}
	if lookups != 1 {
		t.Errorf("%d installation look-ups, want 1", lookups)
	}
	user, pass, err := app.GitCredentials(ctx)
	if err != nil || user != "x-access-token" || pass != m.Token {
		t.Errorf("git credentials %q %v", user, err)
	}
	// 54 minutes on, the token still has more than the margin: kept.
	clk.Add(54 * time.Minute)
	if _, _, err := g.FindOpen(ctx, "x"); err != nil || len(srv.Minted()) != 1 {
		t.Fatalf("refreshed too early: %d mints, %v", len(srv.Minted()), err)
	}
	// Within the margin of its expiry: a new token, and the old one is
	// no longer sent.
	clk.Add(2 * time.Minute)
	if _, _, err := g.FindOpen(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	minted = srv.Minted()
	if len(minted) != 2 || minted[1].Token == m.Token {
		t.Fatalf("no refresh: %+v", minted)
	}
	calls := srv.Calls()
	if last := calls[len(calls)-1]; last.Auth != "Bearer "+minted[1].Token {
		t.Errorf("the last call carried %q", last.Auth)
	}
}

func TestAppInstallationGiven(t *testing.T) {
	srv, _, g, _ := appKit(t, forge.AppConfig{InstallationID: 77})
	if _, err := g.OpenOrUpdate(context.Background(), req()); err != nil {
		t.Fatal(err)
	}
	for _, c := range srv.Calls() {
		if strings.HasSuffix(c.Path, "/installation") {
			t.Errorf("looked the installation up although it was given: %s", c.Path)
		}
	}
}

// TestAppRefused: a key the App does not have, an unknown App and an
// installation of another App are refused as ErrAuth or ErrNotFound, and
// no JWT or token appears in the error.
func TestAppRefused(t *testing.T) {
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  forge.AppConfig
		want error
	}{
		{"wrong key", forge.AppConfig{PrivateKey: pkcs1(other)}, forge.ErrAuth},
		{"unknown app", forge.AppConfig{ID: "999"}, forge.ErrAuth},
		{"wrong installation", forge.AppConfig{InstallationID: 5}, forge.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, app, g, _ := appKit(t, tc.cfg)
			_, err := g.OpenOrUpdate(context.Background(), req())
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			for _, s := range app.Secrets() {
				if strings.Contains(err.Error(), s) {
					t.Errorf("a secret leaked into %v", err)
				}
			}
		})
	}
}

func TestNewAppRefuses(t *testing.T) {
	key := appKey(t)
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecDER, _ := x509.MarshalPKCS8PrivateKey(ec)
	for name, cfg := range map[string]forge.AppConfig{
		"no id":           {PrivateKey: pkcs1(key), InstallationID: 1},
		"bad id":          {ID: "12 34", PrivateKey: pkcs1(key), InstallationID: 1},
		"not PEM":         {ID: "1", PrivateKey: []byte("hello"), InstallationID: 1},
		"small key":       {ID: "1", PrivateKey: pkcs1(small), InstallationID: 1},
		"EC key":          {ID: "1", PrivateKey: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ecDER}), InstallationID: 1},
		"public key":      {ID: "1", PrivateKey: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte{1}}), InstallationID: 1},
		"no installation": {ID: "1", PrivateKey: pkcs1(key)},
		"bad repo":        {ID: "1", PrivateKey: pkcs1(key), Repo: "a/../b"},
		"bad API":         {ID: "1", PrivateKey: pkcs1(key), InstallationID: 1, API: "ftp://x"},
	} {
		if _, err := forge.NewApp(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		} else if strings.Contains(err.Error(), "PRIVATE KEY") && !strings.Contains(name, "public") {
			t.Errorf("%s: the error quotes the key: %v", name, err)
		}
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	for name, pemText := range map[string][]byte{
		"PKCS#8":           pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
		"escaped newlines": []byte(strings.ReplaceAll(string(pkcs1(key)), "\n", `\n`)),
	} {
		if _, err := forge.NewApp(forge.AppConfig{ID: "Iv23li.abc", PrivateKey: pemText, InstallationID: 1}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestAppConfigFromEnv(t *testing.T) {
	key := string(pkcs1(appKey(t)))
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "app.pem")
	if err := os.WriteFile(keyFile, []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}
	event := filepath.Join(dir, "event.json")
	if err := os.WriteFile(event, []byte(`{"action":"opened","installation":{"id":31337},"pull_request":{"number":7}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		env          map[string]string
		ok, fails    bool
		installation int64
	}{
		{"no app", map[string]string{"GITHUB_TOKEN": "x"}, false, false, 0},
		{"inline key", map[string]string{forge.EnvAppID: "12", forge.EnvAppPrivateKey: key, forge.EnvAppInstallationID: "9"}, true, false, 9},
		{"key file", map[string]string{forge.EnvAppID: "12", forge.EnvAppPrivateKeyFile: keyFile}, true, false, 0},
		{"installation from the event", map[string]string{forge.EnvAppID: "12", forge.EnvAppPrivateKey: key, "GITHUB_EVENT_PATH": event}, true, false, 31337},
		{"the variable wins over the event", map[string]string{forge.EnvAppID: "12", forge.EnvAppPrivateKey: key, forge.EnvAppInstallationID: "4", "GITHUB_EVENT_PATH": event}, true, false, 4},
		{"no key", map[string]string{forge.EnvAppID: "12"}, true, true, 0},
		{"missing key file", map[string]string{forge.EnvAppID: "12", forge.EnvAppPrivateKeyFile: filepath.Join(dir, "none")}, true, true, 0},
		{"key file is a folder", map[string]string{forge.EnvAppID: "12", forge.EnvAppPrivateKeyFile: dir}, true, true, 0},
		{"bad installation", map[string]string{forge.EnvAppID: "12", forge.EnvAppPrivateKey: key, forge.EnvAppInstallationID: "-3"}, true, true, 0},
	}
	for _, tt := range tests {
		cfg, ok, err := forge.AppConfigFromEnv(func(k string) string { return tt.env[k] })
		if ok != tt.ok || (err != nil) != tt.fails || cfg.InstallationID != tt.installation {
			t.Errorf("%s: ok %v err %v installation %d", tt.name, ok, err, cfg.InstallationID)
		}
		if err != nil && strings.Contains(err.Error(), "PRIVATE KEY") {
			t.Errorf("%s: the error quotes the key", tt.name)
		}
	}
}

func TestGitBasicAuth(t *testing.T) {
	if got := forge.GitBasicAuth("tok"); got != "basic eC1hY2Nlc3MtdG9rZW46dG9r" {
		t.Errorf("GitBasicAuth = %q", got)
	}
}

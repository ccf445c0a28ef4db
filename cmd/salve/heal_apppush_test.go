package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/testrepo"
)

// smartHTTP serves the bare repositories under root over git's smart
// HTTP protocol (git http-backend as a CGI program), on TLS, and records
// the Authorization header of every request; a request without one is
// answered 401, as GitHub does.
type smartHTTP struct {
	*httptest.Server
	mu    sync.Mutex
	auths []string
}

func newSmartHTTP(t *testing.T, root string) *smartHTTP {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skipf("git --exec-path: %v", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skipf("git-http-backend is not installed: %v", err)
	}
	s := &smartHTTP{}
	h := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + root}}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		s.mu.Lock()
		s.auths = append(s.auths, auth)
		s.mu.Unlock()
		if auth == "" {
			w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *smartHTTP) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auths...)
}

// TestHealPushesAsGitHubApp runs `salve heal --push --pr` with GitHub App
// credentials against a remote served over HTTPS by git http-backend: the
// push must carry the App's installation token as a basic Authorization
// header (user x-access-token), handed to git through the git agent's
// environment, while the remote's URL stays free of it; the pull request
// is opened with the same token, and neither the token nor its header
// appears in salve's output.
func TestHealPushesAsGitHubApp(t *testing.T) {
	needTools(t, "go", "git")
	salve, gitAgent := mcpBinaries(t)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	const appID, installation = "314159", 2718
	api := forgetest.New("ghs_workflowToken")
	defer api.Close()
	api.AddApp(appID, &key.PublicKey, installation, "acme/app")

	root := t.TempDir()
	bare := filepath.Join(root, "app.git")
	repo := testrepo.Example(t, "go-broken")
	git(t, repo, "init", "-q", "--bare", bare)
	git(t, bare, "config", "http.receivepack", "true")
	remote := newSmartHTTP(t, root)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: remote.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "remote", "add", "origin", remote.URL+"/app.git")
	git(t, repo, "config", "http.sslCAInfo", caFile)

	env := append(mcpEnv(t, gitAgent),
		"GITHUB_API_URL="+api.GitHubAPI(), "GITHUB_SERVER_URL="+remote.URL, "GITHUB_REPOSITORY=acme/app",
		"GITHUB_REF_NAME=main", "GITHUB_REF_TYPE=branch",
		"SALVE_GITHUB_APP_ID="+appID, "SALVE_GITHUB_APP_PRIVATE_KEY="+keyPEM)
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Env: env, Timeout: 5 * time.Minute, Args: []string{
		"heal", "--workspace", repo, "--isolation", "none", "--no-store", "--cmd", "sh check.sh", "--push", "--pr"}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exit %d (%v):\n%s\n%s\nthe remote saw %q", res.ExitCode, err, res.Stdout, res.Stderr, remote.seen())
	}
	minted := api.Minted()
	if len(minted) != 1 {
		t.Fatalf("%d installation tokens minted, want 1 (one per run)", len(minted))
	}
	tok := minted[0].Token
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+tok))
	seen := remote.seen()
	if len(seen) == 0 {
		t.Fatal("the remote received nothing")
	}
	for _, a := range seen {
		if !strings.EqualFold(a, want) {
			t.Errorf("the remote received Authorization %q, want the installation token's", a)
		}
	}
	if heads := git(t, bare, "for-each-ref", "--format=%(refname)", "refs/heads/"); !strings.Contains(heads, "refs/heads/salve/heal-pr/main") {
		t.Errorf("the heal branch was not pushed: %q", heads)
	}
	if u := git(t, repo, "remote", "get-url", "origin"); strings.Contains(u, tok) || strings.Contains(u, "@") {
		t.Errorf("the remote's URL holds a credential: %s", u)
	}
	if prs := api.PRs("github", "acme/app"); len(prs) != 1 || prs[0].Head != "salve/heal-pr/main" {
		t.Errorf("pull requests %+v", prs)
	}
	out := string(res.Stdout) + string(res.Stderr)
	for name, secret := range map[string]string{"installation token": tok, "its header": strings.TrimPrefix(want, "Basic ")} {
		if strings.Contains(out, secret) {
			t.Errorf("the %s appears in salve's output", name)
		}
	}
}

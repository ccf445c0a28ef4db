package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/testrepo"
)

// addedPatch is GitHub's patch of a file a pull request added: every
// line of it is in the pull request's diff.
func addedPatch(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	return "@@ -0,0 +1," + strconv.Itoa(len(lines)) + " @@\n+" + strings.Join(lines, "\n+")
}

// TestHealAsGitHubApp runs `salve heal --push --pr --check-run
// --suggest-review` in a GitHub organisation that gives salve a GitHub App
// (SALVE_GITHUB_APP_ID and the PEM in SALVE_GITHUB_APP_PRIVATE_KEY),
// against the local GitHub API server. salve must look the installation
// up and mint an installation token with a JWT that verifies against the
// App's public key (RS256, iss the App id, a lifetime of at most ten
// minutes); open the pull request with that token rather than the
// workflow's GITHUB_TOKEN (whose pull requests start no workflow); post a
// completed check run with annotations on the failing commit; post the
// verified fix as suggestions on the pull request the build belongs to;
// and print no token, JWT or key.
func TestHealAsGitHubApp(t *testing.T) {
	needTools(t, "go", "git")
	salve, gitAgent := mcpBinaries(t)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	const appID, installation, workflowToken = "271828", 31415, "ghs_workflowTokenWhosePullRequestsRunNoCI"
	srv := forgetest.New(workflowToken)
	defer srv.Close()
	srv.AddApp(appID, &key.PublicKey, installation, "acme/app")

	repo := testrepo.Example(t, "go-broken")
	remote := filepath.Join(t.TempDir(), "remote.git")
	git(t, repo, "init", "-q", "--bare", remote)
	git(t, repo, "remote", "add", "origin", remote)
	git(t, repo, "config", "protocol.file.allow", "always")
	failing := git(t, repo, "rev-parse", "HEAD")
	// The failing build belongs to pull request #1, which added the files.
	source := srv.AddPR("github", "acme/app", forgetest.PR{Head: "feature", Base: "main", Title: "greet", Files: []forgetest.File{
		{Filename: "main.go", Patch: addedPatch(t, filepath.Join(repo, "main.go"))},
		{Filename: "sum.go", Patch: addedPatch(t, filepath.Join(repo, "sum.go"))},
	}})

	env := append(mcpEnv(t, gitAgent),
		"GITHUB_API_URL="+srv.GitHubAPI(), "GITHUB_REPOSITORY=acme/app", "GITHUB_REF_NAME=main", "GITHUB_REF_TYPE=branch",
		"GITHUB_TOKEN="+workflowToken, "SALVE_GITHUB_APP_ID="+appID, "SALVE_GITHUB_APP_PRIVATE_KEY="+keyPEM)
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Env: env, Timeout: 5 * time.Minute, Args: []string{
		"heal", "--workspace", repo, "--isolation", "none", "--no-store", "--cmd", "sh check.sh",
		"--push", "--pr", "--check-run", "--suggest-review", "--pr-number", strconv.Itoa(source)}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exit %d (%v):\n%s\n%s", res.ExitCode, err, res.Stdout, res.Stderr)
	}

	t.Logf("salve's stderr:\n%s", res.Stderr)

	// The installation token, minted with a JWT that verifies.
	minted := srv.Minted()
	if len(minted) != 1 {
		t.Fatalf("%d installation tokens minted, want 1 (one per run)", len(minted))
	}
	m := minted[0]
	claims, err := forgetest.VerifyJWT(m.JWT, &key.PublicKey, time.Now())
	if err != nil {
		t.Fatalf("the JWT does not verify against the App's public key: %v", err)
	}
	if claims.Iss != appID || claims.Exp-claims.Iat > 600 || m.Installation != installation ||
		len(m.Repositories) != 1 || m.Repositories[0] != "app" {
		t.Errorf("claims %+v, mint %+v", claims, m)
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	if _, err := forgetest.VerifyJWT(m.JWT, &other.PublicKey, time.Now()); err == nil {
		t.Error("the JWT verifies against another key too")
	}

	// Every API call after the mint carried the installation token, never
	// the workflow's.
	opened := false
	for _, c := range srv.Calls() {
		switch {
		case strings.HasPrefix(c.Path, "/app/") || strings.HasSuffix(c.Path, "/installation"):
			// Each App call signs its own JWT (a second may pass between
			// them), so each must verify as the App's, not equal the mint's.
			jwt, ok := strings.CutPrefix(c.Auth, "Bearer ")
			if cl, err := forgetest.VerifyJWT(jwt, &key.PublicKey, time.Now()); !ok || err != nil || cl.Iss != appID {
				t.Errorf("%s %s without the App's JWT (%v)", c.Method, c.Path, err)
			}
		case c.Auth != "Bearer "+m.Token:
			t.Errorf("%s %s carried %q, not the installation token", c.Method, c.Path, c.Auth)
		}
		opened = opened || (c.Method == "POST" && c.Path == "/repos/acme/app/pulls")
	}
	prs := srv.PRs("github", "acme/app")
	if !opened || len(prs) != 2 || prs[1].Head != "salve/heal-pr/main" || prs[1].Base != "main" || !strings.Contains(prs[1].Body, "→ Fix:") {
		t.Fatalf("pull requests %+v", prs)
	}

	// The check run on the failing commit.
	runs := srv.CheckRuns("acme/app")
	if len(runs) != 1 {
		t.Fatalf("%d check runs, want 1", len(runs))
	}
	cr := runs[0]
	if cr.HeadSHA != failing || cr.Status != "completed" || cr.Conclusion != "success" || len(cr.Annotations) == 0 ||
		!strings.Contains(cr.Summary, "→ Fix:") || !strings.Contains(cr.Summary, "#2") {
		t.Errorf("check run %+v", cr)
	}

	// The suggestions on the pull request the build belongs to.
	reviews := srv.Reviews("acme/app")
	if len(reviews) != 1 || reviews[0].Number != source || reviews[0].Event != "COMMENT" || len(reviews[0].Comments) == 0 {
		t.Fatalf("reviews %+v", reviews)
	}
	for _, c := range reviews[0].Comments {
		if !strings.Contains(c.Body, "```suggestion\n") || c.Side != "RIGHT" {
			t.Errorf("comment %+v", c)
		}
	}

	// Nothing secret in the output.
	out := string(res.Stdout) + string(res.Stderr)
	keyBody := strings.Split(keyPEM, "\n")[3]
	for name, secret := range map[string]string{"installation token": m.Token, "JWT": m.JWT, "JWT signature": m.JWT[strings.LastIndex(m.JWT, ".")+1:],
		"workflow token": workflowToken, "private key": "PRIVATE KEY", "key material": keyBody} {
		if strings.Contains(out, secret) {
			t.Errorf("the %s appears in salve's output", name)
		}
	}
	if !strings.Contains(string(res.Stderr), "acting as GitHub App "+appID) {
		t.Errorf("stderr does not say salve acts as the App:\n%s", res.Stderr)
	}
}

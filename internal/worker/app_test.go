package worker

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
	"github.com/salve-dev/salve/internal/service"
)

// TestRequestAsAppInstallation: a worker with a GitHub App's key opens a
// job's pull request as an installation: its own configured installation
// first, else the job's (a webhook's installation.id), else the one
// GitHub gives for the repository.
func TestRequestAsAppInstallation(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	for _, tc := range []struct {
		name            string
		configured, job int64
		want            int64
		lookup          bool
	}{
		{"the job's installation", 0, 77, 77, false},
		{"the worker's own installation wins", 88, 77, 88, false},
		{"looked up from the repository", 0, 0, 77, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := forgetest.New("not-the-app-token")
			defer srv.Close()
			srv.AddApp("4242", &key.PublicKey, tc.want, "acme/api")
			repo := forgeRepo(t)
			q := newQueue(t, ackWait, 3)
			fs := &Forges{GitHubAPI: srv.GitHubAPI(), App: &forge.Apps{Config: forge.AppConfig{ID: "4242", PrivateKey: keyPEM, InstallationID: tc.configured}}}
			runWorker(t, &Worker{Queue: q, Name: "w", Heal: pushes, Forges: fs})
			j, err := q.Submit(context.Background(), service.Request{Repo: repo, PR: true, Source: "github", Installation: tc.job})
			if err != nil {
				t.Fatal(err)
			}
			got := waitFinal(t, q, j.ID)
			if got.Status != service.StatusGreen || got.PullRequest == "" {
				t.Fatalf("job %s %q request %q warnings %v", got.Status, got.Error, got.PullRequest, got.Warnings)
			}
			minted := srv.Minted()
			if len(minted) != 1 || minted[0].Installation != tc.want {
				t.Fatalf("minted %+v, want one token of installation %d", minted, tc.want)
			}
			looked := false
			for _, c := range srv.Calls() {
				looked = looked || strings.HasSuffix(c.Path, "/installation")
				if c.Path == "/repos/acme/api/pulls" && c.Auth != "Bearer "+minted[0].Token {
					t.Errorf("%s %s carried %q, not the installation token", c.Method, c.Path, c.Auth)
				}
			}
			if looked != tc.lookup {
				t.Errorf("installation looked up: %v, want %v", looked, tc.lookup)
			}
		})
	}
}

// TestPushEnv: a worker's App pushes a GitHub https repository as the
// job's installation, with the header scoped to the repository's host
// and for git_push only; without an App, or for a repository reached
// otherwise, the worker's own credentials push.
func TestPushEnv(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	srv := forgetest.New("x")
	defer srv.Close()
	srv.AddApp("4242", &key.PublicKey, 77, "acme/api")
	fs := &Forges{GitHubAPI: srv.GitHubAPI(), App: &forge.Apps{Config: forge.AppConfig{ID: "4242", PrivateKey: keyPEM}}}
	for _, tc := range []struct {
		f      *Forges
		repo   string
		source string
		want   bool
	}{
		{nil, "https://github.com/acme/api.git", "github", false},
		{&Forges{GitHubToken: "t"}, "https://github.com/acme/api.git", "github", false},
		{fs, "git@github.com:acme/api.git", "github", false},
		{fs, "/srv/git/acme/api.git", "github", false},
		{fs, "https://github.com/acme/api.git", "github", true},
	} {
		env, err := tc.f.PushEnv(tc.repo, tc.source, 77)
		if err != nil || (env != nil) != tc.want {
			t.Fatalf("PushEnv(%q) = %v, %v; want a push environment: %v", tc.repo, env != nil, err, tc.want)
		}
		if env == nil {
			continue
		}
		if other, _ := env(context.Background(), "git_status"); other != nil {
			t.Errorf("git_status got %q", other)
		}
		push, err := env(context.Background(), "git_push")
		if err != nil || !strings.Contains(strings.Join(push, "\n"), "GIT_CONFIG_KEY_1=http.https://github.com/.extraheader") {
			t.Errorf("git_push got %q, %v", push, err)
		}
		if m := srv.Minted(); len(m) != 1 || m[0].Installation != 77 {
			t.Errorf("minted %+v", m)
		}
	}
}

package service

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestRepoCredentialsRefused submits repositories carrying a token, over
// the jobs API and in webhook payloads, over real HTTP: each is answered
// 400 with a message that names the fix and never the token, and no job
// records it. Remote helpers and plain http, which no worker would
// clone, are refused the same way.
//
// On main before the fix, only a URL with a password was refused: a token
// as the user name ("https://ghp_…@host/x.git"), in an scp-like remote or
// in the query string was queued, stored in the job record and served
// back by GET /api/v1/heals.
func TestRepoCredentialsRefused(t *testing.T) {
	const tok = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	const gl = "glpat-abcdefghij0123456789"
	_, hs := newTestServer(t, map[string]string{EnvGitHubSecret: testSecret, EnvGitLabToken: "gl-token"})
	noSecret := func(t *testing.T, out map[string]any) {
		t.Helper()
		b, _ := json.Marshal(out)
		for _, s := range []string{tok, gl, "s3cr3t"} {
			if strings.Contains(string(b), s) {
				t.Fatalf("the response echoes the secret: %s", b)
			}
		}
	}
	for _, tc := range []struct{ repo, want string }{
		{"https://" + tok + "@github.com/acme/api.git", "environment"},
		{"https://" + gl + "@gitlab.com/acme/api.git", "environment"},
		{"https://oauth2:s3cr3t@gitlab.com/acme/api.git", "environment"},
		{"https://gitlab.com/acme/api.git?private_token=" + gl, "environment"},
		{tok + "@github.com:acme/api.git", "environment"},
		{"testgit::/srv/x", "refused git transport"},
		{"http://git.example.com/acme/api.git", "refused git transport"},
	} {
		t.Run("api "+tc.repo[:12], func(t *testing.T) {
			code, out := do(t, "POST", hs.URL+"/api/v1/heals", fmt.Sprintf(`{"repo": %q, "ref": "main"}`, tc.repo), nil)
			if code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out["error"]), tc.want) {
				t.Fatalf("got %d %v, want 400 with %q", code, out, tc.want)
			}
			noSecret(t, out)
		})
	}
	ghBody := strings.Replace(failedRun, "https://git.example.com/", "https://"+tok+"@git.example.com/", 1)
	code, out := do(t, "POST", hs.URL+"/webhooks/github", ghBody, map[string]string{
		"X-GitHub-Event": "workflow_run", "X-GitHub-Delivery": "c-1", "X-Hub-Signature-256": sign(testSecret, ghBody)})
	if code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out["error"]), "environment") {
		t.Fatalf("github webhook: got %d %v, want 400", code, out)
	}
	noSecret(t, out)
	glBody := strings.Replace(failedPipeline, "https://gitlab.example.com/", "https://oauth2:s3cr3t@gitlab.example.com/", 1)
	code, out = do(t, "POST", hs.URL+"/webhooks/gitlab", glBody, map[string]string{
		"X-Gitlab-Token": "gl-token", "X-Gitlab-Event": "Pipeline Hook", "X-Gitlab-Event-UUID": "c-2"})
	if code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out["error"]), "environment") {
		t.Fatalf("gitlab webhook: got %d %v, want 400", code, out)
	}
	noSecret(t, out)
	_, out = do(t, "GET", hs.URL+"/api/v1/heals", "", nil)
	if out["total"] != float64(0) {
		t.Fatalf("a refused repository was queued: %v", out)
	}
	noSecret(t, out)
}

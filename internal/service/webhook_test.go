package service

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"
)

const testSecret = "hook-secret"

func sign(secret, body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

const (
	failedRun = `{"action":"completed","workflow_run":{"status":"completed","conclusion":"failure","head_branch":"main",
		"head_repository":{"full_name":"acme/api"}},
		"repository":{"clone_url":"https://git.example.com/acme/api.git"}}`
	failedSuite = `{"action":"completed","check_suite":{"status":"completed","conclusion":"failure","head_branch":"fix-1",
		"pull_requests":[{"number":2,"head":{"repo":{"id":7}},"base":{"repo":{"id":7}}}]},
		"repository":{"id":7,"clone_url":"https://git.example.com/acme/web.git"}}`
	greenRun = `{"action":"completed","workflow_run":{"status":"completed","conclusion":"success","head_branch":"main"},
		"repository":{"clone_url":"https://git.example.com/acme/api.git"}}`
	requestedRun = `{"action":"requested","workflow_run":{"status":"queued","conclusion":null,"head_branch":"main"},
		"repository":{"clone_url":"https://git.example.com/acme/api.git"}}`
	failedPipeline = `{"object_kind":"pipeline","object_attributes":{"status":"failed","ref":"main","tag":false},
		"project":{"git_http_url":"https://gitlab.example.com/acme/svc.git"}}`
	greenPipeline = `{"object_kind":"pipeline","object_attributes":{"status":"success","ref":"main"},
		"project":{"git_http_url":"https://gitlab.example.com/acme/svc.git"}}`
)

func TestGitHubWebhook(t *testing.T) {
	_, hs := newTestServer(t, map[string]string{EnvGitHubSecret: testSecret})
	url := hs.URL + "/webhooks/github"
	hdr := func(event, delivery, sig string) map[string]string {
		return map[string]string{"X-GitHub-Event": event, "X-GitHub-Delivery": delivery, "X-Hub-Signature-256": sig, "Content-Type": "application/json"}
	}
	jobs := func() int {
		_, out := do(t, "GET", hs.URL+"/api/v1/heals", "", nil)
		return int(out["total"].(float64))
	}
	for _, tc := range []struct {
		name    string
		body    string
		hdr     map[string]string
		code    int
		created bool
	}{
		{"signed workflow_run failure", failedRun, hdr("workflow_run", "d-1", sign(testSecret, failedRun)), http.StatusAccepted, true},
		{"replayed delivery", failedRun, hdr("workflow_run", "d-1", sign(testSecret, failedRun)), http.StatusOK, false},
		{"signed check_suite failure", failedSuite, hdr("check_suite", "d-2", sign(testSecret, failedSuite)), http.StatusAccepted, true},
		{"bad signature", failedRun, hdr("workflow_run", "d-3", sign("other", failedRun)), http.StatusUnauthorized, false},
		{"no signature", failedRun, hdr("workflow_run", "d-4", ""), http.StatusUnauthorized, false},
		{"signature of another body", failedRun, hdr("workflow_run", "d-5", sign(testSecret, greenRun)), http.StatusUnauthorized, false},
		{"unknown event", failedRun, hdr("push", "d-6", sign(testSecret, failedRun)), http.StatusOK, false},
		{"success event", greenRun, hdr("workflow_run", "d-7", sign(testSecret, greenRun)), http.StatusOK, false},
		{"not completed", requestedRun, hdr("workflow_run", "d-8", sign(testSecret, requestedRun)), http.StatusOK, false},
		{"malformed", "{", hdr("workflow_run", "d-9", sign(testSecret, "{")), http.StatusBadRequest, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := jobs()
			code, out := do(t, "POST", url, tc.body, tc.hdr)
			if code != tc.code {
				t.Fatalf("got %d %v, want %d", code, out, tc.code)
			}
			if got := jobs() - before; got != map[bool]int{true: 1, false: 0}[tc.created] {
				t.Fatalf("%d job(s) created, want created=%v", got, tc.created)
			}
		})
	}
	_, out := do(t, "GET", hs.URL+"/api/v1/heals?ref=fix-1", "", nil)
	j := out["jobs"].([]any)[0].(map[string]any)["request"].(map[string]any)
	if j["repo"] != "https://git.example.com/acme/web.git" || j["source"] != "github" {
		t.Fatalf("check_suite job: %v", j)
	}
}

func TestGitHubWebhookOffWithoutSecret(t *testing.T) {
	_, hs := newTestServer(t, nil)
	code, _ := do(t, "POST", hs.URL+"/webhooks/github", failedRun, map[string]string{"X-GitHub-Event": "workflow_run", "X-Hub-Signature-256": sign("", failedRun)})
	if code != http.StatusServiceUnavailable {
		t.Fatalf("got %d", code)
	}
}

func TestGitLabWebhook(t *testing.T) {
	_, hs := newTestServer(t, map[string]string{EnvGitLabToken: "gl-token"})
	url := hs.URL + "/webhooks/gitlab"
	for _, tc := range []struct {
		name, body, token, event, uuid string
		code                           int
	}{
		{"failed pipeline", failedPipeline, "gl-token", "Pipeline Hook", "u-1", http.StatusAccepted},
		{"replayed", failedPipeline, "gl-token", "Pipeline Hook", "u-1", http.StatusOK},
		{"bad token", failedPipeline, "nope", "Pipeline Hook", "u-2", http.StatusUnauthorized},
		{"success", greenPipeline, "gl-token", "Pipeline Hook", "u-3", http.StatusOK},
		{"other hook", failedPipeline, "gl-token", "Push Hook", "u-4", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := do(t, "POST", url, tc.body, map[string]string{"X-Gitlab-Token": tc.token, "X-Gitlab-Event": tc.event, "X-Gitlab-Event-UUID": tc.uuid})
			if code != tc.code {
				t.Fatalf("got %d %v, want %d", code, out, tc.code)
			}
		})
	}
	_, out := do(t, "GET", hs.URL+"/api/v1/heals", "", nil)
	if out["total"] != float64(1) {
		t.Fatalf("want exactly one job, got %v", out)
	}
}

func FuzzParseGitHub(f *testing.F) {
	for _, s := range []string{failedRun, failedSuite, greenRun, requestedRun, "{", "null"} {
		f.Add("workflow_run", []byte(s))
		f.Add("check_suite", []byte(s))
	}
	f.Fuzz(func(t *testing.T, event string, body []byte) {
		r, err := ParseGitHub(event, body)
		if r != nil && err != nil {
			t.Fatal("both a request and an error")
		}
		if r != nil && (r.Repo == "" || r.Ref == "") {
			t.Fatalf("request without repo or ref: %+v", r)
		}
	})
}

func FuzzParseGitLab(f *testing.F) {
	for _, s := range []string{failedPipeline, greenPipeline, "{", "[]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseGitLab(body)
		if r != nil && (err != nil || r.Repo == "" || r.Ref == "") {
			t.Fatalf("bad result %+v %v", r, err)
		}
	})
}

func FuzzValidate(f *testing.F) {
	for _, s := range []string{"/srv/a.git", "https://x/y.git", "-x", "ext::sh", "https://u:p@h/r"} {
		f.Add(s, "main")
	}
	f.Fuzz(func(t *testing.T, repo, ref string) {
		r := Request{Repo: repo, Ref: ref}
		if r.Validate() == nil && (r.Repo == "" || r.Repo[0] == '-') {
			t.Fatalf("accepted %q", repo)
		}
	})
}

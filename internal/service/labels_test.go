package service

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
)

// testAppKey returns a new App key and its PEM text.
func testAppKey(t *testing.T) (*rsa.PrivateKey, []byte) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return key, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
}

// TestWebhookSkipLabel sends signed failures that belong to pull and
// merge requests, against a local server speaking GitHub's and GitLab's
// REST shapes: a request labelled salve:skip queues nothing (GitHub read
// as a GitHub App whose installation is the payload's installation.id;
// GitLab with a token); an unlabelled one, and one whose labels cannot be
// read, queue a job.
func TestWebhookSkipLabel(t *testing.T) {
	s, hs := hygieneServer(t, Policy{}, "")
	fs := forgetest.New("gl-token-123")
	t.Cleanup(fs.Close)
	key, keyPEM := testAppKey(t)
	fs.AddApp("4242", &key.PublicKey, 77, "acme/api")
	skipped := fs.AddPR("github", "acme/api", forgetest.PR{Head: "feature", Base: "main", Title: "t", Labels: []string{"bug", "salve:skip"}})
	plain := fs.AddPR("github", "acme/api", forgetest.PR{Head: "other", Base: "main", Title: "t", Labels: []string{"bug"}})
	fs.AddRepo("gitlab", "acme/svc")
	mr := fs.AddPR("gitlab", "acme/svc", forgetest.PR{Head: "feature", Base: "main", Title: "t", Labels: []string{"Salve:Skip"}})
	s.Labels = &ForgeLabels{GitHubAPI: fs.GitHubAPI(), GitLabAPI: fs.GitLabAPI(), GitLabToken: "gl-token-123",
		App: &forge.Apps{Config: forge.AppConfig{ID: "4242", PrivateKey: keyPEM}}}

	ghRun := func(id, pr int) string {
		b := runEvent("acme/api", "acme/api", "feature", shaA, "feat", id, 1, fmt.Sprintf(`,"pull_requests":[{"number":%d}]`, pr))
		return strings.Replace(b, `{"action":"completed",`, `{"action":"completed","installation":{"id":77},`, 1)
	}
	glPipeline := func(id, iid int) string {
		return fmt.Sprintf(`{"object_kind":"pipeline","object_attributes":{"id":%d,"status":"failed","ref":"refs/merge-requests/%d/head","sha":%q},
			"project":{"id":5,"git_http_url":"https://gitlab.example.com/acme/svc.git","path_with_namespace":"acme/svc"},
			"merge_request":{"iid":%d,"source_branch":"feature","source_project_id":5,"target_project_id":5}}`, id, iid, shaB, iid)
	}
	glHeaders := func(id, _ string) map[string]string {
		return map[string]string{"X-Gitlab-Event": "Pipeline Hook", "X-Gitlab-Token": "gl-token", "X-Gitlab-Event-UUID": id, "Content-Type": "application/json"}
	}
	for _, tc := range []struct {
		name, hook, body string
		hdr              func(id, body string) map[string]string
		code             int
	}{
		{"GitHub pull request labelled salve:skip", "github", ghRun(301, skipped), ghHeaders, 200},
		{"GitHub pull request without the label", "github", ghRun(302, plain), ghHeaders, 202},
		{"GitHub labels that cannot be read", "github", ghRun(303, 99), ghHeaders, 202},
		{"GitLab merge request labelled salve:skip", "gitlab", glPipeline(401, mr), glHeaders, 200},
		{"GitLab labels that cannot be read", "gitlab", glPipeline(402, 98), glHeaders, 202},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := countJobs(t, hs.URL, nil)
			code, out := do(t, "POST", hs.URL+"/webhooks/"+tc.hook, tc.body, tc.hdr("l-"+tc.name, tc.body))
			if code != tc.code {
				t.Fatalf("got %d %v, want %d", code, out, tc.code)
			}
			if code == 200 && (out["status"] != "ignored" || !strings.Contains(fmt.Sprint(out["reason"]), forge.SkipLabel)) {
				t.Fatalf("answer %v, want ignored for the %s label", out, forge.SkipLabel)
			}
			if got, want := countJobs(t, hs.URL, nil)-before, map[bool]int{true: 1}[code == 202]; got != want {
				t.Fatalf("%d job(s) queued, want %d", got, want)
			}
		})
	}
	for _, m := range fs.Minted() {
		if m.Installation != 77 || m.Claims.Iss != "4242" {
			t.Errorf("token minted for installation %d by %q, want the payload's 77 by the App", m.Installation, m.Claims.Iss)
		}
	}
	if len(fs.Minted()) != 1 {
		t.Errorf("%d installation tokens minted, want one, reused for every event", len(fs.Minted()))
	}
	for _, c := range fs.Calls() {
		if strings.HasSuffix(c.Path, "/installation") {
			t.Errorf("looked the installation up (%s) although the payload named it", c.Path)
		}
	}
	if m := scrape(t, hs.URL, ""); !strings.Contains(m, `reason="skip_label"`) {
		t.Errorf("metrics lack the skip_label reason")
	}
}

// TestInstallationTravelsInJob: a GitHub webhook's installation.id is
// recorded on its job for the worker; a client of the jobs API cannot
// name one.
func TestInstallationTravelsInJob(t *testing.T) {
	_, hs := hygieneServer(t, Policy{}, "")
	body := strings.Replace(runEvent("acme/api", "acme/api", "main", shaA, "feat", 501, 1, ""),
		`{"action":"completed",`, `{"action":"completed","installation":{"id":9001},`, 1)
	code, out := do(t, "POST", hs.URL+"/webhooks/github", body, ghHeaders("i-1", body))
	if code != 202 {
		t.Fatalf("got %d %v", code, out)
	}
	_, j := do(t, "GET", hs.URL+"/api/v1/heals/"+out["id"].(string), "", nil)
	if req := j["request"].(map[string]any); req["installation"] != float64(9001) {
		t.Fatalf("job request %v, want installation 9001", req)
	}
	code, out = do(t, "POST", hs.URL+"/api/v1/heals", `{"repo":"https://github.com/acme/api.git","installation":9001}`,
		map[string]string{"Content-Type": "application/json"})
	if code != 400 || !strings.Contains(fmt.Sprint(out["error"]), "installation") {
		t.Fatalf("API with an installation: %d %v, want 400", code, out)
	}
}

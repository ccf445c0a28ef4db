package service

import (
	"net/http"
	"testing"
)

// TestWebhookReplayUnderNewDelivery sends the same signed GitHub event,
// and the same GitLab pipeline hook, again under a new delivery id and
// under none, over real HTTP: neither queues a second job. A different
// event still does.
//
// On main before the fix, replay detection read only the delivery id,
// which the signature does not cover: each new id queued a new job.
func TestWebhookReplayUnderNewDelivery(t *testing.T) {
	_, hs := newTestServer(t, map[string]string{EnvGitHubSecret: testSecret, EnvGitLabToken: "gl-token"})
	jobs := func() int {
		_, out := do(t, "GET", hs.URL+"/api/v1/heals", "", nil)
		return int(out["total"].(float64))
	}
	github := func(event, id, body string) map[string]string {
		h := map[string]string{"X-GitHub-Event": event, "X-Hub-Signature-256": sign(testSecret, body), "Content-Type": "application/json"}
		if id != "" {
			h["X-GitHub-Delivery"] = id
		}
		return h
	}
	gitlab := func(id string) map[string]string {
		h := map[string]string{"X-Gitlab-Token": "gl-token", "X-Gitlab-Event": "Pipeline Hook"}
		if id != "" {
			h["X-Gitlab-Event-UUID"] = id
		}
		return h
	}
	for _, tc := range []struct {
		name, path, body string
		hdr              map[string]string
		code             int
		created          bool
	}{
		{"github first delivery", "/webhooks/github", failedRun, github("workflow_run", "d-1", failedRun), http.StatusAccepted, true},
		{"github same id", "/webhooks/github", failedRun, github("workflow_run", "d-1", failedRun), http.StatusOK, false},
		{"github new id", "/webhooks/github", failedRun, github("workflow_run", "d-2", failedRun), http.StatusOK, false},
		{"github no id", "/webhooks/github", failedRun, github("workflow_run", "", failedRun), http.StatusOK, false},
		{"github new id again", "/webhooks/github", failedRun, github("workflow_run", "d-3", failedRun), http.StatusOK, false},
		// The ids a replay brought were not kept: a new event under one of
		// them is queued.
		{"github another event", "/webhooks/github", failedSuite, github("check_suite", "d-2", failedSuite), http.StatusAccepted, true},
		{"gitlab first delivery", "/webhooks/gitlab", failedPipeline, gitlab("u-1"), http.StatusAccepted, true},
		{"gitlab new id", "/webhooks/gitlab", failedPipeline, gitlab("u-2"), http.StatusOK, false},
		{"gitlab no id", "/webhooks/gitlab", failedPipeline, gitlab(""), http.StatusOK, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := jobs()
			code, out := do(t, "POST", hs.URL+tc.path, tc.body, tc.hdr)
			if code != tc.code {
				t.Fatalf("got %d %v, want %d", code, out, tc.code)
			}
			if !tc.created && out["status"] != "duplicate" {
				t.Errorf("response %v, want status duplicate", out)
			}
			if got := jobs() - before; got != map[bool]int{true: 1, false: 0}[tc.created] {
				t.Fatalf("%d job(s) created, want created=%v", got, tc.created)
			}
		})
	}
}

package service

import (
	"fmt"
	"strings"
	"testing"
)

// suiteEvent is a signed-shape check_suite failure; prs is the
// pull_requests array's JSON.
func suiteEvent(id, repoID int, branch, sha, prs string) string {
	return fmt.Sprintf(`{"action":"completed","check_suite":{"id":%d,"status":"completed","conclusion":"failure",
		"head_branch":%q,"head_sha":%q,"pull_requests":%s},
		"repository":{"id":%d,"full_name":"acme/api","clone_url":"https://github.com/acme/api.git"}}`, id, branch, sha, prs, repoID)
}

// prOf is one entry of check_suite.pull_requests whose head and base
// repositories have the ids given.
func prOf(n, head, base int) string {
	return fmt.Sprintf(`{"number":%d,"head":{"ref":"patch","sha":%q,"repo":{"id":%d}},"base":{"ref":"main","repo":{"id":%d}}}`, n, shaA, head, base)
}

// TestWebhookForkRuleFailsClosed sends webhook deliveries over real HTTP
// whose head repository the payload does not show to be the base
// repository: each is ignored as a fork, with forks off and with forks on
// (then no clone URL of the head is known), and none is queued on the
// base repository. Deliveries that do show it are queued.
func TestWebhookForkRuleFailsClosed(t *testing.T) {
	runID := 0
	next := func() int { runID++; return runID }
	noHead := func(head string) string {
		return fmt.Sprintf(`{"action":"completed","workflow_run":{"id":%d,"status":"completed","conclusion":"failure",
			"head_branch":"patch","head_sha":%q%s},
			"repository":{"id":1,"full_name":"acme/api","clone_url":"https://github.com/acme/api.git"}}`, next(), shaA, head)
	}
	glMR := func(project, source, target int) string {
		return fmt.Sprintf(`{"object_kind":"pipeline","object_attributes":{"id":%d,"status":"failed","ref":"refs/merge-requests/3/head","sha":%q,"finished_at":"t"},
			"project":{"id":%d,"git_http_url":"https://gitlab.example.com/acme/svc.git","path_with_namespace":"acme/svc"},
			"merge_request":{"iid":3,"source_branch":"patch","source_project_id":%d,"target_project_id":%d}}`, next(), shaB, project, source, target)
	}
	type delivery struct {
		name, hook, event, body string
		queued                  bool
	}
	cases := []delivery{
		{"workflow_run head_repository null", "github", "workflow_run", noHead(`,"head_repository":null`), false},
		{"workflow_run without head_repository", "github", "workflow_run", noHead(``), false},
		{"workflow_run head_repository without a name", "github", "workflow_run", noHead(`,"head_repository":{"html_url":"https://github.com/acme/api"}`), false},
		{"workflow_run head of another id, same name", "github", "workflow_run", noHead(`,"head_repository":{"id":2,"full_name":"acme/api"}`), false},
		{"check_suite without pull requests", "github", "check_suite", suiteEvent(next(), 1, "patch", shaA, `[]`), false},
		{"check_suite of a pull request from another repository", "github", "check_suite", suiteEvent(next(), 1, "patch", shaA, "["+prOf(4, 2, 1)+"]"), false},
		{"check_suite of a pull request without head repo", "github", "check_suite", suiteEvent(next(), 1, "patch", shaA, `[{"number":4,"base":{"repo":{"id":1}}}]`), false},
		{"check_suite, one pull request of two from another repository", "github", "check_suite", suiteEvent(next(), 1, "patch", shaA, "["+prOf(4, 1, 1)+","+prOf(5, 2, 1)+"]"), false},
		{"check_suite of a repository without id", "github", "check_suite", suiteEvent(next(), 0, "patch", shaA, "["+prOf(4, 0, 0)+"]"), false},
		{"gitlab merge request without source project", "gitlab", "", glMR(1, 0, 1), false},
		{"gitlab merge request of another project than the pipeline's", "gitlab", "", glMR(1, 9, 9), false},
		{"gitlab merge request from a fork", "gitlab", "", glMR(1, 9, 1), false},
		// Shown to be the repository's own: queued.
		{"workflow_run of the repository itself", "github", "workflow_run", noHead(`,"head_repository":{"id":1,"full_name":"acme/API"}`), true},
		{"check_suite of the repository's own pull request", "github", "check_suite", suiteEvent(next(), 1, "patch", shaA, "["+prOf(4, 1, 1)+"]"), true},
		{"gitlab merge request of the project itself", "gitlab", "", glMR(1, 1, 1), true},
	}
	for _, heal := range []bool{false, true} {
		t.Run(fmt.Sprintf("heal forks %v", heal), func(t *testing.T) {
			_, hs := hygieneServer(t, Policy{HealForks: heal, MaxAttempts: 100}, "")
			for i, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					var hdr map[string]string
					if tc.hook == "github" {
						hdr = ghHeaders(fmt.Sprintf("fc-%d", i), tc.body)
						hdr["X-GitHub-Event"] = tc.event
					} else {
						hdr = map[string]string{"X-Gitlab-Token": "gl-token", "X-Gitlab-Event": "Pipeline Hook", "X-Gitlab-Event-UUID": fmt.Sprintf("fc-%d", i)}
					}
					before := countJobs(t, hs.URL, nil)
					code, out := do(t, "POST", hs.URL+"/webhooks/"+tc.hook, tc.body, hdr)
					queued := countJobs(t, hs.URL, nil) - before
					if tc.queued {
						if code != 202 || queued != 1 {
							t.Fatalf("got %d %v, %d job(s); want it queued", code, out, queued)
						}
						return
					}
					if code != 200 || out["status"] != "ignored" || !strings.Contains(fmt.Sprint(out["reason"]), "fork") || queued != 0 {
						t.Fatalf("got %d %v, %d job(s); want it ignored as a fork", code, out, queued)
					}
				})
			}
		})
	}
}

package forge_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/salve-dev/salve/internal/heal/forge"
)

func TestCIEnvironment(t *testing.T) {
	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, []byte(`{"number": 7, "pull_request": {"number": 7, "head": {"sha": "feedfacefeedfacefeedfacefeedfacefeedface", "ref": "fix"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name             string
		env              map[string]string
		built, target    string
		source, pull     int
		runURL, checkSHA string
		gitlab           bool
	}{
		{name: "no CI", checkSHA: "base"},
		{name: "GitHub push to a branch",
			env:   map[string]string{"GITHUB_REF": "refs/heads/main", "GITHUB_REF_NAME": "main", "GITHUB_REF_TYPE": "branch", "GITHUB_SERVER_URL": "https://github.example", "GITHUB_REPOSITORY": "acme/app", "GITHUB_RUN_ID": "42"},
			built: "main", runURL: "https://github.example/acme/app/actions/runs/42", checkSHA: "base"},
		{name: "GitHub tag build names no branch",
			env:      map[string]string{"GITHUB_REF": "refs/tags/v1", "GITHUB_REF_NAME": "v1", "GITHUB_REF_TYPE": "tag"},
			checkSHA: "base"},
		{name: "a tag without GITHUB_REF_TYPE is told by GITHUB_REF",
			env:      map[string]string{"GITHUB_REF": "refs/tags/v1", "GITHUB_REF_NAME": "v1"},
			checkSHA: "base"},
		{name: "GitHub pull request: head branch, base branch, the head commit for checks",
			env: map[string]string{"GITHUB_REF": "refs/pull/7/merge", "GITHUB_REF_NAME": "7/merge", "GITHUB_REF_TYPE": "branch",
				"GITHUB_HEAD_REF": "fix", "GITHUB_BASE_REF": "main", "GITHUB_EVENT_PATH": event, "GITHUB_SHA": "base"},
			built: "fix", target: "main", source: 7, pull: 7, checkSHA: "feedfacefeedfacefeedfacefeedfacefeedface"},
		{name: "checks stay on the base when the heal is not of the built commit",
			env:   map[string]string{"GITHUB_HEAD_REF": "fix", "GITHUB_EVENT_PATH": event, "GITHUB_SHA": "other"},
			built: "fix", pull: 7, checkSHA: "base"},
		{name: "an unreadable event is no event",
			env:    map[string]string{"GITHUB_REF": "refs/pull/9/merge", "GITHUB_EVENT_PATH": filepath.Join(t.TempDir(), "missing")},
			source: 9, pull: 9, checkSHA: "base"},
		{name: "GitLab merge request",
			env: map[string]string{"GITLAB_CI": "true", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "fix", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
				"CI_MERGE_REQUEST_IID": "3", "CI_JOB_URL": "https://gitlab.example/j/1"},
			built: "fix", target: "main", source: 3, pull: 3, runURL: "https://gitlab.example/j/1", checkSHA: "base", gitlab: true},
		{name: "GitLab branch pipeline", env: map[string]string{"GITLAB_CI": "true", "CI_COMMIT_BRANCH": "dev"},
			built: "dev", checkSHA: "base", gitlab: true},
		{name: "a negative request number is none", env: map[string]string{"CI_MERGE_REQUEST_IID": "-4"}, checkSHA: "base"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ci := forge.NewCI(func(k string) string { return tc.env[k] })
			if got := ci.BuiltBranch(); got != tc.built {
				t.Errorf("BuiltBranch = %q, want %q", got, tc.built)
			}
			if got := ci.TargetBranch(); got != tc.target {
				t.Errorf("TargetBranch = %q, want %q", got, tc.target)
			}
			if got := ci.SourceRequest(); got != tc.source {
				t.Errorf("SourceRequest = %d, want %d", got, tc.source)
			}
			if got := ci.PullRequest(); got != tc.pull {
				t.Errorf("PullRequest = %d, want %d", got, tc.pull)
			}
			if got := ci.RunURL(); got != tc.runURL {
				t.Errorf("RunURL = %q, want %q", got, tc.runURL)
			}
			if got := ci.CheckSHA("base"); got != tc.checkSHA {
				t.Errorf("CheckSHA = %q, want %q", got, tc.checkSHA)
			}
			if got := ci.GitLab(); got != tc.gitlab {
				t.Errorf("GitLab = %v, want %v", got, tc.gitlab)
			}
		})
	}
}

func TestCIOpenChoosesTheForge(t *testing.T) {
	tests := []struct {
		name    string
		choice  forge.Choice
		env     map[string]string
		want    string
		wantErr bool
	}{
		{name: "auto outside GitLab is GitHub", env: map[string]string{"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "acme/app"}, want: "github"},
		{name: "auto in a GitLab job is GitLab", env: map[string]string{"GITLAB_CI": "true", "CI_PROJECT_ID": "5", "CI_JOB_TOKEN": "j"}, want: "gitlab"},
		{name: "a GitLab project chooses GitLab", choice: forge.Choice{GitLabProject: "acme/app"}, env: map[string]string{"GITLAB_TOKEN": "t"}, want: "gitlab"},
		{name: "an explicit kind wins", choice: forge.Choice{Kind: "github", GitHubRepo: "acme/app"}, env: map[string]string{"GITLAB_CI": "true", "GITHUB_TOKEN": "t"}, want: "github"},
		{name: "an unknown kind is refused", choice: forge.Choice{Kind: "gitea"}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, _, _, err := forge.NewCI(func(k string) string { return tc.env[k] }).Open(tc.choice)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("Open = %v, want an error", f)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Name(); got != tc.want && !(tc.want == "github" && got == "GitHub") && !(tc.want == "gitlab" && got == "GitLab") {
				t.Errorf("forge = %q, want %s", got, tc.want)
			}
		})
	}
}

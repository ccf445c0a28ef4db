package forge

import (
	"fmt"
	"strconv"
	"strings"
)

// CI is what the environment of a CI run (GitHub Actions, GitLab CI) says
// about the build being healed. It is the one reader of those variables:
// the heal command, the assembly (which base to read .salve.yml from,
// which branch skip_branches judges) and publishing all ask it.
type CI struct {
	Getenv func(string) string

	event     *Event
	eventRead bool
}

// NewCI reads the CI run's environment through getenv.
func NewCI(getenv func(string) string) *CI { return &CI{Getenv: getenv} }

func (c *CI) get(k string) string {
	if c == nil || c.Getenv == nil {
		return ""
	}
	return c.Getenv(k)
}

// BuiltBranch is the branch the CI run built: a pull or merge request's
// head branch first (healing a request means fixing its branch), else the
// branch pushed; "" when CI names none (a tag, a detached build, no CI).
func (c *CI) BuiltBranch() string {
	if b := firstNonBlank(c.get("GITHUB_HEAD_REF"), c.get("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"), c.get("CI_COMMIT_BRANCH")); b != "" {
		return b
	}
	// GITHUB_REF_NAME is a tag's name on tag builds; where
	// GITHUB_REF_TYPE is unset, GITHUB_REF tells, when it is set.
	name := c.get("GITHUB_REF_NAME")
	switch c.get("GITHUB_REF_TYPE") {
	case "branch":
		return name
	case "":
		if ref := c.get("GITHUB_REF"); ref == "" || strings.HasPrefix(ref, "refs/heads/") {
			return name
		}
	}
	return ""
}

// TargetBranch is the branch a pull or merge request would merge into;
// "" outside a request's build.
func (c *CI) TargetBranch() string {
	return firstNonBlank(c.get("GITHUB_BASE_REF"), c.get("CI_MERGE_REQUEST_TARGET_BRANCH_NAME"))
}

// GitLab says the run is a GitLab CI job.
func (c *CI) GitLab() bool { return c.get("GITLAB_CI") == "true" }

// RunURL links the CI run, or "" outside CI.
func (c *CI) RunURL() string {
	if s, r, id := c.get("GITHUB_SERVER_URL"), c.get("GITHUB_REPOSITORY"), c.get("GITHUB_RUN_ID"); s != "" && r != "" && id != "" {
		return s + "/" + r + "/actions/runs/" + id
	}
	return c.get("CI_JOB_URL")
}

// ServerURL is the GitHub server the run talks to.
func (c *CI) ServerURL() string {
	return firstNonBlank(c.get("GITHUB_SERVER_URL"), DefaultGitHubServer)
}

// Repository is the GitHub owner/name the run belongs to, or "".
func (c *CI) Repository() string { return c.get("GITHUB_REPOSITORY") }

// RefName is the ref GitLab built (CI_COMMIT_REF_NAME), where a commit
// status is posted.
func (c *CI) RefName() string { return c.get("CI_COMMIT_REF_NAME") }

// SourceRequest is the number of the pull or merge request whose branch
// was built, or 0.
func (c *CI) SourceRequest() int {
	if n := c.get("CI_MERGE_REQUEST_IID"); n != "" {
		return atoiOr0(n)
	}
	// GITHUB_REF is refs/pull/<n>/merge on pull_request events.
	if ref := c.get("GITHUB_REF"); strings.HasPrefix(ref, "refs/pull/") {
		return atoiOr0(strings.Split(strings.TrimPrefix(ref, "refs/pull/"), "/")[0])
	}
	return 0
}

// Event is the run's event payload ($GITHUB_EVENT_PATH), read once; the
// zero Event when there is none or it cannot be read.
func (c *CI) Event() Event {
	if c == nil {
		return Event{}
	}
	if !c.eventRead {
		c.eventRead = true
		if path := c.get("GITHUB_EVENT_PATH"); path != "" {
			if ev, err := ReadEvent(path); err == nil {
				c.event = &ev
			}
		}
	}
	if c.event == nil {
		return Event{}
	}
	return *c.event
}

// CheckSHA is the failing commit checks are reported on: a pull
// request's head on GitHub pull request events (GitHub shows a request
// the checks of its head; the workflow built a merge commit nobody sees),
// else base, the heal's base commit.
func (c *CI) CheckSHA(base string) string {
	if ev := c.Event(); ev.HeadSHA != "" && c.get("GITHUB_SHA") == base {
		return ev.HeadSHA
	}
	return base
}

// PullRequest is the pull request the failing build belongs to: the
// event's, else GITHUB_REF's; 0 when none.
func (c *CI) PullRequest() int {
	if ev := c.Event(); ev.Number > 0 {
		return ev.Number
	}
	return c.SourceRequest()
}

// Choice says which forge a heal in CI publishes to and how to reach it;
// empty fields are read from the CI environment.
type Choice struct {
	// Kind is "github", "gitlab", or "auto"/"": gitlab in a GitLab CI
	// job or when GitLabProject is set, else github.
	Kind          string
	GitHubAPI     string
	GitHubRepo    string
	GitLabAPI     string
	GitLabProject string
}

// Open returns the client of the forge c chooses, with tokens from the
// environment only. On GitHub a GitHub App (SALVE_GITHUB_APP_ID and its
// key) is used in preference to GITHUB_TOKEN, and its id is returned:
// what the App opens starts the repository's workflows, what the
// workflow's own token opens does not.
func (ci *CI) Open(c Choice) (f Forge, app *App, appID string, err error) {
	kind := c.Kind
	switch kind {
	case "", "auto":
		kind = "github"
		if c.GitLabProject != "" || ci.GitLab() {
			kind = "gitlab"
		}
	case "github", "gitlab":
	default:
		return nil, nil, "", fmt.Errorf("forge: want github, gitlab or auto, got %q", c.Kind)
	}
	if kind == "gitlab" {
		gl, err := NewGitLab(GitLabConfig{
			API:      firstNonBlank(c.GitLabAPI, ci.get("CI_API_V4_URL")),
			Project:  firstNonBlank(c.GitLabProject, ci.get("CI_PROJECT_ID")),
			Token:    ci.get("GITLAB_TOKEN"),
			JobToken: ci.get("CI_JOB_TOKEN"),
		})
		return gl, nil, "", err
	}
	g, appID, err := GitHubFromEnv(c.GitHubAPI, c.GitHubRepo, ci.get)
	if err != nil {
		return nil, nil, "", err
	}
	if appID != "" {
		app = g.App()
	}
	return g, app, appID, nil
}

func atoiOr0(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

package worker

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/salve-dev/salve/internal/heal/forge"
)

// Forges opens the pull requests (GitHub) and merge requests (GitLab) of
// the jobs that ask for one, with the worker's own tokens. A field left
// empty means the worker cannot reach that forge; the job then carries a
// warning.
type Forges struct {
	// GitHubAPI is the GitHub REST root; empty means forge.DefaultGitHubAPI.
	GitHubAPI   string
	GitHubToken string
	// GitLabAPI is the GitLab REST root, ending in /api/v4; empty means
	// forge.DefaultGitLabAPI.
	GitLabAPI   string
	GitLabToken string
	// App, when set, is the GitHub App the worker acts as on GitHub (in
	// preference to GitHubToken): its installation is the worker's
	// SALVE_GITHUB_APP_INSTALLATION_ID, else the job's (a webhook's
	// installation.id), else looked up from the repository.
	App *forge.Apps
	// HTTP is the client; nil means the forge package's default.
	HTTP *http.Client
}

// ErrNoForge is wrapped when a job's forge cannot be told or reached.
var ErrNoForge = errors.New("no forge for this repository")

// For returns the client of the forge that hosts repo, a job's clone URL
// or path; installation is the job's GitHub App installation (0: none). source ("github", "gitlab", or "api" for jobs posted to the
// jobs API) says which forge a webhook came from. Otherwise the URL's host
// decides: github.com or the GitHub API's host, and the GitLab API's host
// (or a host named gitlab…). A repository whose host says nothing (a path,
// a file:// URL) goes to the one forge the worker has a token for.
func (f *Forges) For(repo, source string, installation int64) (forge.Forge, error) {
	host, p, err := splitRepo(repo)
	if err != nil {
		return nil, err
	}
	kind := source
	if kind != "github" && kind != "gitlab" {
		kind = f.kindOf(host)
	}
	switch kind {
	case "github":
		repo := path.Base(path.Dir(p)) + "/" + path.Base(p)
		if f.App != nil {
			app, err := f.App.For(f.GitHubAPI, repo, installation, f.HTTP)
			if err != nil {
				return nil, err
			}
			return forge.NewGitHub(forge.GitHubConfig{API: f.GitHubAPI, Repo: repo, App: app, HTTP: f.HTTP})
		}
		if f.GitHubToken == "" {
			return nil, fmt.Errorf("%w: this worker has no GitHub token (GITHUB_TOKEN or GH_TOKEN in its environment)", ErrNoForge)
		}
		return forge.NewGitHub(forge.GitHubConfig{API: f.GitHubAPI, Repo: repo, Token: f.GitHubToken, HTTP: f.HTTP})
	case "gitlab":
		if f.GitLabToken == "" {
			return nil, fmt.Errorf("%w: this worker has no GitLab token (GITLAB_TOKEN in its environment)", ErrNoForge)
		}
		return forge.NewGitLab(forge.GitLabConfig{API: f.GitLabAPI, Project: strings.TrimPrefix(p, "/"), Token: f.GitLabToken, HTTP: f.HTTP})
	}
	return nil, fmt.Errorf("%w: cannot tell whether %q is on GitHub or GitLab, and this worker has tokens for both or neither", ErrNoForge, repo)
}

// kindOf names the forge of a host, or "" when it cannot tell.
func (f *Forges) kindOf(host string) string {
	host = strings.ToLower(host)
	switch {
	case host == "":
	case host == "github.com" || host == apiHost(f.GitHubAPI, forge.DefaultGitHubAPI) || "api."+host == apiHost(f.GitHubAPI, forge.DefaultGitHubAPI):
		return "github"
	case host == apiHost(f.GitLabAPI, forge.DefaultGitLabAPI) || strings.HasPrefix(host, "gitlab."):
		return "gitlab"
	}
	github := f.GitHubToken != "" || f.App != nil
	switch {
	case github && f.GitLabToken == "":
		return "github"
	case f.GitLabToken != "" && !github:
		return "gitlab"
	}
	return ""
}

// apiHost is the lower-case host of an API root, or of def when it is empty.
func apiHost(api, def string) string {
	if api == "" {
		api = def
	}
	u, err := url.Parse(api)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// splitRepo returns the host (empty for a path or file URL) and the path,
// without ".git" or a trailing slash, of a clone URL (https, ssh, git,
// scp-like user@host:path) or path. The path has at least two segments.
func splitRepo(repo string) (host, p string, err error) {
	switch u, perr := url.Parse(repo); {
	case perr == nil && u.Scheme != "" && u.Scheme != "file" && len(u.Scheme) > 1:
		host, p = u.Hostname(), u.Path
	case perr == nil && u.Scheme == "file":
		p = u.Path
	case !strings.HasPrefix(repo, "/") && strings.Contains(repo, ":"):
		// scp-like: [user@]host:path
		h, after, _ := strings.Cut(repo, ":")
		if i := strings.LastIndexByte(h, '@'); i >= 0 {
			h = h[i+1:]
		}
		host, p = h, after
	default:
		p = repo
	}
	p = strings.TrimSuffix(strings.TrimSuffix(p, "/"), ".git")
	p = "/" + strings.TrimPrefix(path.Clean("/"+p), "/")
	if strings.Count(p, "/") < 2 {
		return "", "", fmt.Errorf("%w: cannot tell owner/name from %q", ErrNoForge, repo)
	}
	return host, p, nil
}

// PushEnv returns what makes the heal of a job push as the worker's
// GitHub App: for a repository on GitHub reached over https, the git
// agent's environment of each git_push (forge.App.GitEnv, the header
// scoped to the repository's host, a token refreshed before it expires).
// It returns nil when the worker has no App, or the repository is not a
// GitHub https one: the worker's own git credentials then push.
func (f *Forges) PushEnv(repo, source string, installation int64) (func(ctx context.Context, action string) ([]string, error), error) {
	if f == nil || f.App == nil {
		return nil, nil
	}
	u, err := url.Parse(repo)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, nil
	}
	host, p, err := splitRepo(repo)
	if err != nil {
		return nil, nil
	}
	if source != "github" && f.kindOf(host) != "github" {
		return nil, nil
	}
	app, err := f.App.For(f.GitHubAPI, path.Base(path.Dir(p))+"/"+path.Base(p), installation, f.HTTP)
	if err != nil {
		return nil, err
	}
	return app.PushEnv("https://" + u.Host), nil
}

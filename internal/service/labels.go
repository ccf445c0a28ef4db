package service

import (
	"context"
	"net/http"
	"time"

	"github.com/salve-dev/salve/internal/heal/forge"
)

// LabelReader reads the labels of the pull or merge request number a
// webhook's failure belongs to, for the salve:skip opt-out
// (forge.SkipLabel).
type LabelReader interface {
	Labels(ctx context.Context, ev *Event, number int) ([]string, error)
}

// labelTimeout bounds the label look-ups of one delivery.
const labelTimeout = 5 * time.Second

// skipLabelled returns the number of the first pull or merge request of ev
// that carries forge.SkipLabel, or 0. Without a LabelReader nothing is
// read; a request whose labels cannot be read is logged and does not stop
// the heal (the opt-out is best effort, the commit markers are not).
func (s *Server) skipLabelled(ctx context.Context, source string, ev *Event) int {
	if s.Labels == nil {
		return 0
	}
	// GitHub gives a webhook ten seconds; a slow or rate-limited API
	// must not cost the delivery.
	ctx, cancel := context.WithTimeout(ctx, labelTimeout)
	defer cancel()
	for _, n := range ev.PRs {
		labels, err := s.Labels.Labels(ctx, ev, n)
		if err != nil {
			s.log().Warn("could not read the labels of the failure's request; healing it", "source", source, "repo", ev.Repo, "request", n, "error", err)
			continue
		}
		if forge.HasLabel(labels, forge.SkipLabel) {
			return n
		}
	}
	return 0
}

// ForgeLabels reads labels through the forges' REST APIs with the
// server's own credentials: a GitHub App (its installation from the
// configuration, else the webhook's installation.id, else looked up) or
// a GitHub token, and a GitLab token. A forge without credentials is not
// asked.
type ForgeLabels struct {
	// GitHubAPI and GitLabAPI are the REST roots; empty means the
	// public services'.
	GitHubAPI, GitLabAPI string
	// GitHubToken and GitLabToken are the server's tokens.
	GitHubToken, GitLabToken string
	// App, when set, is the GitHub App the server reads GitHub as (in
	// preference to GitHubToken).
	App *forge.Apps
	// HTTP is the client; nil means the forge package's default.
	HTTP *http.Client
}

// Labels reads the labels of request number of ev's repository.
func (f *ForgeLabels) Labels(ctx context.Context, ev *Event, number int) ([]string, error) {
	var l forge.Labeler
	switch ev.Request.Source {
	case "github":
		g, err := f.github(ev)
		if err != nil || g == nil {
			return nil, err
		}
		l = g
	case "gitlab":
		if f.GitLabToken == "" {
			return nil, nil
		}
		g, err := forge.NewGitLab(forge.GitLabConfig{API: f.GitLabAPI, Project: ev.Repo, Token: f.GitLabToken, HTTP: f.HTTP})
		if err != nil {
			return nil, err
		}
		l = g
	default:
		return nil, nil
	}
	return l.Labels(ctx, number)
}

// github returns the GitHub client of ev's repository, or nil when the
// server has no GitHub credentials.
func (f *ForgeLabels) github(ev *Event) (*forge.GitHub, error) {
	cfg := forge.GitHubConfig{API: f.GitHubAPI, Repo: ev.Repo, Token: f.GitHubToken, HTTP: f.HTTP}
	if f.App != nil {
		app, err := f.App.For(f.GitHubAPI, ev.Repo, ev.Installation, f.HTTP)
		if err != nil {
			return nil, err
		}
		cfg.App = app
	} else if f.GitHubToken == "" {
		return nil, nil
	}
	return forge.NewGitHub(cfg)
}

// LabelsFromEnv returns the LabelReader of a server's environment: a
// GitHub App (forge.AppConfigFromEnv), GITHUB_TOKEN or GH_TOKEN with
// GITHUB_API_URL, GITLAB_TOKEN with GITLAB_API_URL; nil when it holds no
// forge credential. A malformed App configuration is an error.
func LabelsFromEnv(getenv func(string) string) (LabelReader, error) {
	first := func(names ...string) string {
		for _, n := range names {
			if v := getenv(n); v != "" {
				return v
			}
		}
		return ""
	}
	f := &ForgeLabels{GitHubAPI: getenv("GITHUB_API_URL"), GitLabAPI: getenv("GITLAB_API_URL"),
		GitHubToken: first("GITHUB_TOKEN", "GH_TOKEN"), GitLabToken: getenv("GITLAB_TOKEN")}
	app, err := forge.AppsFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	f.App = app
	if f.App == nil && f.GitHubToken == "" && f.GitLabToken == "" {
		return nil, nil
	}
	return f, nil
}

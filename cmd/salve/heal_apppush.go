package main

import (
	"context"
	"fmt"

	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/worker"
)

// appPush makes --push go as the GitHub App when one is configured
// (SALVE_GITHUB_APP_ID and its key): every git_push of the heal carries
// the App's current installation token, refreshed before it expires, as
// an http.extraHeader scoped to the GitHub server ($GITHUB_SERVER_URL,
// default https://github.com) in the git agent's environment, never in a
// URL, an argument or the output. Other actions get nothing. Without an
// App, or on GitLab, git pushes with the user's own credentials.
func (p *prOptions) appPush(s *streams, o *healOptions) (func(ctx context.Context, action string) ([]string, error), error) {
	if !o.Push {
		return nil, nil
	}
	if _, ok, err := forge.AppConfigFromEnv(s.Getenv); err != nil || !ok {
		return nil, err
	}
	if _, err := p.newForge(o, s); err != nil {
		return nil, fmt.Errorf("--push as the GitHub App: %w", err)
	}
	app := p.app
	if app == nil {
		return nil, nil // GitLab
	}
	return app.PushEnv(p.env(s).ServerURL()), nil
}

// withApp adds the GitHub App of the worker's environment, when one is
// configured, to its forges: jobs then open pull requests and push as
// the App's installation (the worker's SALVE_GITHUB_APP_INSTALLATION_ID,
// else the job's, else looked up). It returns fs when it can reach a
// forge, nil when it cannot.
func withApp(fs *worker.Forges, getenv func(string) string) (*worker.Forges, error) {
	app, err := forge.AppsFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	fs.App = app
	if fs.App == nil && fs.GitHubToken == "" && fs.GitLabToken == "" {
		return nil, nil
	}
	return fs, nil
}

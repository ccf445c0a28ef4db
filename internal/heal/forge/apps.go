package forge

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// maxApps bounds the Apps an [Apps] keeps (each holds its installation
// token); past it the cache starts again.
const maxApps = 256

// Apps makes, and keeps, the [App] of one GitHub App identity for each
// repository and installation a long-running server acts on, so that an
// installation token serves every call until it is refreshed. The
// installation is Config's (SALVE_GITHUB_APP_INSTALLATION_ID wins), else
// the one the caller gives (a webhook's installation.id), else looked up
// from the repository. Safe for concurrent use.
type Apps struct {
	// Config is the App's identity; its API, Repo and HTTP are set per
	// call.
	Config AppConfig

	mu sync.Mutex
	m  map[string]*App
}

// For returns the App acting on repo ("owner/name") through the API root
// api, as installation when Config names none (0: look it up).
func (a *Apps) For(api, repo string, installation int64, hc *http.Client) (*App, error) {
	cfg := a.Config
	cfg.API, cfg.Repo, cfg.HTTP = api, repo, hc
	if cfg.InstallationID == 0 {
		cfg.InstallationID = installation
	}
	key := fmt.Sprintf("%s %s %d", api, strings.ToLower(repo), cfg.InstallationID)
	a.mu.Lock()
	defer a.mu.Unlock()
	if app, ok := a.m[key]; ok {
		return app, nil
	}
	app, err := NewApp(cfg)
	if err != nil {
		return nil, err
	}
	if a.m == nil || len(a.m) >= maxApps {
		a.m = map[string]*App{}
	}
	a.m[key] = app
	return app, nil
}

// AppsFromEnv returns the Apps of the GitHub App configured in the
// environment (AppConfigFromEnv), nil when none is.
func AppsFromEnv(getenv func(string) string) (*Apps, error) {
	cfg, ok, err := AppConfigFromEnv(getenv)
	if err != nil || !ok {
		return nil, err
	}
	return &Apps{Config: cfg}, nil
}

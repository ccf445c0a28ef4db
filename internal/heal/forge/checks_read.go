package forge

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// ErrTryAgain is wrapped, beside the classified error, by a read that may
// succeed later: GitHub does not know a just-pushed commit yet (404, 422),
// the server kept failing, the rate limit held, or the network did.
var ErrTryAgain = errors.New("forge: try again later")

// CommitCheck is a check run of a commit, as GitHub lists it
// (GET /repos/{owner}/{repo}/commits/{ref}/check-runs).
type CommitCheck struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	HeadSHA string `json:"head_sha"`
	// Status is queued, in_progress, completed, waiting, requested or
	// pending.
	Status string `json:"status"`
	// Conclusion is nil until the run completed.
	Conclusion *string `json:"conclusion"`
	HTMLURL    string  `json:"html_url"`
}

// CommitStatus is one status of a commit (the statuses API).
type CommitStatus struct {
	// State is error, failure, pending or success.
	State       string `json:"state"`
	Context     string `json:"context"`
	Description string `json:"description"`
}

// CombinedStatus is a commit's combined status
// (GET /repos/{owner}/{repo}/commits/{ref}/status).
type CombinedStatus struct {
	State    string         `json:"state"`
	SHA      string         `json:"sha"`
	Statuses []CommitStatus `json:"statuses"`
}

// maxCheckPages bounds the pages of check runs read for one commit.
const maxCheckPages = 50

// CommitChecks lists every check run of ref, 100 a page.
func (g *GitHub) CommitChecks(ctx context.Context, ref string) ([]CommitCheck, error) {
	var all []CommitCheck
	for page := 1; page <= maxCheckPages; page++ {
		var l struct {
			TotalCount int           `json:"total_count"`
			CheckRuns  []CommitCheck `json:"check_runs"`
		}
		q := url.Values{"per_page": {"100"}, "page": {strconv.Itoa(page)}}
		if err := g.read(ctx, g.path("commits", ref, "check-runs"), q, &l); err != nil {
			return nil, err
		}
		all = append(all, l.CheckRuns...)
		if len(l.CheckRuns) == 0 || len(all) >= l.TotalCount {
			break
		}
	}
	return all, nil
}

// CommitStatus returns the combined status of ref.
func (g *GitHub) CommitStatus(ctx context.Context, ref string) (CombinedStatus, error) {
	var st CombinedStatus
	err := g.read(ctx, g.path("commits", ref, "status"), nil, &st)
	return st, err
}

// read GETs path and marks the refusals worth another try with
// ErrTryAgain.
func (g *GitHub) read(ctx context.Context, path string, q url.Values, out any) error {
	r, err := g.call(ctx, http.MethodGet, path, q, nil, out)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return err
	case r.Status == http.StatusNotFound, r.Status == http.StatusUnprocessableEntity, r.Status >= 500,
		errors.Is(err, ErrRateLimited), r.Status == 0 && !errors.Is(err, ErrAuth) && !errors.Is(err, ErrAPI):
		return fmt.Errorf("%w: %w", ErrTryAgain, err)
	}
	return err
}

// GitHubFromEnv builds the GitHub client every salve entry point uses: api
// and repo, else $GITHUB_API_URL and $GITHUB_REPOSITORY; a GitHub App when
// its variables are set (see [AppConfigFromEnv]), else $GITHUB_TOKEN or
// $GH_TOKEN. appID is the App's id, "" when a token authenticates.
func GitHubFromEnv(api, repo string, getenv func(string) string) (g *GitHub, appID string, err error) {
	api = firstNonBlank(api, getenv("GITHUB_API_URL"))
	repo = firstNonBlank(repo, getenv("GITHUB_REPOSITORY"))
	cfg := GitHubConfig{API: api, Repo: repo, Token: firstNonBlank(getenv("GITHUB_TOKEN"), getenv("GH_TOKEN"))}
	appCfg, ok, err := AppConfigFromEnv(getenv)
	if err != nil {
		return nil, "", err
	}
	if ok {
		appCfg.API, appCfg.Repo = api, repo
		app, err := NewApp(appCfg)
		if err != nil {
			return nil, "", err
		}
		cfg.App, appID = app, appCfg.ID
	}
	g, err = NewGitHub(cfg)
	if err != nil {
		return nil, "", err
	}
	return g, appID, nil
}

package ci

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/forge"
)

// GitHub polls the checks of a pushed commit through forge's GitHub
// client, which holds the authentication (a token or a GitHub App), the
// API root, rate limits and the scrubbing of secrets from errors: the
// check runs (GET /repos/{owner}/{repo}/commits/{ref}/check-runs) and the
// combined commit status (GET /repos/{owner}/{repo}/commits/{ref}/status).
// The verdict is green when every check run completed with success,
// neutral or skipped and the combined status is success (or has no
// statuses); red as soon as every check finished and one did not pass.
type GitHub struct {
	// API reads the checks.
	API *forge.GitHub
	// Interval is the wait between polls; zero means 10 s.
	Interval time.Duration
	// Timeout bounds the whole wait; zero means 30 minutes.
	Timeout time.Duration
	// Sleep waits between polls; nil means a context-aware timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

var _ heal.CIMonitor = (*GitHub)(nil)

// ErrCI is wrapped by GitHub errors that are not a verdict: a refused
// token, an unknown repository, a timeout.
var ErrCI = errors.New("ci github")

// Name returns "github".
func (g *GitHub) Name() string { return "github" }

// Verdict polls until the checks of t.Commit are settled or the timeout.
func (g *GitHub) Verdict(ctx context.Context, t heal.CITarget) (results.Verdict, error) {
	if g.API == nil {
		return results.Verdict{}, fmt.Errorf("%w: no GitHub client", ErrCI)
	}
	if !t.Pushed {
		return results.Verdict{}, fmt.Errorf("%w: commit %s was not pushed (use --push)", ErrCI, t.Commit)
	}
	timeout, interval := g.Timeout, g.Interval
	if timeout == 0 {
		timeout = 30 * time.Minute
	}
	if interval == 0 {
		interval = 10 * time.Second
	}
	deadline := time.Now().Add(timeout)
	for {
		v, settled, err := g.poll(ctx, t.Commit)
		if err != nil && !errors.Is(err, forge.ErrTryAgain) {
			return results.Verdict{}, fmt.Errorf("%w: %w", ErrCI, err)
		}
		if settled {
			return v, nil
		}
		wait := interval
		if err != nil {
			v.Detail = err.Error()
		}
		if time.Now().Add(wait).After(deadline) {
			// Checks that stay queued or wait for an approval are no
			// signal: reported as such, never as green.
			return results.Verdict{Source: "github", NoSignal: true, Detail: fmt.Sprintf("checks of %s not settled after %s: %s", short(t.Commit), timeout, v.Detail)}, nil
		}
		if err := g.sleep(ctx, wait); err != nil {
			return results.Verdict{}, fmt.Errorf("%w: wait for checks: %w", ErrCI, err)
		}
	}
}

func (g *GitHub) sleep(ctx context.Context, d time.Duration) error {
	if g.Sleep != nil {
		return g.Sleep(ctx, d)
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// poll reads the checks once and says whether they are settled.
func (g *GitHub) poll(ctx context.Context, sha string) (results.Verdict, bool, error) {
	runs, err := g.API.CommitChecks(ctx, sha)
	if err != nil {
		return results.Verdict{Source: "github"}, false, err
	}
	st, err := g.API.CommitStatus(ctx, sha)
	if err != nil {
		return results.Verdict{Source: "github"}, false, err
	}
	return judge(runs, st)
}

// judge turns check runs and the combined status into a verdict.
func judge(runs []forge.CommitCheck, st forge.CombinedStatus) (results.Verdict, bool, error) {
	v := results.Verdict{Source: "github"}
	var pending, failed, passed []string
	for _, r := range runs {
		switch {
		case r.Status != "completed":
			pending = append(pending, r.Name+" ("+r.Status+")")
		case r.Conclusion != nil && (*r.Conclusion == "success" || *r.Conclusion == "neutral" || *r.Conclusion == "skipped"):
			passed = append(passed, r.Name)
		default:
			c := "no conclusion"
			if r.Conclusion != nil {
				c = *r.Conclusion
			}
			failed = append(failed, r.Name+" ("+c+")")
		}
	}
	for _, s := range st.Statuses {
		switch s.State {
		case "pending":
			pending = append(pending, s.Context+" (pending)")
		case "success":
			passed = append(passed, s.Context)
		default:
			failed = append(failed, s.Context+" ("+s.State+")")
		}
	}
	sort.Strings(failed)
	switch {
	case len(pending) > 0:
		v.Detail = "waiting for " + strings.Join(pending, ", ")
		return v, false, nil
	case len(failed) > 0:
		v.Detail = "failed: " + strings.Join(failed, ", ")
		return v, true, nil
	case len(passed) == 0:
		v.Detail = "no checks reported yet"
		return v, false, nil
	}
	v.Green = true
	v.Detail = fmt.Sprintf("%d checks passed", len(passed))
	return v, true, nil
}

func short(sha string) string { return sha[:min(len(sha), 12)] }

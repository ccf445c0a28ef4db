package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/spf13/pflag"

	"github.com/salve-dev/salve/internal/buildinfo"
	"github.com/salve-dev/salve/internal/gitagent/server"
	"github.com/salve-dev/salve/internal/heal/adapter"
	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/publish"
	"github.com/salve-dev/salve/internal/heal/report"
)

// prOptions are the flags of "salve heal" that open a pull or merge
// request and write annotations.
type prOptions struct {
	PR            bool
	PROnRed       bool
	PRBase        string
	Forge         string
	GitLabAPI     string
	GitLabProject string
	// Reports are the --report FORMAT[=PATH] values, checked into
	// reportSpecs.
	Reports     []string
	reportSpecs []reportSpec
	// CheckRun posts a check run (GitHub) or commit status (GitLab) on
	// the failing commit; SuggestReview posts the verified fix as
	// suggestions on the pull request the failing build belongs to,
	// PRNumber (else the CI event's).
	CheckRun      bool
	SuggestReview bool
	PRNumber      int

	// fg is the forge client, made once per run (a GitHub App mints its
	// token once); ci is the CI run's environment.
	fg  forge.Forge
	app *forge.App
	ci  *forge.CI
}

// reportSpec is one --report: a format and the file it is written to.
type reportSpec struct {
	Format report.Format
	Path   string
}

func (p *prOptions) flags(f *pflag.FlagSet) {
	f.BoolVar(&p.PR, "pr", false, "after a green heal, open (or update) a pull/merge request from the pushed heal branch; needs --push")
	f.BoolVar(&p.PROnRed, "pr-on-red", false, "with --pr, open a draft with the analysis when the heal stays red")
	f.StringVar(&p.PRBase, "pr-base", "", "the branch the request is for (default: the branch CI built, else the checked-out branch)")
	f.StringVar(&p.Forge, "forge", "auto", "where to open the request: github, gitlab, or auto (gitlab in GitLab CI or with --gitlab-project)")
	f.StringVar(&p.GitLabAPI, "gitlab-api", "", "the GitLab API root (default $CI_API_V4_URL or https://gitlab.com/api/v4)")
	f.StringVar(&p.GitLabProject, "gitlab-project", "", "the GitLab project id or path (default $CI_PROJECT_ID)")
	f.StringArrayVar(&p.Reports, "report", nil, "also write the failing build's bug reports, as FORMAT[=PATH] (repeatable; default PATH salve-report.FORMAT); FORMAT is one of "+formatNames())
	f.BoolVar(&p.CheckRun, "check-run", false, "report the heal on the failing commit: a GitHub check run with the fix lines and one annotation per bug, or a GitLab commit status")
	f.BoolVar(&p.SuggestReview, "suggest-review", false, "post the verified fixes as suggestions in a review of the pull request the failing build belongs to (GitHub)")
	f.IntVar(&p.PRNumber, "pr-number", 0, "the pull request the failing build belongs to, for --suggest-review (default: from $GITHUB_EVENT_PATH or $GITHUB_REF)")
}

// check validates the request flags before the heal starts, so a typo
// does not cost a whole heal.
func (p *prOptions) check(push bool) error {
	p.reportSpecs = nil
	seen := map[string]bool{}
	for _, r := range p.Reports {
		name, path, _ := strings.Cut(r, "=")
		f, err := report.ParseFormat(name)
		if err != nil {
			return fmt.Errorf("--report %s: %w", r, err)
		}
		if path == "" {
			path = "salve-report." + string(f)
		}
		if seen[path] {
			return fmt.Errorf("--report: two reports would be written to %s", path)
		}
		seen[path] = true
		p.reportSpecs = append(p.reportSpecs, reportSpec{Format: f, Path: path})
	}
	if p.PROnRed && !p.PR {
		return fmt.Errorf("--pr-on-red needs --pr")
	}
	if p.PR && !push {
		return fmt.Errorf("--pr opens a request from the pushed heal branch: add --push")
	}
	switch p.Forge {
	case "auto", "github", "gitlab":
	default:
		return fmt.Errorf("--forge: want github, gitlab or auto, got %q", p.Forge)
	}
	if p.PRBase != "" && server.ValidateBranchName(p.PRBase) != nil {
		return fmt.Errorf("--pr-base %q is not a branch name", p.PRBase)
	}
	if p.PRNumber < 0 {
		return fmt.Errorf("--pr-number %d is not a pull request number", p.PRNumber)
	}
	if p.SuggestReview && p.Forge == "gitlab" {
		return fmt.Errorf("--suggest-review posts GitHub suggestions; GitLab is not supported")
	}
	return nil
}

// newForge returns the GitHub or GitLab client of the run, built once
// from the flags and the CI environment (forge.CI.Open chooses).
func (p *prOptions) newForge(o *healOptions, s *streams) (forge.Forge, error) {
	if p.fg != nil {
		return p.fg, nil
	}
	f, app, appID, err := p.env(s).Open(forge.Choice{Kind: p.Forge, GitHubAPI: o.GitHubAPI, GitHubRepo: o.GitHubRepo,
		GitLabAPI: p.GitLabAPI, GitLabProject: p.GitLabProject})
	if err != nil {
		return nil, err
	}
	if appID != "" {
		repo := o.GitHubRepo
		if repo == "" {
			repo = p.env(s).Repository()
		}
		fmt.Fprintf(s.Stderr, "salve heal: acting as GitHub App %s on %s\n", appID, repo)
	}
	p.fg, p.app = f, app
	return f, nil
}

// env is the CI run's environment, read once.
func (p *prOptions) env(s *streams) *forge.CI {
	if p.ci == nil {
		p.ci = forge.NewCI(s.Getenv)
	}
	return p.ci
}

// prBase is the branch the request is for: the flag, the branch the CI
// run built, else the checkout's branch.
func (p *prOptions) prBase(ctx context.Context, s *streams, o *healOptions, git adapter.Git) (string, error) {
	if p.PRBase != "" {
		return p.PRBase, nil
	}
	if b := p.env(s).BuiltBranch(); b != "" {
		return b, nil
	}
	b, err := git.Branch(ctx, o.Workspace)
	if err != nil || b == "" || b == "HEAD" {
		return "", fmt.Errorf("cannot tell which branch the request is for (detached HEAD): give --pr-base")
	}
	return b, nil
}

// PRBranchPrefix starts the heal branch of --pr runs: one branch per base,
// so that a re-run updates the same request.
const PRBranchPrefix = "salve/heal-pr/"

// prepare runs before the heal when --pr is given: it names the heal
// branch after the base (unless --branch did), and when a request from
// that branch is already open, lets the heal replace its branch if the
// branch is still where the request saw it. It returns the push lease.
func (p *prOptions) prepare(ctx context.Context, s *streams, o *healOptions, git adapter.Git) (string, error) {
	if !p.PR {
		return "", nil
	}
	base, err := p.prBase(ctx, s, o, git)
	if err != nil {
		return "", fmt.Errorf("--pr: %w", err)
	}
	p.PRBase = base
	if o.Branch == "" {
		o.Branch = PRBranchPrefix + base
	}
	f, err := p.newForge(o, s)
	if err != nil {
		return "", fmt.Errorf("--pr: %w", err)
	}
	pr, ok, err := f.FindOpen(ctx, o.Branch)
	if err != nil {
		return "", fmt.Errorf("--pr: look for an open request from %s: %w", o.Branch, err)
	}
	if !ok || pr.HeadSHA == "" {
		return "", nil
	}
	fmt.Fprintf(s.Stderr, "salve heal: %s request #%d is open from %s; a green heal replaces its branch\n", f.Name(), pr.Number, o.Branch)
	return pr.HeadSHA, nil
}

// afterHeal publishes the heal as the flags say (package
// internal/heal/publish: the report files, the request, the suggestion
// review, the check run). Its errors are reported but do not change the
// heal's own outcome, except that a request that was asked for and could
// not be opened is an error.
func (p *prOptions) afterHeal(ctx context.Context, s *streams, o *healOptions, res *results.Results, git adapter.Git, logger *slog.Logger) error {
	ci := p.env(s)
	po := publish.Options{Request: p.PR, OnRed: p.PROnRed, CheckRun: p.CheckRun, Review: p.SuggestReview,
		RunURL: ci.RunURL(), SourceRequest: ci.SourceRequest(), CheckRef: ci.RefName(),
		ToolVersion: buildinfo.Version(version), Out: s.Stderr, Logger: logger}
	for _, spec := range p.reportSpecs {
		po.Reports = append(po.Reports, publish.ReportFile{Format: spec.Format, Path: spec.Path})
	}
	opens := po.Opens(res)
	if po.NeedsForge(res) {
		f, err := p.newForge(o, s)
		switch {
		case err != nil && opens:
			return fmt.Errorf("--pr: %w", err)
		case err != nil:
			fmt.Fprintf(s.Stderr, "salve heal: %v\n", err)
		default:
			po.Forge = f
		}
	}
	if opens {
		base, err := p.prBase(ctx, s, o, git)
		if err != nil {
			return fmt.Errorf("--pr: %w", err)
		}
		po.Base = base
	}
	if p.CheckRun {
		po.CheckSHA = ci.CheckSHA(res.BaseCommit)
	}
	if p.SuggestReview {
		po.ReviewNumber = p.PRNumber
		if po.ReviewNumber == 0 {
			po.ReviewNumber = ci.PullRequest()
		}
	}
	if po.Forge == nil {
		// Without a forge only the report files are written; what asked
		// for one was reported above.
		po.CheckRun, po.Review = false, false
	}
	_, err := publish.Publish(ctx, res, po)
	return err
}

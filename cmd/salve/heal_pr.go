package main

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
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
	// token once); event is the CI event payload, read once.
	fg        forge.Forge
	app       *forge.App
	event     *forge.Event
	eventRead bool
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

// newForge returns the GitHub or GitLab client of the run, built once from
// the flags and the CI environment. Tokens come from the environment only.
// On GitHub, a GitHub App (SALVE_GITHUB_APP_ID and its private key) is
// used in preference to GITHUB_TOKEN: what the App opens starts the
// repository's workflows, what the workflow's own token opens does not.
func (p *prOptions) newForge(o *healOptions, s *streams) (forge.Forge, error) {
	if p.fg != nil {
		return p.fg, nil
	}
	f, err := p.buildForge(o, s)
	if err == nil {
		p.fg = f
	}
	return f, err
}

func (p *prOptions) buildForge(o *healOptions, s *streams) (forge.Forge, error) {
	getenv := s.Getenv
	kind := p.Forge
	if kind == "auto" {
		kind = "github"
		if p.GitLabProject != "" || getenv("GITLAB_CI") == "true" {
			kind = "gitlab"
		}
	}
	if kind == "gitlab" {
		api := firstNonEmpty(p.GitLabAPI, getenv("CI_API_V4_URL"))
		project := firstNonEmpty(p.GitLabProject, getenv("CI_PROJECT_ID"))
		return forge.NewGitLab(forge.GitLabConfig{API: api, Project: project, Token: getenv("GITLAB_TOKEN"), JobToken: getenv("CI_JOB_TOKEN")})
	}
	g, appID, err := forge.GitHubFromEnv(o.GitHubAPI, o.GitHubRepo, getenv)
	if err != nil {
		return nil, err
	}
	if appID != "" {
		p.app = g.App()
		fmt.Fprintf(s.Stderr, "salve heal: acting as GitHub App %s on %s\n", appID, firstNonEmpty(o.GitHubRepo, getenv("GITHUB_REPOSITORY")))
	}
	return g, nil
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// prBase is the branch the request is for: the flag, the branch the CI
// run built (a pull request's head branch first, since healing a pull
// request means fixing its branch), else the checkout's branch.
func (p *prOptions) prBase(ctx context.Context, o *healOptions, git adapter.Git, getenv func(string) string) (string, error) {
	if b := firstNonEmpty(p.PRBase, getenv("GITHUB_HEAD_REF"), getenv("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"), getenv("CI_COMMIT_BRANCH")); b != "" {
		return b, nil
	}
	if getenv("GITHUB_REF_TYPE") == "branch" || (getenv("GITHUB_REF_NAME") != "" && getenv("GITHUB_REF_TYPE") == "") {
		if b := getenv("GITHUB_REF_NAME"); b != "" {
			return b, nil
		}
	}
	b, err := git.Branch(ctx, o.Workspace)
	if err != nil || b == "" || b == "HEAD" {
		return "", fmt.Errorf("cannot tell which branch the request is for (detached HEAD): give --pr-base")
	}
	return b, nil
}

// sourceRequest is the number of the pull or merge request whose branch
// was healed, when CI says so, for the link comment.
func sourceRequest(getenv func(string) string) int {
	if n := getenv("CI_MERGE_REQUEST_IID"); n != "" {
		return atoiOr0(n)
	}
	// GITHUB_REF is refs/pull/<n>/merge on pull_request events.
	if ref := getenv("GITHUB_REF"); strings.HasPrefix(ref, "refs/pull/") {
		return atoiOr0(strings.Split(strings.TrimPrefix(ref, "refs/pull/"), "/")[0])
	}
	return 0
}

func atoiOr0(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
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
	base, err := p.prBase(ctx, o, git, s.Getenv)
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
	po := publish.Options{Request: p.PR, OnRed: p.PROnRed, CheckRun: p.CheckRun, Review: p.SuggestReview,
		RunURL: runURL(s.Getenv), SourceRequest: sourceRequest(s.Getenv), CheckRef: s.Getenv("CI_COMMIT_REF_NAME"),
		ToolVersion: buildinfo.Version(version), Out: s.Stderr, Logger: logger}
	for _, spec := range p.reportSpecs {
		po.Reports = append(po.Reports, publish.ReportFile{Format: spec.Format, Path: spec.Path})
	}
	opens := p.PR && res.Pushed && (res.Outcome == results.OutcomeGreen && len(res.Commits) > 0 || res.Outcome != results.OutcomeGreen && p.PROnRed)
	if opens || p.CheckRun || p.SuggestReview {
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
		base, err := p.prBase(ctx, o, git, s.Getenv)
		if err != nil {
			return fmt.Errorf("--pr: %w", err)
		}
		po.Base = base
	}
	if p.CheckRun {
		po.CheckSHA = p.checkSHA(res, s.Getenv)
	}
	if p.SuggestReview {
		po.ReviewNumber = p.reviewNumber(s.Getenv)
	}
	if po.Forge == nil {
		// Without a forge only the report files are written; what asked
		// for one was reported above.
		po.CheckRun, po.Review = false, false
	}
	_, err := publish.Publish(ctx, res, po)
	return err
}

// runURL links the CI run that healed, when CI tells it.
func runURL(getenv func(string) string) string {
	if s, r, id := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY"), getenv("GITHUB_RUN_ID"); s != "" && r != "" && id != "" {
		return s + "/" + r + "/actions/runs/" + id
	}
	return getenv("CI_JOB_URL")
}

// ciEvent is the CI event payload ($GITHUB_EVENT_PATH), read once; the
// zero Event when there is none.
func (p *prOptions) ciEvent(getenv func(string) string) forge.Event {
	if !p.eventRead {
		p.eventRead = true
		if path := getenv("GITHUB_EVENT_PATH"); path != "" {
			if ev, err := forge.ReadEvent(path); err == nil {
				p.event = &ev
			}
		}
	}
	if p.event == nil {
		return forge.Event{}
	}
	return *p.event
}

// checkSHA is the failing commit: a pull request's head on GitHub pull
// request events (GitHub shows a pull request the checks of its head; the
// workflow built a merge commit nobody sees), else the heal's base commit.
func (p *prOptions) checkSHA(res *results.Results, getenv func(string) string) string {
	if ev := p.ciEvent(getenv); ev.HeadSHA != "" && getenv("GITHUB_SHA") == res.BaseCommit {
		return ev.HeadSHA
	}
	return res.BaseCommit
}

// reviewNumber is the pull request the failing build belongs to:
// --pr-number, else the event's pull request, else GITHUB_REF's.
func (p *prOptions) reviewNumber(getenv func(string) string) int {
	if p.PRNumber > 0 {
		return p.PRNumber
	}
	if ev := p.ciEvent(getenv); ev.Number > 0 {
		return ev.Number
	}
	return sourceRequest(getenv)
}

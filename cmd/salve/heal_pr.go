package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/forge"
	"github.com/salve-dev/salve/gitagent/agent"
	"github.com/salve-dev/salve/heal"
	"github.com/salve-dev/salve/report"
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
	if p.PRBase != "" && agent.ValidateBranchName(p.PRBase) != nil {
		return fmt.Errorf("--pr-base %q is not a branch name", p.PRBase)
	}
	return nil
}

// newForge builds the GitHub or GitLab client from the flags and the CI
// environment. Tokens come from the environment only.
func (p *prOptions) newForge(o *healOptions, getenv func(string) string) (forge.Forge, error) {
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
	api := firstNonEmpty(o.GitHubAPI, getenv("GITHUB_API_URL"))
	repo := firstNonEmpty(o.GitHubRepo, getenv("GITHUB_REPOSITORY"))
	return forge.NewGitHub(forge.GitHubConfig{API: api, Repo: repo, Token: firstNonEmpty(getenv("GITHUB_TOKEN"), getenv("GH_TOKEN"))})
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
func (p *prOptions) prBase(ctx context.Context, o *healOptions, git heal.AgentGit, getenv func(string) string) (string, error) {
	if b := firstNonEmpty(p.PRBase, getenv("GITHUB_HEAD_REF"), getenv("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"), getenv("CI_COMMIT_BRANCH")); b != "" {
		return b, nil
	}
	if getenv("GITHUB_REF_TYPE") == "branch" || (getenv("GITHUB_REF_NAME") != "" && getenv("GITHUB_REF_TYPE") == "") {
		if b := getenv("GITHUB_REF_NAME"); b != "" {
			return b, nil
		}
	}
	b, err := git.Do(ctx, o.Workspace, contract.GitAgentCommandV1{Type: contract.ActionGitRevParse, Ref: agent.RefBranch})
	b = strings.TrimSpace(b)
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
func (p *prOptions) prepare(ctx context.Context, s *streams, o *healOptions, git heal.AgentGit) (string, error) {
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
	f, err := p.newForge(o, s.Getenv)
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

// afterHeal writes the --report file and opens the request. Its errors
// are reported but do not change the heal's own outcome, except that a
// request that was asked for and could not be opened is an error.
func (p *prOptions) afterHeal(ctx context.Context, s *streams, o *healOptions, res *heal.Results, git heal.AgentGit, logger *slog.Logger) error {
	for _, spec := range p.reportSpecs {
		if err := writeReportFile(s, spec, res); err != nil {
			return err
		}
	}
	if !p.PR {
		return nil
	}
	green := res.Outcome == heal.OutcomeGreen
	switch {
	case green && len(res.Commits) == 0:
		fmt.Fprintln(s.Stderr, "salve heal: --pr: the build was green without a fix; no request opened")
		return nil
	case !green && !p.PROnRed:
		fmt.Fprintln(s.Stderr, "salve heal: --pr: the heal stayed red; no request opened (--pr-on-red opens a draft with the analysis)")
		return nil
	case !res.Pushed:
		return fmt.Errorf("--pr: the heal branch %s was not pushed, so there is nothing to open a request from", res.Branch)
	}
	f, err := p.newForge(o, s.Getenv)
	if err != nil {
		return fmt.Errorf("--pr: %w", err)
	}
	base, err := p.prBase(ctx, o, git, s.Getenv)
	if err != nil {
		return fmt.Errorf("--pr: %w", err)
	}
	title, body := heal.PullRequestText(res, runURL(s.Getenv))
	pr, err := f.OpenOrUpdate(ctx, forge.Request{Head: res.Branch, Base: base, Title: title, Body: body, Draft: !green})
	if err != nil {
		return fmt.Errorf("--pr: %w", err)
	}
	verb := "opened"
	if !pr.Created {
		verb = "updated"
	}
	fmt.Fprintf(s.Stderr, "salve heal: %s %s request #%d: %s\n", verb, f.Name(), pr.Number, pr.URL)
	logger.Info("pull request", "forge", f.Name(), "number", pr.Number, "url", pr.URL, "created", pr.Created)
	if n := sourceRequest(s.Getenv); n > 0 && n != pr.Number {
		msg := fmt.Sprintf("salve healed this branch's failing build: see #%d (%s).", pr.Number, pr.URL)
		if !green {
			msg = fmt.Sprintf("salve could not heal this branch's build; its analysis is in draft #%d (%s).", pr.Number, pr.URL)
		}
		if err := f.Comment(ctx, n, msg); err != nil {
			logger.Warn("could not comment on the source request", "number", n, "error", err)
		}
	}
	return nil
}

// runURL links the CI run that healed, when CI tells it.
func runURL(getenv func(string) string) string {
	if s, r, id := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY"), getenv("GITHUB_RUN_ID"); s != "" && r != "" && id != "" {
		return s + "/" + r + "/actions/runs/" + id
	}
	return getenv("CI_JOB_URL")
}

// writeReportFile writes the bug reports of the failing build: every bug
// the heal handled, once, then what remained.
func writeReportFile(s *streams, spec reportSpec, res *heal.Results) error {
	var reports []contract.BugReport
	seen := map[string]bool{}
	add := func(b contract.BugReport) {
		k := fmt.Sprintf("%s|%d|%s", b.FilePath, b.LineNumber, b.Message)
		if !seen[k] {
			seen[k] = true
			reports = append(reports, b)
		}
	}
	for _, b := range res.Bugs {
		add(b.Bug)
	}
	for _, b := range res.Remaining {
		add(b)
	}
	path := spec.Path
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	werr := writeReports(f, s.Stderr, string(spec.Format), reports)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("--report %s: %w", path, werr)
	}
	fmt.Fprintf(s.Stderr, "salve heal: %d bug report(s) written as %s to %s\n", len(reports), spec.Format, path)
	return nil
}

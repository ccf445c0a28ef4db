package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/buildinfo"
	"github.com/salve-dev/salve/internal/gitagent/server"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/adapter"
	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/pullrequest"
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

// afterHeal writes the --report files, opens the request, posts the
// suggestion review and the check run. Its errors are reported but do not
// change the heal's own outcome, except that a request that was asked for
// and could not be opened is an error.
func (p *prOptions) afterHeal(ctx context.Context, s *streams, o *healOptions, res *heal.Results, git adapter.Git, logger *slog.Logger) error {
	for _, spec := range p.reportSpecs {
		if err := writeReportFile(s, spec, res); err != nil {
			return err
		}
	}
	var pr *forge.PullRequest
	var prErr error
	if p.PR {
		pr, prErr = p.openRequest(ctx, s, o, res, git, logger)
	}
	reviewed := false
	if p.SuggestReview {
		reviewed = p.suggestReview(ctx, s, o, res, pr, logger)
	}
	if pr != nil && !reviewed {
		p.linkSource(ctx, s, res, pr, logger)
	}
	if p.CheckRun {
		p.postCheck(ctx, s, o, res, pr, logger)
	}
	return prErr
}

// openRequest opens or updates the pull or merge request of a pushed
// heal; nil when there is nothing to open.
func (p *prOptions) openRequest(ctx context.Context, s *streams, o *healOptions, res *heal.Results, git adapter.Git, logger *slog.Logger) (*forge.PullRequest, error) {
	green := res.Outcome == heal.OutcomeGreen
	switch {
	case green && len(res.Commits) == 0:
		fmt.Fprintln(s.Stderr, "salve heal: --pr: the build was green without a fix; no request opened")
		return nil, nil
	case !green && !p.PROnRed:
		fmt.Fprintln(s.Stderr, "salve heal: --pr: the heal stayed red; no request opened (--pr-on-red opens a draft with the analysis)")
		return nil, nil
	case !res.Pushed:
		return nil, fmt.Errorf("--pr: the heal branch %s was not pushed, so there is nothing to open a request from", res.Branch)
	}
	f, err := p.newForge(o, s)
	if err != nil {
		return nil, fmt.Errorf("--pr: %w", err)
	}
	base, err := p.prBase(ctx, o, git, s.Getenv)
	if err != nil {
		return nil, fmt.Errorf("--pr: %w", err)
	}
	pr, err := pullrequest.Open(ctx, f, res, res.Branch, base, runURL(s.Getenv))
	if err != nil {
		return nil, fmt.Errorf("--pr: %w", err)
	}
	verb := "opened"
	if !pr.Created {
		verb = "updated"
	}
	fmt.Fprintf(s.Stderr, "salve heal: %s %s request #%d: %s\n", verb, f.Name(), pr.Number, pr.URL)
	logger.Info("pull request", "forge", f.Name(), "number", pr.Number, "url", pr.URL, "created", pr.Created)
	return &pr, nil
}

// linkSource comments on the request whose branch was healed with a link
// to salve's request.
func (p *prOptions) linkSource(ctx context.Context, s *streams, res *heal.Results, pr *forge.PullRequest, logger *slog.Logger) {
	n := sourceRequest(s.Getenv)
	if n <= 0 || n == pr.Number || p.fg == nil {
		return
	}
	msg := fmt.Sprintf("salve healed this branch's failing build: see #%d (%s).", pr.Number, pr.URL)
	if res.Outcome != heal.OutcomeGreen {
		msg = fmt.Sprintf("salve could not heal this branch's build; its analysis is in draft #%d (%s).", pr.Number, pr.URL)
	}
	if err := p.fg.Comment(ctx, n, msg); err != nil {
		logger.Warn("could not comment on the source request", "number", n, "error", err)
	}
}

// runURL links the CI run that healed, when CI tells it.
func runURL(getenv func(string) string) string {
	if s, r, id := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY"), getenv("GITHUB_RUN_ID"); s != "" && r != "" && id != "" {
		return s + "/" + r + "/actions/runs/" + id
	}
	return getenv("CI_JOB_URL")
}

// writeReportFile writes the bug reports of the failing build: every bug
// the heal handled, once, then what remained. rdjson and rdjsonl carry the
// verified fixes as suggestions.
func writeReportFile(s *streams, spec reportSpec, res *heal.Results) error {
	reports, fixes, _ := failingReports(res)
	path := spec.Path
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	werr := report.Write(f, spec.Format, reports, report.Options{
		ToolName:       "salve",
		ToolVersion:    buildinfo.Version(version),
		InformationURI: "https://github.com/salve-dev/salve",
		Warn:           func(msg string) { fmt.Fprintf(s.Stderr, "salve: warning: %s\n", msg) },
		Fixes:          fixes,
	})
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("--report %s: %w", path, werr)
	}
	fmt.Fprintf(s.Stderr, "salve heal: %d bug report(s) written as %s to %s\n", len(reports), spec.Format, path)
	return nil
}

// failingReports returns the bug reports of the failing build (every bug
// the heal handled, once, then what remained), the verified fix of each
// fixed one as line edits keyed by its index, and its fix line.
func failingReports(res *heal.Results) ([]contract.BugReport, map[int][]report.Fix, map[int]string) {
	var reports []contract.BugReport
	index := map[string]int{}
	add := func(b contract.BugReport) int {
		k := fmt.Sprintf("%s|%d|%s", b.FilePath, b.LineNumber, b.Message)
		if i, ok := index[k]; ok {
			return i
		}
		index[k] = len(reports)
		reports = append(reports, b)
		return len(reports) - 1
	}
	lines := map[int]string{}
	byDiff := map[string][]int{} // a fix's diff: the reports it fixed
	var diffs []string
	for _, b := range res.Bugs {
		i := add(b.Bug)
		if b.Status != heal.StatusFixed {
			continue
		}
		lines[i] = b.Line
		if b.Diff != "" {
			if _, ok := byDiff[b.Diff]; !ok {
				diffs = append(diffs, b.Diff)
			}
			byDiff[b.Diff] = append(byDiff[b.Diff], i)
		}
	}
	for _, b := range res.Remaining {
		add(b)
	}
	fixes := map[int][]report.Fix{}
	for _, d := range diffs {
		for _, c := range forge.Changes(d) {
			if i := nearestReport(reports, byDiff[d], c); i >= 0 {
				fixes[i] = append(fixes[i], report.Fix{StartLine: c.OldStart, EndLine: c.OldStart + len(c.Old) - 1, Lines: c.New})
			}
		}
	}
	return reports, fixes, lines
}

// nearestReport returns which of the reports idx (those a fix fixed) in
// the changed file is nearest to the change, or -1: the gate keeps a fix
// within a few lines of its report.
func nearestReport(reports []contract.BugReport, idx []int, c forge.Change) int {
	best, dist := -1, 0
	for _, i := range idx {
		r := reports[i]
		if strings.TrimPrefix(r.FilePath, "./") != c.Path {
			continue
		}
		if d := abs(r.LineNumber - c.OldStart); best < 0 || d < dist {
			best, dist = i, d
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
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

// checkConclusion maps a heal's outcome to the conclusion of its check run
// on the failing commit: success when salve healed it, neutral when there
// was nothing to heal for sure (flaky tests; fixes that passed locally
// with no verdict from CI), cancelled when interrupted, else failure.
var checkConclusion = map[string]string{
	heal.OutcomeGreen:       forge.ConclusionSuccess,
	heal.OutcomeFlaky:       forge.ConclusionNeutral,
	heal.OutcomeNoSignal:    forge.ConclusionNeutral,
	heal.OutcomeInterrupted: forge.ConclusionCancelled,
	heal.OutcomeRed:         forge.ConclusionFailure,
	heal.OutcomeEnvironment: forge.ConclusionFailure,
	heal.OutcomeError:       forge.ConclusionFailure,
}

// annotationLevel maps report.Severity to a check run annotation level.
var annotationLevel = map[string]string{"error": forge.LevelFailure, "warning": forge.LevelWarning, "note": forge.LevelNotice}

// checkTitle is the one-line headline of the check run.
func checkTitle(res *heal.Results) string {
	fixed := len(res.FixLines())
	switch res.Outcome {
	case heal.OutcomeGreen:
		if fixed == 0 {
			return "salve: the build is green without a fix"
		}
		return fmt.Sprintf("salve healed the build: %d bug(s) fixed", fixed)
	case heal.OutcomeFlaky:
		return "salve: flaky, the failing tests passed when run again"
	case heal.OutcomeNoSignal:
		return "salve: the fixes pass locally; CI gave no verdict"
	}
	return "salve could not heal the build: " + oneLineText(res.Reason, 200)
}

func oneLineText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// checkSHA is the failing commit: a pull request's head on GitHub pull
// request events (GitHub shows a pull request the checks of its head; the
// workflow built a merge commit nobody sees), else the heal's base commit.
func (p *prOptions) checkSHA(res *heal.Results, getenv func(string) string) string {
	if ev := p.ciEvent(getenv); ev.HeadSHA != "" && getenv("GITHUB_SHA") == res.BaseCommit {
		return ev.HeadSHA
	}
	return res.BaseCommit
}

// postCheck reports the heal on the failing commit; failures are warnings.
func (p *prOptions) postCheck(ctx context.Context, s *streams, o *healOptions, res *heal.Results, pr *forge.PullRequest, logger *slog.Logger) {
	f, err := p.newForge(o, s)
	if err != nil {
		fmt.Fprintf(s.Stderr, "salve heal: --check-run: %v\n", err)
		return
	}
	reports, _, lines := failingReports(res)
	var anns []forge.Annotation
	for i, r := range reports {
		msg := r.Message
		if l, ok := lines[i]; ok {
			msg += "\n\nsalve: " + l
		}
		anns = append(anns, forge.Annotation{Path: r.FilePath, StartLine: r.LineNumber, Level: annotationLevel[report.Severity(r)],
			Title: strings.TrimSpace(string(r.ErrorType) + " " + r.Tool), Message: msg})
	}
	conclusion := checkConclusion[res.Outcome]
	if conclusion == "" {
		conclusion = forge.ConclusionFailure
	}
	req := forge.CheckRequest{SHA: p.checkSHA(res, s.Getenv), Conclusion: conclusion, Title: checkTitle(res),
		Summary: checkSummary(res, pr), DetailsURL: runURL(s.Getenv), Ref: s.Getenv("CI_COMMIT_REF_NAME"), Annotations: anns}
	if req.DetailsURL == "" && pr != nil {
		req.DetailsURL = pr.URL
	}
	run, err := f.Check(ctx, req)
	if err != nil {
		fmt.Fprintf(s.Stderr, "salve heal: --check-run: %v\n", err)
		return
	}
	fmt.Fprintf(s.Stderr, "salve heal: %s check %q on %s: %s (%d annotation(s))\n", f.Name(), forge.DefaultCheckName, shortSHA(req.SHA), conclusion, run.Annotations)
	logger.Info("check run", "forge", f.Name(), "sha", req.SHA, "conclusion", conclusion, "id", run.ID, "annotations", run.Annotations, "dropped", run.Dropped)
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// checkSummary is the check run's Markdown body: the fix lines, the tally
// by error type, and where the fix is.
func checkSummary(res *heal.Results, pr *forge.PullRequest) string {
	var b strings.Builder
	if lines := res.FixLines(); len(lines) > 0 {
		b.WriteString("### Fixes\n\n")
		for _, l := range lines {
			b.WriteString("- " + l + "\n")
		}
		b.WriteString("\n")
	}
	if len(res.ByType) > 0 {
		types := make([]string, 0, len(res.ByType))
		for t := range res.ByType {
			types = append(types, t)
		}
		sort.Strings(types)
		b.WriteString("| type | found | fixed | rejected | flaky | left |\n|---|---|---|---|---|---|\n")
		for _, t := range types {
			r := res.ByType[t]
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d |\n", t, r.Found, r.Fixed, r.Rejected, r.Flaky, r.Left)
		}
		b.WriteString("\n")
	}
	if pr != nil {
		fmt.Fprintf(&b, "The fix is in #%d (%s).\n", pr.Number, pr.URL)
	} else if res.Reason != "" {
		b.WriteString(oneLineText(res.Reason, 1000) + "\n")
	}
	if b.Len() == 0 {
		b.WriteString(checkTitle(res))
	}
	return b.String()
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

// suggestReview posts the verified fixes as suggestions on the pull
// request of the failing build; it reports whether it did. Failures are
// warnings.
func (p *prOptions) suggestReview(ctx context.Context, s *streams, o *healOptions, res *heal.Results, pr *forge.PullRequest, logger *slog.Logger) bool {
	warn := func(format string, args ...any) bool {
		fmt.Fprintf(s.Stderr, "salve heal: --suggest-review: "+format+"\n", args...)
		return false
	}
	n := p.reviewNumber(s.Getenv)
	if n <= 0 {
		return warn("this build belongs to no pull request (give --pr-number)")
	}
	var patches []string
	seen := map[string]bool{}
	for _, b := range res.Bugs {
		if b.Status == heal.StatusFixed && b.Diff != "" && !seen[b.Diff] {
			seen[b.Diff] = true
			patches = append(patches, b.Diff)
		}
	}
	if len(patches) == 0 {
		return warn("no verified fix to suggest")
	}
	f, err := p.newForge(o, s)
	if err != nil {
		return warn("%v", err)
	}
	g, ok := f.(*forge.GitHub)
	if !ok {
		return warn("%s takes no suggestions; only GitHub does", f.Name())
	}
	head, err := g.Pull(ctx, n)
	if err != nil {
		return warn("%v", err)
	}
	files, err := g.PullFiles(ctx, n)
	if err != nil {
		return warn("%v", err)
	}
	sg := forge.Suggestions(patches, files)
	intro := fmt.Sprintf("salve fixed %d bug(s) of this pull request's failing build; every fix passed salve's gate and the build was re-run on it.", len(res.FixLines()))
	if pr != nil {
		intro += fmt.Sprintf(" The same fix is in #%d (%s).", pr.Number, pr.URL)
	}
	if u := runURL(s.Getenv); u != "" {
		intro += " [Run record](" + u + ")."
	}
	_, url, err := g.Review(ctx, n, forge.Review{CommitID: head.HeadSHA, Body: sg.Body(intro), Comments: sg.Comments})
	if err != nil {
		return warn("%v", err)
	}
	fmt.Fprintf(s.Stderr, "salve heal: suggested %d change(s) on pull request #%d (%d in the review's text): %s\n", len(sg.Comments), n, len(sg.Outside), url)
	logger.Info("suggestion review", "number", n, "suggestions", len(sg.Comments), "outside", len(sg.Outside))
	return true
}

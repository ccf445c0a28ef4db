// Package publish does what happens after a heal, the same way for every
// door (salve heal, the MCP heal tool, the queue worker): it writes the
// report files, opens or updates the pull or merge request, comments on
// the request whose branch was healed, posts the suggestion review and
// the check run or commit status. The caller says what to do (Options)
// and gives the forge client; where the answers come from (flags, a CI
// environment, a job) stays with the caller.
package publish

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/report"
	"github.com/salve-dev/salve/internal/heal/results"
)

// Options say what to publish of a heal. The zero value publishes
// nothing; every door has the same defaults.
type Options struct {
	// Forge is the client of the repository's forge; nil when no option
	// below needs one.
	Forge forge.Forge
	// Request opens (or updates) a pull or merge request from the pushed
	// heal branch into Base after a green heal with commits; OnRed also
	// opens a draft with the analysis when the heal stays red.
	Request bool
	OnRed   bool
	Base    string
	// SourceRequest is the request whose branch was healed (0: none): it
	// gets a comment linking salve's request.
	SourceRequest int
	// CheckRun reports the heal on CheckSHA (empty: the heal's base
	// commit): a GitHub check run with one annotation per bug, or a
	// GitLab commit status on CheckRef.
	CheckRun bool
	CheckSHA string
	CheckRef string
	// Review posts the verified fixes as suggestions on pull request
	// ReviewNumber, the one the failing build belongs to (GitHub).
	Review       bool
	ReviewNumber int
	// RunURL links the run's record (a CI run, a job).
	RunURL string
	// Reports are the report files to write.
	Reports []ReportFile
	// ToolVersion is salve's version, in the report files.
	ToolVersion string
	// Out receives one line per thing done or not done, for a person;
	// nil discards them. Logger receives the records; nil discards them.
	Out    io.Writer
	Logger *slog.Logger
}

// ReportFile is one report file: a format and its path.
type ReportFile struct {
	Format report.Format
	Path   string
}

// Published is what was published.
type Published struct {
	// PR is the request opened or updated; nil when none was.
	PR *forge.PullRequest
	// Reviewed says the suggestion review was posted.
	Reviewed bool
	// Check is the check run or status posted; nil when none was.
	Check *forge.CheckRun
	// Warnings say what was asked for and not done (an error of the
	// forge), besides the request's own error.
	Warnings []string
}

// Opens says whether Publish opens (or updates) a request for res: one
// was asked for, the heal branch was pushed, and the heal is green with
// commits, or red with OnRed.
func (o Options) Opens(res *results.Results) bool {
	green := res.Outcome == results.OutcomeGreen
	return o.Request && res.Pushed && (green && len(res.Commits) > 0 || !green && o.OnRed)
}

// NeedsForge says whether publishing res needs a forge client.
func (o Options) NeedsForge(res *results.Results) bool {
	return o.Opens(res) || o.CheckRun || o.Review
}

// Publish publishes res as o says. A report file that cannot be written
// and a request that was asked for and could not be opened are errors;
// the rest are warnings, in Published and on o.Out.
func Publish(ctx context.Context, res *results.Results, o Options) (Published, error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	var out Published
	for _, spec := range o.Reports {
		if err := writeReportFile(o, spec, res); err != nil {
			return out, err
		}
	}
	var prErr error
	if o.Request {
		out.PR, prErr = openRequest(ctx, o, res)
	}
	if o.Review {
		out.Reviewed = suggestReview(ctx, o, res, out.PR, &out)
	}
	if out.PR != nil && !out.Reviewed {
		linkSource(ctx, o, res, out.PR)
	}
	if o.CheckRun {
		out.Check = postCheck(ctx, o, res, out.PR, &out)
	}
	return out, prErr
}

// warn records a warning and shows it.
func (p *Published) warn(o Options, what string, err error) {
	msg := what + ": " + err.Error()
	p.Warnings = append(p.Warnings, msg)
	fmt.Fprintf(o.Out, "salve heal: %s\n", msg)
}

// openRequest opens or updates the request of a pushed heal; nil when
// there is nothing to open.
func openRequest(ctx context.Context, o Options, res *results.Results) (*forge.PullRequest, error) {
	green := res.Outcome == results.OutcomeGreen
	switch {
	case green && len(res.Commits) == 0:
		fmt.Fprintln(o.Out, "salve heal: --pr: the build was green without a fix; no request opened")
		return nil, nil
	case !green && !o.OnRed:
		fmt.Fprintln(o.Out, "salve heal: --pr: the heal stayed red; no request opened (--pr-on-red opens a draft with the analysis)")
		return nil, nil
	case !res.Pushed:
		return nil, fmt.Errorf("--pr: the heal branch %s was not pushed, so there is nothing to open a request from", res.Branch)
	case o.Forge == nil:
		return nil, fmt.Errorf("--pr: no forge to open the request on")
	}
	title, body := results.PullRequestText(res, o.RunURL)
	pr, err := o.Forge.OpenOrUpdate(ctx, forge.Request{Head: res.Branch, Base: o.Base, Title: title, Body: body, Draft: !green})
	if err != nil {
		return nil, fmt.Errorf("--pr: %w", err)
	}
	verb := "opened"
	if !pr.Created {
		verb = "updated"
	}
	fmt.Fprintf(o.Out, "salve heal: %s %s request #%d: %s\n", verb, o.Forge.Name(), pr.Number, pr.URL)
	o.Logger.Info("pull request", "forge", o.Forge.Name(), "number", pr.Number, "url", pr.URL, "created", pr.Created)
	return &pr, nil
}

// linkSource comments on the request whose branch was healed with a link
// to salve's request.
func linkSource(ctx context.Context, o Options, res *results.Results, pr *forge.PullRequest) {
	n := o.SourceRequest
	if n <= 0 || n == pr.Number || o.Forge == nil {
		return
	}
	msg := fmt.Sprintf("salve healed this branch's failing build: see #%d (%s).", pr.Number, pr.URL)
	if res.Outcome != results.OutcomeGreen {
		msg = fmt.Sprintf("salve could not heal this branch's build; its analysis is in draft #%d (%s).", pr.Number, pr.URL)
	}
	if err := o.Forge.Comment(ctx, n, msg); err != nil {
		o.Logger.Warn("could not comment on the source request", "number", n, "error", err)
	}
}

// writeReportFile writes the bug reports of the failing build: every bug
// the heal handled, once, then what remained. rdjson and rdjsonl carry the
// verified fixes as suggestions.
func writeReportFile(o Options, spec ReportFile, res *results.Results) error {
	reports, fixes, _ := FailingReports(res)
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
		ToolVersion:    o.ToolVersion,
		InformationURI: "https://github.com/salve-dev/salve",
		Warn:           func(msg string) { fmt.Fprintf(o.Out, "salve: warning: %s\n", msg) },
		Fixes:          fixes,
	})
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("--report %s: %w", path, werr)
	}
	fmt.Fprintf(o.Out, "salve heal: %d bug report(s) written as %s to %s\n", len(reports), spec.Format, path)
	return nil
}

// FailingReports returns the bug reports of the failing build (every bug
// the heal handled, once, then what remained), the verified fix of each
// fixed one as line edits keyed by its index, and its fix line.
func FailingReports(res *results.Results) ([]contract.BugReport, map[int][]report.Fix, map[int]string) {
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
		if b.Status != results.StatusFixed {
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

// checkConclusion maps a heal's outcome to the conclusion of its check run
// on the failing commit: success when salve healed it, neutral when there
// was nothing to heal for sure (flaky tests; fixes that passed locally
// with no verdict from CI), cancelled when interrupted, else failure.
var checkConclusion = map[string]string{
	results.OutcomeGreen:       forge.ConclusionSuccess,
	results.OutcomeFlaky:       forge.ConclusionNeutral,
	results.OutcomeNoSignal:    forge.ConclusionNeutral,
	results.OutcomeInterrupted: forge.ConclusionCancelled,
	results.OutcomeRed:         forge.ConclusionFailure,
	results.OutcomeEnvironment: forge.ConclusionFailure,
	results.OutcomeError:       forge.ConclusionFailure,
}

// annotationLevel maps report.Severity to a check run annotation level.
var annotationLevel = map[string]string{"error": forge.LevelFailure, "warning": forge.LevelWarning, "note": forge.LevelNotice}

// CheckTitle is the one-line headline of the check run.
func CheckTitle(res *results.Results) string {
	fixed := len(res.FixLines())
	switch res.Outcome {
	case results.OutcomeGreen:
		if fixed == 0 {
			return "salve: the build is green without a fix"
		}
		return fmt.Sprintf("salve healed the build: %d bug(s) fixed", fixed)
	case results.OutcomeFlaky:
		return "salve: flaky, the failing tests passed when run again"
	case results.OutcomeNoSignal:
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

// postCheck reports the heal on the failing commit; failures are warnings.
func postCheck(ctx context.Context, o Options, res *results.Results, pr *forge.PullRequest, out *Published) *forge.CheckRun {
	if o.Forge == nil {
		out.warn(o, "--check-run", fmt.Errorf("no forge to post the check on"))
		return nil
	}
	reports, _, lines := FailingReports(res)
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
	sha := o.CheckSHA
	if sha == "" {
		sha = res.BaseCommit
	}
	req := forge.CheckRequest{SHA: sha, Conclusion: conclusion, Title: CheckTitle(res),
		Summary: CheckSummary(res, pr), DetailsURL: o.RunURL, Ref: o.CheckRef, Annotations: anns}
	if req.DetailsURL == "" && pr != nil {
		req.DetailsURL = pr.URL
	}
	run, err := o.Forge.Check(ctx, req)
	if err != nil {
		out.warn(o, "--check-run", err)
		return nil
	}
	fmt.Fprintf(o.Out, "salve heal: %s check %q on %s: %s (%d annotation(s))\n", o.Forge.Name(), forge.DefaultCheckName, shortSHA(req.SHA), conclusion, run.Annotations)
	o.Logger.Info("check run", "forge", o.Forge.Name(), "sha", req.SHA, "conclusion", conclusion, "id", run.ID, "annotations", run.Annotations, "dropped", run.Dropped)
	return &run
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// CheckSummary is the check run's Markdown body: the fix lines, the tally
// by error type, and where the fix is.
func CheckSummary(res *results.Results, pr *forge.PullRequest) string {
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
		b.WriteString(CheckTitle(res))
	}
	return b.String()
}

// suggestReview posts the verified fixes as suggestions on the pull
// request of the failing build; it reports whether it did. Failures are
// warnings.
func suggestReview(ctx context.Context, o Options, res *results.Results, pr *forge.PullRequest, out *Published) bool {
	warn := func(err error) bool {
		out.warn(o, "--suggest-review", err)
		return false
	}
	n := o.ReviewNumber
	if n <= 0 {
		return warn(fmt.Errorf("this build belongs to no pull request (give --pr-number)"))
	}
	var patches []string
	seen := map[string]bool{}
	for _, b := range res.Bugs {
		if b.Status == results.StatusFixed && b.Diff != "" && !seen[b.Diff] {
			seen[b.Diff] = true
			patches = append(patches, b.Diff)
		}
	}
	if len(patches) == 0 {
		return warn(fmt.Errorf("no verified fix to suggest"))
	}
	if o.Forge == nil {
		return warn(fmt.Errorf("no forge to post the review on"))
	}
	g, ok := o.Forge.(*forge.GitHub)
	if !ok {
		return warn(fmt.Errorf("%s takes no suggestions; only GitHub does", o.Forge.Name()))
	}
	head, err := g.Pull(ctx, n)
	if err != nil {
		return warn(err)
	}
	files, err := g.PullFiles(ctx, n)
	if err != nil {
		return warn(err)
	}
	sg := forge.Suggestions(patches, files)
	intro := fmt.Sprintf("salve fixed %d bug(s) of this pull request's failing build; every fix passed salve's gate and the build was re-run on it.", len(res.FixLines()))
	if pr != nil {
		intro += fmt.Sprintf(" The same fix is in #%d (%s).", pr.Number, pr.URL)
	}
	if o.RunURL != "" {
		intro += " [Run record](" + o.RunURL + ")."
	}
	_, url, err := g.Review(ctx, n, forge.Review{CommitID: head.HeadSHA, Body: sg.Body(intro), Comments: sg.Comments})
	if err != nil {
		return warn(err)
	}
	fmt.Fprintf(o.Out, "salve heal: suggested %d change(s) on pull request #%d (%d in the review's text): %s\n", len(sg.Comments), n, len(sg.Outside), url)
	o.Logger.Info("suggestion review", "number", n, "suggestions", len(sg.Comments), "outside", len(sg.Outside))
	return true
}

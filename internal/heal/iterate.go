package heal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/internal/safefile"
)

// applied is one accepted fix written to the worktree.
type applied struct {
	path     string
	abs      string
	original string
	patched  string
	result   contract.FixResult
	decision GateDecision
	bugs     []int // indexes into r.res.Bugs
	// more are the other files of a fix that spans files (an
	// investigator's); they share result and bugs.
	more []applied
	// key is the path the group's previous_attempt_info is kept under,
	// when it is not path.
	key string
}

// diff is the fix's unified diff, every file's.
func (f applied) diff() string {
	var b strings.Builder
	for _, x := range f.files() {
		b.WriteString(x.decision.Diff)
	}
	return b.String()
}

// files returns the fix's files, path first.
func (f applied) files() []applied {
	return append([]applied{f}, f.more...)
}

// prevKey is the path the fix's previous_attempt_info is kept under.
func (f applied) prevKey() string {
	if f.key != "" {
		return f.key
	}
	return f.path
}

// paths returns the paths of the fix's files.
func (f applied) paths() []string {
	out := make([]string, 0, 1+len(f.more))
	for _, x := range f.files() {
		out = append(out, x.path)
	}
	return out
}

// iterate runs one iteration over the bugs of the current build. It returns
// the next build to work on, or a non-empty stop reason when the loop
// cannot go on.
func (r *run) iterate(ctx context.Context, iter int, cur contract.ExecutorOutput, before []contract.BugReport) (contract.ExecutorOutput, string, error) {
	r.planProof(cur, before)
	r.cur = cur
	var fixes []applied
	for _, group := range GroupByFile(before) {
		a, err := r.fixGroup(ctx, iter, group)
		if err != nil {
			return cur, "", err
		}
		if a != nil {
			fixes = append(fixes, *a)
		}
	}
	if len(fixes) == 0 {
		return cur, "no fixer produced an acceptable fix", nil
	}
	verify, err := r.build(ctx, iter, results.StageVerify)
	if err != nil {
		why := "the verification build could not run"
		if ctx.Err() != nil {
			why = "the heal was interrupted before the fix was verified; nothing was committed for it"
		}
		if r.res.Environment != nil {
			why = "the verification build failed because of its environment: " + r.res.Environment.Evidence
		}
		r.revert(fixes, iter, why)
		return cur, "", err
	}
	after := r.parse(verify)
	fixes, verify, after, err = r.keepProgress(ctx, iter, before, fixes, verify, after)
	if err != nil {
		return cur, "", err
	}
	if len(fixes) == 0 {
		return cur, "", nil
	}
	if verify.ExitCode == 0 {
		why, err := r.prove(ctx, iter, verify)
		if err != nil {
			r.revert(fixes, iter, "the proof run could not run")
			return cur, "", err
		}
		if why != "" {
			r.revert(fixes, iter, why)
			if r.proof.plan.Proof == "" {
				// No run of this runner can prove a pass: asking the
				// fixers again cannot change that.
				return cur, why, nil
			}
			return cur, "", nil
		}
	}
	if err := r.commit(ctx, iter, fixes, after); err != nil {
		return cur, "", err
	}
	if err := r.push(ctx, iter); err != nil {
		return cur, "", err
	}
	r.o.Progress.Stage(iter, results.StageCI, r.fixedN)
	stop := r.timed(results.StageCI)
	v, err := r.o.CI.Verdict(ctx, CITarget{Workspace: r.ws, Branch: r.o.Branch, Commit: r.res.HeadCommit, Build: &verify, Pushed: r.res.Pushed})
	stop()
	if err != nil {
		return cur, "", fmt.Errorf("heal: ci verdict for %s: %w", r.res.HeadCommit, err)
	}
	r.res.CI = &v
	if v.Build != nil {
		verify = *v.Build
		if verify.ExitCode != 0 || verify.EnvironmentMetadata.TimedOut {
			// The monitor's own re-run is judged like every build: an
			// environment failure there stops the run before any fix.
			if err := r.environment(verify); err != nil {
				return cur, "", err
			}
		}
	}
	r.o.Logger.Info("ci verdict", "iteration", iter, "green", v.Green, "source", v.Source, "detail", v.Detail)
	return verify, "", nil
}

// bugKey identifies a bug across builds (results.Key).
func bugKey(b contract.BugReport) string { return results.Key(b) }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// stillThere reports whether a bug the fix targeted is reported after it.
// A target in another file (a failing test whose fix went to the code
// under test) keeps its line.
func (f applied) stillThere(bug contract.BugReport, after []contract.BugReport) bool {
	for _, x := range f.files() {
		if bug.FilePath == x.path {
			return stillThere(bug, x.decision.Hunks, after)
		}
	}
	return reportedIn(bug, bug.LineNumber, bug.LineNumber, after)
}

// reverted is a fix that was written, verified and taken back.
type reverted struct {
	iter int
	why  string
}

// revert restores the original content of every applied fix and records
// why, feeding previous_attempt_info.
func (r *run) revert(fixes []applied, iter int, why string) {
	for _, f := range fixes {
		for _, x := range f.files() {
			if err := writeFileKeepMode(x.abs, x.original); err != nil {
				r.o.Logger.Error("could not revert a fix", "path", x.path, "error", err)
			}
			if r.tried[x.path] == nil {
				r.tried[x.path] = map[string]reverted{}
			}
			r.tried[x.path][hash(x.patched)] = reverted{iter: iter, why: why}
		}
		for _, i := range f.bugs {
			b := &r.res.Bugs[i]
			b.Status, b.Reason = results.StatusFailed, "reverted: "+why
			b.Line = results.FormatFixLine(b.Bug, results.UnfixedReason(results.StatusFailed, b.Reason))
			if n := len(b.Attempts); n > 0 && b.Attempts[n-1].Outcome == results.AttemptAccepted {
				// Attempts is shared by the group: copy before changing it.
				b.Attempts = append([]results.Attempt(nil), b.Attempts...)
				b.Attempts[n-1].Outcome, b.Attempts[n-1].Reason = results.AttemptReverted, why
			}
		}
		r.prev[f.prevKey()] = attemptInfo(iter, f.result, "reverted", why, f.diff())
	}
	r.o.Logger.Info("fixes reverted", "iteration", iter, "reason", why)
}

// commit commits each accepted fix through the Git Agent and sets the
// status of its bugs from the verification build.
func (r *run) commit(ctx context.Context, iter int, fixes []applied, after []contract.BugReport) error {
	r.o.Progress.Stage(iter, results.StageCommit, r.fixedN)
	defer r.timed(results.StageCommit)()
	for _, f := range fixes {
		// Settle first, so the commit message carries each bug's real
		// line: its fix, or why the error is still there.
		var lines []string
		for _, i := range f.bugs {
			r.settle(&r.res.Bugs[i], f.stillThere(r.res.Bugs[i].Bug, after), f)
			lines = append(lines, r.res.Bugs[i].Line)
		}
		msg := commitMessage(f, lines, r.o.RunID)
		h, err := r.guard.Commit(ctx, r.ws, f.paths(), msg)
		if err != nil {
			return fmt.Errorf("heal: commit fix of %s: %w", strings.Join(f.paths(), ", "), err)
		}
		r.res.HeadCommit = h
		r.res.Commits = append(r.res.Commits, results.Commit{Hash: h, Message: firstLine(msg), Files: f.paths(), Iteration: iter})
		for _, i := range f.bugs {
			r.res.Bugs[i].Commit = h
		}
	}
	return nil
}

// commitMessage is the message of the commit of one fix: a subject, the
// output_formatter's line of every bug it addresses, the fixer and its
// confidence, and the run.
func commitMessage(f applied, lines []string, runID string) string {
	return fmt.Sprintf("salve heal: fix %s\n\n%s\n\nFixer: %s (confidence %.2f)\nRun: %s\n",
		strings.Join(f.paths(), ", "), strings.Join(lines, "\n"), f.result.Fixer, f.result.ConfidenceScore, runID)
}

// stillThere reports whether bug is reported again after a fix whose hunks
// are given: the same error on the line the bug's line moved to, or on a
// line the fix rewrote.
func stillThere(bug contract.BugReport, hunks []Hunk, after []contract.BugReport) bool {
	lo, hi := mapLine(hunks, bug.LineNumber)
	return reportedIn(bug, lo, hi, after)
}

// reportedIn reports whether after holds bug's error on a line lo..hi of
// its file.
func reportedIn(bug contract.BugReport, lo, hi int, after []contract.BugReport) bool {
	key := bugKey(bug)
	for _, a := range after {
		if bugKey(a) == key && a.LineNumber >= lo && a.LineNumber <= hi {
			return true
		}
	}
	return false
}

// mapLine maps an original line through hunks to the new file: one line
// when it was untouched, the range of the replacement when it was edited.
func mapLine(hunks []Hunk, line int) (int, int) {
	shift := 0
	for _, h := range hunks {
		end := h.OldStart + len(h.Old) - 1
		switch {
		case line < h.OldStart:
			return line + shift, line + shift
		case line <= end:
			lo := h.OldStart + shift
			return lo, max(lo, lo+len(h.New)-1)
		}
		shift += len(h.New) - len(h.Old)
	}
	return line + shift, line + shift
}

// settle gives a committed bug its final status.
func (r *run) settle(b *results.BugResult, still bool, f applied) {
	if still {
		b.Status, b.Reason = results.StatusFailed, "still reported after the fix"
		b.Line = results.FormatFixLine(b.Bug, results.UnfixedReason(results.StatusFailed, b.Reason))
		r.prev[f.prevKey()] = attemptInfo(b.Iteration, f.result, "still_failing", b.Reason, f.diff())
		return
	}
	b.Status = results.StatusFixed
	group := make([]contract.BugReport, len(f.bugs))
	for i, j := range f.bugs {
		group[i] = r.res.Bugs[j].Bug
	}
	b.Line = results.FormatFixLine(b.Bug, reasonFor(b.Bug, group, f.result.FixReason))
	r.fixedN++
	r.o.Logger.Info("fixed", "line", b.Line)
}

// push pushes the heal branch when asked to.
func (r *run) push(ctx context.Context, iter int) error {
	if !r.o.Push {
		return nil
	}
	r.o.Progress.Stage(iter, results.StagePush, r.fixedN)
	defer r.timed(results.StagePush)()
	var err error
	if r.o.PushLease != "" && !r.res.Pushed {
		err = r.guard.PushLease(ctx, r.ws, r.o.Remote, r.o.Branch, r.o.PushLease)
	} else {
		err = r.guard.Push(ctx, r.ws, r.o.Remote, r.o.Branch)
	}
	if err != nil {
		return fmt.Errorf("heal: push %s to %s: %w", r.o.Branch, r.o.Remote, err)
	}
	r.res.Pushed, r.res.Remote = true, r.o.Remote
	return nil
}

// GroupByFile groups reports per file, in the order files first appear,
// each group sorted by line: the groups heal fixes one at a time (and
// salve fix too).
func GroupByFile(bugs []contract.BugReport) [][]contract.BugReport {
	idx := map[string]int{}
	var groups [][]contract.BugReport
	for _, b := range bugs {
		i, ok := idx[b.FilePath]
		if !ok {
			i = len(groups)
			idx[b.FilePath] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], b)
	}
	for _, g := range groups {
		sort.SliceStable(g, func(a, b int) bool { return g[a].LineNumber < g[b].LineNumber })
	}
	return groups
}

// attemptInfo builds the previous_attempt_info of a failed attempt.
func attemptInfo(iter int, res contract.FixResult, outcome, reason, diff string) map[string]any {
	return map[string]any{
		"iteration":        iter,
		"fixer":            res.Fixer,
		"fix_reason":       res.FixReason,
		"confidence_score": res.ConfidenceScore,
		"outcome":          outcome,
		"reason":           reason,
		"diff":             diff,
	}
}

func hash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// Snippet returns the lines of content within ±GateWindow of each line,
// numbered, with "..." between separate regions (the contract's file_snippet).
func Snippet(content string, lines []int) string {
	rs := make([]LineRange, len(lines))
	for i, l := range lines {
		rs[i] = LineRange{Start: l - GateWindow, End: l + GateWindow}
	}
	return snippetRanges(content, rs)
}

// snippetRanges returns the lines of content in ranges, numbered, with
// "..." between separate regions.
func snippetRanges(content string, ranges []LineRange) string {
	all := splitLines(content)
	keep := make([]bool, len(all)+2)
	for _, rg := range ranges {
		for i := max(1, rg.Start); i <= min(len(all), rg.End); i++ {
			keep[i] = true
		}
	}
	var b strings.Builder
	gap := false
	for i := 1; i <= len(all); i++ {
		if !keep[i] {
			gap = b.Len() > 0
			continue
		}
		if gap {
			b.WriteString("...\n")
			gap = false
		}
		fmt.Fprintf(&b, "%4d | %s\n", i, all[i-1])
	}
	return b.String()
}

// readSource reads a file to fix, refusing binary content.
func readSource(abs string) (string, error) {
	b, err := safefile.Read(abs, safefile.MaxSource)
	if err != nil {
		return "", fmt.Errorf("heal: read %s: %w", abs, err)
	}
	if strings.IndexByte(string(b[:min(len(b), 8000)]), 0) >= 0 {
		return "", fmt.Errorf("heal: %s looks binary", abs)
	}
	return string(b), nil
}

// reasonFor picks, from a fix's reason that joins what it did for several
// reports ("add import \"os\"; remove unused variable x"), the parts that
// speak of bug: those sharing a word of two letters or more with its
// message. It returns the whole reason when no part, or every part, does,
// or when a part speaks of no bug of the fix's group.
func reasonFor(bug contract.BugReport, group []contract.BugReport, reason string) string {
	parts := reasonParts(reason)
	if len(parts) < 2 {
		return reason
	}
	keep := partsOf(bug, parts)
	if len(keep) == 0 || len(keep) == len(parts) {
		return reason
	}
	// Every part must speak of some bug of the fix, or the split would
	// lose what the fix did.
	covered := map[int]bool{}
	for _, g := range group {
		for _, i := range partsOf(g, parts) {
			covered[i] = true
		}
	}
	if len(covered) < len(parts) {
		return reason
	}
	out := make([]string, len(keep))
	for i, k := range keep {
		out[i] = parts[k]
	}
	return strings.Join(out, "; ")
}

// partsOf returns the indexes of the parts sharing a word of two letters
// or more with bug's message.
func partsOf(bug contract.BugReport, parts []string) []int {
	words := map[string]bool{}
	for _, w := range wordsOf(bug.Message) {
		words[w] = true
	}
	var keep []int
	for i, p := range parts {
		for _, w := range wordsOf(p) {
			if words[w] {
				keep = append(keep, i)
				break
			}
		}
	}
	return keep
}

// reasonParts splits a fix's reason into what it did for each report:
// parts joined by "; ", or edits of one part joined by " and ", when each
// begins with the verb of an edit ("remove unused import "os" and add
// missing import "strings""). A reason whose pieces do not all begin so
// (code with its own ';', a sentence) is one part.
func reasonParts(reason string) []string {
	split := func(s, sep string) []string {
		sub := strings.Split(s, sep)
		if len(sub) < 2 {
			return nil
		}
		for _, x := range sub {
			verb, _, _ := strings.Cut(strings.TrimSpace(x), " ")
			if !editVerbs[verb] {
				return nil
			}
		}
		return sub
	}
	parts := split(reason, "; ")
	if parts == nil {
		parts = []string{reason}
	}
	var out []string
	for _, p := range parts {
		if sub := split(p, " and "); sub != nil {
			out = append(out, sub...)
		} else {
			out = append(out, p)
		}
	}
	return out
}

// editVerbs begin the parts of a fix's reason.
var editVerbs = map[string]bool{"add": true, "remove": true, "rename": true, "replace": true, "delete": true, "insert": true, "drop": true}

// wordsOf returns the identifiers and quoted names of s that are two
// bytes or longer, less the words every reason shares.
func wordsOf(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r == '_' || r == '.' || r == '/' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9'))
	}) {
		w = strings.Trim(w, "./")
		if len(w) >= 2 && !commonWords[strings.ToLower(w)] {
			out = append(out, w)
		}
	}
	return out
}

// commonWords are words of fix reasons and messages that name no bug.
var commonWords = map[string]bool{"the": true, "and": true, "not": true, "add": true, "remove": true, "import": true, "imported": true,
	"used": true, "unused": true, "declared": true, "undefined": true, "missing": true, "expected": true, "for": true, "with": true,
	"variable": true, "name": true, "found": true, "cannot": true, "find": true, "symbol": true, "error": true, "fix": true}

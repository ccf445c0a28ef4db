package heal

import (
	"context"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
)

// maxNamedErrors caps how many new errors a revert reason names.
const maxNamedErrors = 3

// judge says why one applied fix must be reverted after the verification
// build, or "" when it made progress. A fix makes progress when at least
// one report it targeted is gone and no line it wrote is now reported
// with an error that was not there before. Errors elsewhere do not count
// against it: a compiler that stops at the first error shows the next one
// only once the first is fixed, and the next iteration is there for it.
func judge(f applied, targets, before, after []contract.BugReport, exit int) string {
	if exit == 0 {
		return ""
	}
	if len(after) == 0 {
		return "the build still fails and its log names no error to check the fix against"
	}
	if broke := brokenLines(f, before, after); len(broke) > 0 {
		return "it broke the lines it wrote: " + namedErrors(broke)
	}
	if red := newlyRed(before, after); len(red) > 0 {
		return "it turned other tests red: " + joinCapped(red)
	}
	for _, t := range targets {
		if !f.stillThere(t, after) {
			return ""
		}
	}
	return "its target is still reported: " + namedErrors(targets)
}

// brokenLines returns the reports of the build after a fix that sit on a
// line the fix wrote and were not reported before it (same error on the
// line the old one moved to).
func brokenLines(f applied, before, after []contract.BugReport) []contract.BugReport {
	var out []contract.BugReport
	for _, x := range f.files() {
		out = append(out, brokenIn(x, before, after)...)
	}
	return out
}

// brokenIn is brokenLines for one file of a fix.
func brokenIn(f applied, before, after []contract.BugReport) []contract.BugReport {
	old := map[string]bool{}
	for _, b := range before {
		if b.FilePath == f.path {
			lo, _ := mapLine(f.decision.Hunks, b.LineNumber)
			old[fmt.Sprint(lo, "|", bugKey(b))] = true
		}
	}
	var out []contract.BugReport
	for _, a := range after {
		if a.FilePath != f.path || old[fmt.Sprint(a.LineNumber, "|", bugKey(a))] {
			continue
		}
		if wrote(f.decision.Hunks, a.LineNumber) && !outsideEdit(f.decision.Hunks, a) {
			out = append(out, a)
		}
	}
	return out
}

// wrote reports whether line of the patched file is one a hunk put there.
func wrote(hunks []Hunk, line int) bool {
	shift := 0
	for _, h := range hunks {
		lo := h.OldStart + shift
		if len(h.New) > 0 && line >= lo && line < lo+len(h.New) {
			return true
		}
		shift += len(h.New) - len(h.Old)
	}
	return false
}

// outsideEdit reports whether a report on a line a fix rewrote points at
// text the fix left as it was: its column falls before or after the part
// of the line that changed. Such an error was there before, hidden behind
// the one the fix removed (javac reports a missing symbol only once the
// line parses), so it does not count against the fix. A report without a
// column, or on a line the fix inserted, is taken as the fix's own.
func outsideEdit(hunks []Hunk, a contract.BugReport) bool {
	if a.Column < 1 {
		return false
	}
	shift := 0
	for _, h := range hunks {
		lo := h.OldStart + shift
		if a.LineNumber >= lo && a.LineNumber < lo+len(h.New) {
			if len(h.Old) != len(h.New) {
				return false
			}
			i := a.LineNumber - lo
			before, after := h.Old[i], h.New[i]
			pre := commonPrefix(before, after)
			suf := commonSuffix(before[pre:], after[pre:])
			col := a.Column - 1
			return col < pre || col >= len(after)-suf
		}
		shift += len(h.New) - len(h.Old)
	}
	return false
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// namedErrors lists reports as "file:line: message", a few at most.
func namedErrors(bs []contract.BugReport) string {
	parts := make([]string, 0, min(len(bs), maxNamedErrors)+1)
	for i, b := range bs {
		if i == maxNamedErrors {
			parts = append(parts, fmt.Sprintf("and %d more", len(bs)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s:%d: %s", b.FilePath, b.LineNumber, firstLine(b.Message)))
	}
	return strings.Join(parts, "; ")
}

// keepProgress judges every applied fix against the verification build,
// reverts those that made no progress and returns the ones to commit with
// the build that verified them. When some fixes go and others stay, the
// build is run again without the reverted ones, and the rest judged once
// more against it; any failure then reverts them all.
func (r *run) keepProgress(ctx context.Context, iter int, before []contract.BugReport, fixes []applied, verify contract.ExecutorOutput, after []contract.BugReport) ([]applied, contract.ExecutorOutput, []contract.BugReport, error) {
	for round := 0; ; round++ {
		var keep, drop []applied
		var whys []string
		for _, f := range fixes {
			if why := judge(f, r.targets(f), before, after, verify.ExitCode); why != "" {
				drop, whys = append(drop, f), append(whys, why)
				continue
			}
			keep = append(keep, f)
		}
		for i, f := range drop {
			r.revert([]applied{f}, iter, whys[i])
		}
		if len(drop) == 0 || len(keep) == 0 {
			return keep, verify, after, nil
		}
		if round > 0 {
			r.revert(keep, iter, "kept fixes did not hold once the others were reverted")
			return nil, verify, after, nil
		}
		var err error
		if verify, err = r.build(ctx, iter, results.StageVerify); err != nil {
			r.revert(keep, iter, "the verification build could not run")
			return nil, verify, after, err
		}
		after = r.parse(verify)
		fixes = keep
	}
}

// targets returns the reports a fix was made for.
func (r *run) targets(f applied) []contract.BugReport {
	out := make([]contract.BugReport, len(f.bugs))
	for i, b := range f.bugs {
		out[i] = r.res.Bugs[b].Bug
	}
	return out
}

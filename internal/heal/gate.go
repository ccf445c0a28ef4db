package heal

import (
	"fmt"
	"sort"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/integrity"
	"github.com/salve-dev/salve/internal/heal/tiers"
	"github.com/salve-dev/salve/internal/lang"
)

// DefaultMinConfidence is the default confidence threshold of the fix gate.
const DefaultMinConfidence = 0.7

// GateWindow is how many lines either side of a reported line a fix may
// touch: a fix changes only the reported lines ±3.
const GateWindow = 3

// The ids of the gate's own rules, as GateDecision.Rules names them; the
// integrity policy's ids (integrity.RuleIDs) join them.
const (
	RuleNoChange        = "no-change"
	RuleLowConfidence   = "low-confidence"
	RuleOutsideWindow   = "outside-window"
	RuleCommentsRemoved = "comments-removed"
)

// LineRange is lines Start..End of the original file, 1-based and
// inclusive.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// GateInput is one fix presented to the gate.
type GateInput struct {
	Path     string
	Original string
	Patched  string
	Reports  []contract.BugReport
	// Confidence is the fixer's confidence score.
	Confidence    float64
	MinConfidence float64
	// AllowTestEdits lets the fix edit test files and test configuration
	// (the repository opted in). The other integrity rules still apply.
	AllowTestEdits bool
	// ProtectedPaths are globs of paths no fix may edit (the
	// repository's protected_paths): integrity rule protected-path.
	ProtectedPaths []string
	// Fixer is the tier that wrote the fix (a name of internal/heal/tiers).
	Fixer string
	// Windows are more lines of this file the fix may change besides the
	// reported lines ±GateWindow, such as the code a failing test
	// exercises. Nil adds none.
	Windows []LineRange
	// OnlyWindows leaves the reports' own lines out: only Windows may
	// change (the body of the code a failing test exercises). A new
	// unexported helper that only the windows call may be added outside
	// them, and import lines may change, as always.
	OnlyWindows bool
	// Tests are the failing tests the fix answers (integrity.Input.Tests).
	Tests []integrity.TestSource
}

// GateDecision is the gate's verdict on one fix.
type GateDecision struct {
	Accepted bool `json:"accepted"`
	// Reasons lists every rule the fix broke, each as "rule-id: text";
	// empty when accepted.
	Reasons []string `json:"reasons,omitempty"`
	// Rules lists the id of each rule the fix broke, once, in the order
	// of Reasons.
	Rules []string `json:"rules,omitempty"`
	// Diff is the fix as a unified diff that git apply accepts.
	Diff  string `json:"diff"`
	Hunks []Hunk `json:"-"`
}

// Reason joins the rejection reasons into one line.
func (d GateDecision) Reason() string { return strings.Join(d.Reasons, "; ") }

// Gate enforces the Fix Agent's boundary rules before a fix is accepted:
// the diff touches only the reported lines ±3 (or the extra Windows),
// comments are preserved, the confidence reaches the threshold, and the
// fix weakens no check (the integrity policy: no assertion removed or
// loosened, no expected value changed, no test skipped or removed, no
// suppression added, no test or CI configuration edited). One extension
// is documented in docs/heal.md: a hunk made only of import lines (Go
// imports, Python imports, C includes) may sit outside the windows,
// because a missing or unused import is fixed where the imports are, not
// where the name is used.
func Gate(in GateInput) GateDecision {
	hunks := LineDiff(in.Original, in.Patched)
	d := GateDecision{Hunks: hunks, Diff: Patch(in.Path, in.Original, in.Patched)}
	if len(hunks) == 0 {
		d.reject(RuleNoChange, "the fix changes nothing")
	}
	if in.Confidence < in.MinConfidence {
		d.reject(RuleLowConfidence, fmt.Sprintf("confidence %.2f is below the threshold %.2f", in.Confidence, in.MinConfidence))
	}
	l := lang.Of(in.Path)
	reports := in.Reports
	if in.OnlyWindows {
		reports = nil
	}
	for _, h := range hunks {
		if in.OnlyWindows && inFunction(l, h, hunks, in.Original, in.Patched, in.Windows) || trailingBlank(h, in.Original) {
			continue
		}
		if (!in.OnlyWindows && inWindows(h, reports, in.Windows)) || onlyImports(l, h) || newHelper(l, h, hunks, in.Original, in.Patched, in.Windows, reports) {
			continue
		}
		lo, hi := hunkSpan(h)
		if in.OnlyWindows {
			d.reject(RuleOutsideWindow, fmt.Sprintf("diff touches lines %d-%d, outside the code under test (%s); code outside it needs a report of its own", lo, hi, allowedLines(nil, in.Windows)))
			continue
		}
		d.reject(RuleOutsideWindow, fmt.Sprintf("diff touches lines %d-%d, outside the reported lines ±%d (%s)", lo, hi, GateWindow, allowedLines(in.Reports, in.Windows)))
	}
	if lost := lostComments(l, in.Original, in.Patched); len(lost) > 0 {
		d.reject(RuleCommentsRemoved, fmt.Sprintf("comments removed: %q", lost))
	}
	for _, v := range integrity.Check(integrity.Input{Path: in.Path, Original: in.Original, Patched: in.Patched, Reports: in.Reports, AllowTestEdits: in.AllowTestEdits, Protected: in.ProtectedPaths,
		RenamesFromCommit: tiers.RenamesFromCommit(in.Fixer), Tests: in.Tests}) {
		d.reject(v.Rule, strings.TrimPrefix(v.String(), v.Rule+": "))
	}
	d.Accepted = len(d.Reasons) == 0
	return d
}

// reject records that the fix broke rule, with a reason for a person.
func (d *GateDecision) reject(rule, text string) {
	d.Reasons = append(d.Reasons, rule+": "+text)
	for _, r := range d.Rules {
		if r == rule {
			return
		}
	}
	d.Rules = append(d.Rules, rule)
}

// hunkSpan returns the original lines a hunk touches. A pure insertion
// touches the lines on both sides of the insertion point.
func hunkSpan(h Hunk) (int, int) {
	if len(h.Old) == 0 {
		return h.OldStart - 1, h.OldStart
	}
	return h.OldStart, h.OldStart + len(h.Old) - 1
}

// inWindows reports whether the hunk lies inside one window: a reported
// line ±GateWindow, or one of the extra windows. A pure insertion needs
// only one of the lines around it inside.
func inWindows(h Hunk, reports []contract.BugReport, extra []LineRange) bool {
	lo, hi := hunkSpan(h)
	insertion := len(h.Old) == 0
	inside := func(wlo, whi int) bool {
		if insertion {
			return (lo >= wlo && lo <= whi) || (hi >= wlo && hi <= whi)
		}
		return lo >= wlo && hi <= whi
	}
	for _, r := range reports {
		if inside(r.LineNumber-GateWindow, r.LineNumber+GateWindow) {
			return true
		}
	}
	for _, w := range extra {
		if w.Start <= w.End && inside(w.Start, w.End) {
			return true
		}
	}
	return false
}

// allowedLines names the reported lines and the extra windows.
func allowedLines(reports []contract.BugReport, extra []LineRange) string {
	seen := map[int]bool{}
	var ls []int
	for _, r := range reports {
		if !seen[r.LineNumber] {
			seen[r.LineNumber] = true
			ls = append(ls, r.LineNumber)
		}
	}
	sort.Ints(ls)
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprint(l)
	}
	out := "reported: " + strings.Join(parts, ", ")
	if len(ls) == 0 {
		out = ""
	}
	if len(extra) > 0 {
		if out != "" {
			out += "; "
		}
		ws := make([]string, len(extra))
		for i, w := range extra {
			ws[i] = fmt.Sprintf("%d-%d", w.Start, w.End)
		}
		out += "allowed: lines " + strings.Join(ws, ", ")
	}
	return out
}

// lostComments returns the comments of orig that patched no longer has,
// compared as a multiset of trimmed comment texts; nil when the language
// is unknown.
func lostComments(l *lang.Language, orig, patched string) []string {
	if l == nil {
		return nil
	}
	have := map[string]int{}
	for _, c := range l.Comments(patched) {
		have[c]++
	}
	var lost []string
	for _, c := range l.Comments(orig) {
		if have[c] > 0 {
			have[c]--
			continue
		}
		lost = append(lost, c)
	}
	return lost
}

// onlyImports reports whether every non-blank line of the hunk is an
// import line of l, and there is one.
func onlyImports(l *lang.Language, h Hunk) bool {
	nonBlank := 0
	for _, line := range append(append([]string{}, h.Old...), h.New...) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		nonBlank++
		if !l.IsImportLine(line) {
			return false
		}
	}
	return nonBlank > 0
}

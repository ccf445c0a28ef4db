package heal

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/undertest"
	"github.com/salve-dev/salve/internal/lang"
)

// Reached is a span of lines a fix that spans files may change, and the
// report it is reached from (docs/heal.md, "The agent tier"): a reported
// line ±GateWindow, the code a failing test exercises, or the declaration
// of a name a reported line (or that code) uses.
type Reached struct {
	// Path is repo-relative, with forward slashes.
	Path string `json:"path"`
	// Start and End are 1-based inclusive lines of the file as the heal
	// found it.
	Start int `json:"start"`
	End   int `json:"end"`
	// Why says how the span is reached from a report.
	Why string `json:"why"`
}

// String renders r as path:start-end (why).
func (r Reached) String() string { return fmt.Sprintf("%s:%d-%d (%s)", r.Path, r.Start, r.End, r.Why) }

// DeclFinder finds where names are declared in a workspace. The heal's
// TargetFinder may implement it; the reach of a fix that spans files then
// includes the declarations of the names a reported line uses.
type DeclFinder interface {
	// Declarations returns the declarations of names in the files of
	// workspace that share a language family with from (a repo-relative
	// path), test files left out, each region a declaration's first line
	// (the reach extends it over the declaration). None is an answer, not
	// an error.
	Declarations(ctx context.Context, workspace, from string, names []string) ([]undertest.Region, error)
}

// Bounds of the reach.
const (
	// maxReachNames bounds the names whose declarations are looked up.
	maxReachNames = 32
	// maxReachLines bounds the lines of code under test read for names.
	maxReachLines = 400
	// maxReach bounds the spans of one reach.
	maxReach = 64
)

// identWord is an identifier of the languages salve reads.
var identWord = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*`)

// computeReach returns the spans a fix of group may change: every
// report's line ±GateWindow, the windows of in (the code under test of a
// failing test, the function of a runtime error), every region the
// TargetFinder resolves for a failing check of the group (in every file,
// not only the one the one-file tiers are given), and, when targets is a
// DeclFinder, the declarations of the names used on the reported lines and
// in that code.
func computeReach(ctx context.Context, ws string, targets TargetFinder, in FixInput, group []contract.BugReport) []Reached {
	var out []Reached
	add := func(r Reached) {
		r.Start = max(1, r.Start)
		if r.End < r.Start || len(out) >= maxReach {
			return
		}
		for _, o := range out {
			if o.Path == r.Path && o.Start <= r.Start && r.End <= o.End {
				return
			}
		}
		out = append(out, r)
	}
	for _, b := range group {
		add(Reached{Path: b.FilePath, Start: b.LineNumber - GateWindow, End: b.LineNumber + GateWindow, Why: fmt.Sprintf("reported line %d ±%d", b.LineNumber, GateWindow)})
	}
	for _, w := range in.Windows {
		add(Reached{Path: in.Path, Start: w.Start, End: w.End, Why: "the code under test"})
	}
	var code []Reached
	if targets != nil {
		for _, b := range group {
			if b.ErrorType != contract.ErrLogic {
				continue
			}
			regions, err := targets.Regions(ctx, ws, b)
			if err != nil {
				continue
			}
			for _, rg := range regions {
				r := Reached{Path: rg.Path, Start: rg.Start, End: rg.End, Why: strings.TrimSpace("the code under test: " + rg.Symbol + " (" + rg.Why + ")")}
				add(r)
				code = append(code, r)
			}
		}
	}
	for _, w := range in.Windows {
		code = append(code, Reached{Path: in.Path, Start: w.Start, End: w.End})
	}
	df, ok := targets.(DeclFinder)
	if !ok {
		return out
	}
	for _, u := range usedNames(ws, group, code) {
		decls, err := df.Declarations(ctx, ws, u.path, u.names)
		if err != nil {
			continue
		}
		for _, d := range decls {
			if lang.IsTestFile(d.Path) {
				continue
			}
			add(Reached{Path: d.Path, Start: d.Start, End: declEnd(ws, d.Path, d.Start), Why: "the declaration of " + d.Symbol + ", used where the error is"})
		}
	}
	return out
}

// fileNames are the names used in one file.
type fileNames struct {
	path  string
	names []string
}

// usedNames returns, per file, the identifiers used on the reported lines
// of group and on the lines of code, in the order they first appear,
// bounded. Comments are not read; string literals are, since a template
// or an f-string calls code too.
func usedNames(ws string, group []contract.BugReport, code []Reached) []fileNames {
	type span struct {
		path     string
		from, to int
	}
	var spans []span
	for _, b := range group {
		spans = append(spans, span{b.FilePath, b.LineNumber, b.LineNumber})
	}
	budget := maxReachLines
	for _, c := range code {
		n := min(c.End-c.Start+1, budget)
		if n <= 0 {
			break
		}
		spans = append(spans, span{c.Path, c.Start, c.Start + n - 1})
		budget -= n
	}
	files := map[string][]string{}
	at := map[string]int{}
	var out []fileNames
	seen := map[string]bool{}
	total := 0
	for _, s := range spans {
		lines, ok := files[s.path]
		if !ok {
			if abs, err := confine(ws, s.path); err == nil {
				if content, err := readSource(abs); err == nil {
					lines = splitLines(withoutComments(lang.Of(s.path), content))
				}
			}
			files[s.path] = lines
		}
		for n := s.from; n <= s.to && n <= len(lines); n++ {
			if n < 1 {
				continue
			}
			for _, w := range identWord.FindAllString(lines[n-1], -1) {
				if len(w) < 2 || seen[s.path+"\x00"+w] || total >= maxReachNames {
					continue
				}
				seen[s.path+"\x00"+w] = true
				i, ok := at[s.path]
				if !ok {
					i = len(out)
					at[s.path] = i
					out = append(out, fileNames{path: s.path})
				}
				out[i].names = append(out[i].names, w)
				total++
			}
		}
	}
	return out
}

// reachIn returns the spans of reach in path, as line ranges.
func reachIn(reach []Reached, path string) []LineRange {
	var out []LineRange
	for _, r := range reach {
		if r.Path == path {
			out = append(out, LineRange{Start: r.Start, End: r.End})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// withoutComments returns src with its comments blanked (newlines kept).
func withoutComments(l *lang.Language, src string) string {
	b := []byte(src)
	for _, sp := range l.Spans(src) {
		if sp.Kind != lang.Comment {
			continue
		}
		for i := sp.Start; i < sp.End && i < len(b); i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	return string(b)
}

// maxDeclSpan bounds the lines one declaration spans.
const maxDeclSpan = 2000

// declEnd returns the last line of the declaration whose first line is
// start in the workspace's file at path (comments and strings not read):
// where the brace its header opens closes, else the end of the block
// indented under a header that ends in ':' (a Python def or class), else
// the header's last line.
func declEnd(ws, path string, start int) int {
	abs, err := confine(ws, path)
	if err != nil {
		return start
	}
	content, err := readSource(abs)
	if err != nil {
		return start
	}
	code := splitLines(lang.Of(path).Code(content))
	parens, braces, opened := 0, 0, false
	for j := start - 1; j >= 0 && j < len(code) && j < start+maxDeclSpan; j++ {
		for _, c := range code[j] {
			switch c {
			case '(', '[':
				parens++
			case ')', ']':
				parens--
			case '{':
				braces++
				opened = true
			case '}':
				braces--
			}
		}
		switch {
		case opened && braces <= 0:
			return j + 1
		case opened || parens > 0:
			continue
		case strings.HasSuffix(strings.TrimSpace(code[j]), ":"):
			return indentedEnd(code, j)
		default:
			return j + 1
		}
	}
	return start
}

// indentedEnd returns the last line (1-based) of the block indented under
// line index i of code.
func indentedEnd(code []string, i int) int {
	base := indentOf(code[i])
	end := i
	for j := i + 1; j < len(code) && j < i+maxDeclSpan; j++ {
		if strings.TrimSpace(code[j]) == "" {
			continue
		}
		if indentOf(code[j]) <= base {
			break
		}
		end = j
	}
	return end + 1
}

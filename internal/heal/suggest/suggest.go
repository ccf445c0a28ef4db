// Package suggest is the Fix Agent's "suggest" tier: it applies the fixes
// the toolchain itself proposes for a reported error, and nothing else.
// Its sources are rustc's JSON suggestions, gcc and clang fix-it hints,
// the "did you mean" of gcc, clang, Python and tsc, eslint's fix objects,
// and, for Go's "undefined: x" and javac's "cannot find symbol", the one
// name declared in scope that is nearest by edit distance.
//
// Where a report's text holds no suggestion, the tier asks the Executor
// layer to run the compiler again in its structured mode (cargo
// --message-format=json, gcc -fdiagnostics-parseable-fixits, javac for its
// "symbol:" lines, eslint --format json, go vet -json for the analyzers'
// suggested fixes) in the heal worktree, and the
// Parser layer (logparse) to read that output: the tier never interprets a
// log itself. Only suggestions made for a reported line are applied, and
// the confidence comes from the suggestion's applicability; the fix gate
// then judges the edit like any other.
package suggest

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/logparse"
	"github.com/salve-dev/salve/internal/heal/rules"
	"github.com/salve-dev/salve/internal/lang"
)

// Name is the tier's name in results and --fixers.
const Name = "suggest"

// Confidence of a fix by the applicability of its suggestion.
const (
	ConfMachineApplicable = 0.95
	ConfFixIt             = 0.9
	ConfMaybeIncorrect    = 0.8
	ConfDidYouMean        = 0.8
	ConfUnspecified       = 0.6
	// ConfNearest and ConfNearest2 are the confidences of a name chosen by
	// edit distance 1 and 2.
	ConfNearest  = 0.8
	ConfNearest2 = 0.72
)

// Fixer is the suggest tier. The zero value applies the suggestions found
// in the reports' own messages and the nearest-name fixes that need no
// re-run; with an Executor it also re-runs compilers for their structured
// output.
type Fixer struct {
	// Executor re-runs a compiler in its structured mode, in the heal
	// worktree and its sandbox; nil disables re-runs.
	Executor heal.Executor
	// TimeoutSeconds bounds each re-run; zero means the executor's default.
	TimeoutSeconds int

	mu    sync.Mutex
	cache map[string]cached
}

var _ heal.Fixer = (*Fixer)(nil)

// Name returns "suggest".
func (f *Fixer) Name() string { return Name }

// candidate is one suggestion the tier may apply, with its confidence.
type candidate struct {
	s    logparse.Suggestion
	conf float64
}

// Fix applies, for each report of the group, the toolchain's suggestion
// for the reported line, when there is exactly one best suggestion for
// each diagnostic on it. It returns an error wrapping heal.ErrNoFix when
// no suggestion applies.
func (f *Fixer) Fix(ctx context.Context, in heal.FixInput) (contract.FixResult, error) {
	reports, err := f.withLineDiagnostics(ctx, in, in.Reports())
	if err != nil {
		return contract.FixResult{}, err
	}
	var cands []candidate
	for _, r := range reports {
		if s, ok := logparse.HintFromReport(r); ok && s.File == in.Path {
			cands = append(cands, candidate{s, confidence(s.Applicability)})
		}
	}
	structured, err := f.structured(ctx, in, reports)
	if err != nil {
		return contract.FixResult{}, err
	}
	for _, s := range structured {
		if s.File == in.Path {
			cands = append(cands, candidate{s, confidence(s.Applicability)})
		}
	}
	near, err := f.nearest(ctx, in, reports)
	if err != nil {
		return contract.FixResult{}, err
	}
	cands = append(cands, near...)
	cands = dropImportable(in, cands)
	chosen := choose(cands, reports)
	if len(chosen) == 0 {
		return contract.FixResult{}, fmt.Errorf("suggest: no toolchain suggestion for the reported lines of %s: %w", in.Path, results.ErrNoFix)
	}
	out, reasons, conf, err := apply(in.Content, in.Path, chosen)
	if err != nil {
		return contract.FixResult{}, fmt.Errorf("suggest: %s: %v: %w", in.Path, err, results.ErrNoFix)
	}
	if out == in.Content {
		return contract.FixResult{}, fmt.Errorf("suggest: the suggestions change nothing in %s: %w", in.Path, results.ErrNoFix)
	}
	return contract.FixResult{PatchedContent: out, FixReason: strings.Join(reasons, "; "), ConfidenceScore: conf, Fixer: Name}, nil
}

// withLineDiagnostics adds to the reports the other diagnostics a
// structured re-run gives for the reported lines (a bug report keeps one
// per line), so that all the slips of a line are fixed together: fixing
// one alone would uncover the next, which the orchestrator counts as a new
// error.
func (f *Fixer) withLineDiagnostics(ctx context.Context, in heal.FixInput, reports []contract.BugReport) ([]contract.BugReport, error) {
	if ext(in.Path) != ".go" {
		return reports, nil
	}
	c, err := f.rerunFor(ctx, in, reports)
	if err != nil {
		return nil, err
	}
	lines := map[int]bool{}
	have := map[string]bool{}
	for _, r := range reports {
		lines[r.LineNumber] = true
		have[fmt.Sprintf("%d|%s", r.LineNumber, firstLine(r.Message))] = true
	}
	out := reports
	for _, d := range c.diags {
		key := fmt.Sprintf("%d|%s", d.Line, d.Message)
		if d.File != in.Path || !lines[d.Line] || have[key] {
			continue
		}
		have[key] = true
		out = append(out, contract.BugReport{FilePath: d.File, LineNumber: d.Line, Column: d.Column, Message: d.Message, Tool: "go", ErrorType: contract.ErrTypeError})
	}
	return out, nil
}

// confidence maps an applicability to the tier's confidence; 0 means the
// suggestion is never applied (it holds placeholders).
func confidence(app string) float64 {
	switch app {
	case logparse.MachineApplicable:
		return ConfMachineApplicable
	case logparse.FixIt:
		return ConfFixIt
	case logparse.MaybeIncorrect:
		return ConfMaybeIncorrect
	case logparse.DidYouMean:
		return ConfDidYouMean
	case logparse.Unspecified:
		return ConfUnspecified
	}
	return 0
}

// choose keeps, for every diagnostic on a reported line, its surest
// suggestion when it is the only one of that confidence: two different
// suggestions of the same confidence for one diagnostic are a guess, and
// the tier does not guess. Identical suggestions of several diagnostics
// (rustc repeats an import for every use) count once.
func choose(cands []candidate, reports []contract.BugReport) []candidate {
	lines := map[int]bool{}
	for _, r := range reports {
		lines[r.LineNumber] = true
	}
	type diag struct {
		line, col int
		msg       string
	}
	byDiag := map[diag][]candidate{}
	var order []diag
	for _, c := range cands {
		if c.conf <= 0 || !lines[c.s.Line] || len(c.s.Edits) == 0 {
			continue
		}
		d := diag{c.s.Line, c.s.Column, c.s.Message}
		if _, ok := byDiag[d]; !ok {
			order = append(order, d)
		}
		byDiag[d] = append(byDiag[d], c)
	}
	var out []candidate
	seen := map[string]bool{}
	for _, d := range order {
		cs := byDiag[d]
		best := 0.0
		for _, c := range cs {
			best = max(best, c.conf)
		}
		var top []candidate
		keys := map[string]bool{}
		for _, c := range cs {
			if c.conf == best && !keys[editKey(c.s)] {
				keys[editKey(c.s)] = true
				top = append(top, c)
			}
		}
		if len(top) != 1 || seen[editKey(top[0].s)] {
			continue
		}
		seen[editKey(top[0].s)] = true
		out = append(out, top[0])
	}
	return out
}

// dropImportable drops the suggestions that rename a name the rules tier
// can import (rules.Importable): such a name is missing its import, not
// misspelt, whatever near name the toolchain or the scope offers
// (strings is not string, heapq is not help).
func dropImportable(in heal.FixInput, cands []candidate) []candidate {
	idx := lineIndex(in.Content)
	memo := map[string]bool{}
	importable := func(name string) bool {
		v, ok := memo[name]
		if !ok {
			v = rules.Importable(in.Workspace, in.Path, in.Content, name)
			memo[name] = v
		}
		return v
	}
	out := cands[:0]
	for _, c := range cands {
		if !renamesAny(in, idx, c.s, importable) {
			out = append(out, c)
		}
	}
	return out
}

// renamesAny reports whether a suggestion replaces a whole identifier of
// the file for which pred holds by another text.
func renamesAny(in heal.FixInput, idx []int, s logparse.Suggestion, pred func(string) bool) bool {
	for _, e := range s.Edits {
		if e.File != in.Path {
			continue
		}
		spans, ok := resolve(in.Content, idx, e)
		if !ok {
			continue
		}
		for _, sp := range spans {
			old := in.Content[sp.start:sp.end]
			if old != sp.text && isIdentifier(old) && wholeWord(in.Content, sp.start, len(old)) && pred(old) {
				return true
			}
		}
	}
	return false
}

// isIdentifier reports whether s is one identifier of the C family's
// syntax (letters, digits, _ and $, not starting with a digit).
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func editKey(s logparse.Suggestion) string {
	var b strings.Builder
	for _, e := range s.Edits {
		fmt.Fprintf(&b, "%s|%d:%d-%d:%d|%d-%d|%q|%q\n", e.File, e.Line, e.Col, e.EndLine, e.EndCol, e.Start, e.End, e.Old, e.New)
	}
	return b.String()
}

// span is one edit resolved to byte offsets of the file.
type span struct {
	start, end int
	text       string
	owner      int // index of the suggestion
}

// apply resolves every chosen suggestion to byte spans of content and
// applies them all. A suggestion whose span does not match the file (it
// moved, or names another file) is dropped; overlapping suggestions are
// dropped but for the first.
func apply(content, file string, chosen []candidate) (string, []string, float64, error) {
	idx := lineIndex(content)
	var spans []span
	var reasons []string
	conf := 1.0
	for i, c := range chosen {
		var mine []span
		ok := true
		for _, e := range c.s.Edits {
			if e.File != file {
				ok = false
				break
			}
			ss, good := resolve(content, idx, e)
			if !good {
				ok = false
				break
			}
			for _, s := range ss {
				s.owner = i
				mine = append(mine, s)
			}
		}
		if !ok || overlaps(spans, mine) {
			continue
		}
		spans = append(spans, mine...)
		reasons = append(reasons, describe(c.s, content, mine))
		conf = min(conf, c.conf)
	}
	if len(spans) == 0 {
		return content, nil, 0, fmt.Errorf("no suggestion matches the file's current text")
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start > spans[j].start })
	out := content
	for _, s := range spans {
		out = out[:s.start] + s.text + out[s.end:]
	}
	return out, reasons, conf, nil
}

func overlaps(have, add []span) bool {
	for _, a := range add {
		for _, h := range have {
			if a.start < h.end && h.start < a.end || (a.start == a.end && a.start == h.start) {
				return true
			}
		}
	}
	return false
}

// lineIndex returns the byte offset of the start of each line (1-based:
// idx[1] is 0).
func lineIndex(content string) []int {
	idx := []int{0, 0}
	for i := 0; i < len(content); i++ {
		if content[i] == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// lineOf returns the 1-based line of byte offset off.
func lineOf(idx []int, off int) int {
	return sort.SearchInts(idx[1:], off+1)
}

// resolve turns an edit into byte spans of content, checking that it
// still fits the file.
func resolve(content string, idx []int, e logparse.Edit) ([]span, bool) {
	nLines := len(idx) - 1
	switch {
	case e.Start >= 0:
		start, end := e.Start, e.End
		if e.UTF16 {
			var ok bool
			if start, end, ok = utf16Offsets(content, e.Start, e.End); !ok {
				return nil, false
			}
		}
		if end < start || end > len(content) || !utf8.ValidString(content[start:end]) {
			return nil, false
		}
		if e.Line > 0 && lineOf(idx, start) != e.Line {
			return nil, false
		}
		if e.Old != "" && content[start:end] != e.Old {
			return nil, false
		}
		return []span{{start: start, end: end, text: e.New}}, true
	case e.Col > 0 && e.EndLine > 0:
		if e.Line < 1 || e.Line > nLines+1 || e.EndLine < e.Line || e.EndLine > nLines+1 {
			return nil, false
		}
		start, ok1 := colOffset(content, idx, e.Line, e.Col)
		end, ok2 := colOffset(content, idx, e.EndLine, e.EndCol)
		if !ok1 || !ok2 || end < start {
			return nil, false
		}
		if e.Old != "" && content[start:end] != e.Old {
			return nil, false
		}
		return []span{{start: start, end: end, text: e.New}}, true
	case e.Old != "" && e.Line >= 1 && e.Line <= nLines:
		return wordSpans(content, idx, e)
	}
	return nil, false
}

// colOffset is the offset of 1-based byte column col of line; the column
// just past the line's end (before its newline) is allowed.
func colOffset(content string, idx []int, line, col int) (int, bool) {
	if line >= len(idx) {
		return 0, false
	}
	start := idx[line]
	end := len(content)
	if line+1 < len(idx) {
		end = idx[line+1] - 1
	}
	off := start + col - 1
	if col < 1 || off > end {
		return 0, false
	}
	return off, true
}

// wordSpans finds the name e.Old on its line: at e.Col when it is there,
// else every whole-word occurrence on the line (each is the same
// unresolved name).
func wordSpans(content string, idx []int, e logparse.Edit) ([]span, bool) {
	start := idx[e.Line]
	end := len(content)
	if e.Line+1 < len(idx) {
		end = idx[e.Line+1] - 1
	}
	line := content[start:end]
	if e.Col > 0 && e.Col-1+len(e.Old) <= len(line) && line[e.Col-1:e.Col-1+len(e.Old)] == e.Old && wholeWord(line, e.Col-1, len(e.Old)) {
		return []span{{start: start + e.Col - 1, end: start + e.Col - 1 + len(e.Old), text: e.New}}, true
	}
	var out []span
	code := codeMask(lang.Of(e.File), line)
	for i := 0; i+len(e.Old) <= len(line); {
		j := strings.Index(line[i:], e.Old)
		if j < 0 {
			break
		}
		at := i + j
		if wholeWord(line, at, len(e.Old)) && code[at] {
			out = append(out, span{start: start + at, end: start + at + len(e.Old), text: e.New})
		}
		i = at + len(e.Old)
	}
	return out, len(out) > 0
}

// hasCodeWord reports whether name occurs as a whole word in the code of
// line (not in a string or a comment) of syn's syntax.
func hasCodeWord(syn *lang.Language, line, name string) bool {
	code := codeMask(syn, line)
	for i := 0; i+len(name) <= len(line); i++ {
		if line[i:i+len(name)] == name && code[i] && wholeWord(line, i, len(name)) {
			return true
		}
	}
	return false
}

// codeMask marks the bytes of a line that are code: not in a string
// literal or a comment of syn's syntax (all of them when syn is nil).
func codeMask(syn *lang.Language, line string) []bool {
	m := make([]bool, len(line))
	for i := range m {
		m[i] = true
	}
	for _, s := range syn.Spans(line) {
		for i := s.Start; i < s.End; i++ {
			m[i] = false
		}
	}
	return m
}

func wholeWord(line string, at, n int) bool {
	isWord := func(c byte) bool {
		return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	return (at == 0 || !isWord(line[at-1])) && (at+n >= len(line) || !isWord(line[at+n]))
}

// utf16Offsets converts offsets in UTF-16 code units (eslint's ranges)
// to byte offsets.
func utf16Offsets(content string, s, e int) (int, int, bool) {
	bs, be := -1, -1
	u := 0
	for i, r := range content {
		if u == s {
			bs = i
		}
		if u == e {
			be = i
			break
		}
		u += len(utf16.Encode([]rune{r}))
	}
	if u == s && bs < 0 {
		bs = len(content)
	}
	if u == e && be < 0 {
		be = len(content)
	}
	return bs, be, bs >= 0 && be >= 0
}

// describe says in a few words what a suggestion did.
func describe(s logparse.Suggestion, content string, spans []span) string {
	what := make([]string, 0, len(spans))
	for _, sp := range spans {
		old, nw := oneLine(content[sp.start:sp.end]), oneLine(sp.text)
		switch {
		case old == "":
			what = append(what, fmt.Sprintf("insert `%s`", nw))
		case nw == "":
			what = append(what, fmt.Sprintf("remove `%s`", old))
		default:
			what = append(what, fmt.Sprintf("replace `%s` with `%s`", old, nw))
		}
	}
	what = dedupe(what)
	src := s.Tool
	switch s.Applicability {
	case logparse.DidYouMean:
		src += "'s \"did you mean\""
	case nearestApplicability:
		src = "the nearest name in scope"
	default:
		src += "'s suggestion"
	}
	label := ""
	if s.Label != "" {
		label = " (" + s.Label + ")"
	}
	return fmt.Sprintf("%s for line %d%s: %s", src, s.Line, label, strings.Join(what, ", "))
}

func oneLine(s string) string {
	return strings.TrimSpace(strings.ReplaceAll(s, "\n", " "))
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// ext is the lower-case extension of a repo-relative path.
func ext(p string) string { return strings.ToLower(path.Ext(p)) }

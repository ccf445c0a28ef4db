package logparse

import (
	"bufio"
	"encoding/json"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

// Applicability says how sure a toolchain is of a suggestion. The values
// of rustc are kept as rustc spells them; the others are salve's.
const (
	// MachineApplicable: rustc says the suggestion is definitely what the
	// user meant and can be applied mechanically.
	MachineApplicable = "MachineApplicable"
	// MaybeIncorrect: rustc says the suggestion may be what the user meant.
	MaybeIncorrect = "MaybeIncorrect"
	// HasPlaceholders: rustc's suggestion holds placeholders like (...).
	HasPlaceholders = "HasPlaceholders"
	// Unspecified: rustc does not say.
	Unspecified = "Unspecified"
	// FixIt is a clang or gcc fix-it hint (-fdiagnostics-parseable-fixits),
	// or eslint's fix object: the tool means it to be applied.
	FixIt = "FixIt"
	// DidYouMean is a "did you mean 'x'?" in a diagnostic's text (gcc,
	// clang, Python, tsc): a replacement of one name by another.
	DidYouMean = "DidYouMean"
)

// Suggestion is a fix a toolchain proposes for one of its diagnostics. Its
// edits are applied together; two suggestions for the same diagnostic are
// alternatives.
type Suggestion struct {
	// File and Line locate the diagnostic the suggestion answers (its
	// primary span): File is repo-relative with forward slashes.
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column,omitempty"`
	// Message is the diagnostic's message, Code its code (E0425, TS2552,
	// no-unused-vars) when it has one.
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
	Tool    string `json:"tool"`
	// Applicability is one of the constants above.
	Applicability string `json:"applicability"`
	// Label is the tool's own words for the suggestion ("consider
	// importing this struct").
	Label string `json:"label,omitempty"`
	Edits []Edit `json:"edits"`
}

// Edit replaces a span of a file by New. The span is given by lines and
// byte columns (1-based, end exclusive), by offsets into the file, or, for
// a DidYouMean, by the name Old on Line (at Col when known).
type Edit struct {
	// File is repo-relative, forward slashes.
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col,omitempty"`
	EndLine int    `json:"end_line,omitempty"`
	EndCol  int    `json:"end_col,omitempty"`
	// Start and End are offsets into the file, -1 when unknown; UTF16 says
	// they count UTF-16 code units (eslint) instead of bytes.
	Start int  `json:"start"`
	End   int  `json:"end"`
	UTF16 bool `json:"utf16,omitempty"`
	// Old is the text the span holds, when the tool says (a DidYouMean's
	// misspelled name): the fixer checks it before editing.
	Old string `json:"old,omitempty"`
	New string `json:"new"`
}

// maxSuggestions bounds what one log can yield.
const maxSuggestions = 2000

// relFile turns a path a tool printed into a repo-relative one under root,
// or "" when it is outside root (a dependency, the standard library) or
// not a plain path.
func relFile(root, p string) string {
	if p == "" || strings.ContainsAny(p, "\x00\n") || hasPrefix(p, "<") {
		return ""
	}
	if filepath.IsAbs(p) {
		if root == "" {
			return ""
		}
		r, err := filepath.Rel(root, p)
		if err != nil {
			return ""
		}
		p = r
	}
	p = path.Clean(filepath.ToSlash(p))
	if p == "." || p == ".." || hasPrefix(p, "../") || hasPrefix(p, "/") {
		return ""
	}
	return p
}

// rustMessage is the part of rustc's JSON diagnostic that suggestions use
// (rustc's documented JSON output; cargo wraps it in a compiler-message).
type rustMessage struct {
	Message  string                 `json:"message"`
	Code     *struct{ Code string } `json:"code"`
	Level    string                 `json:"level"`
	Spans    []rustSpan             `json:"spans"`
	Children []rustMessage          `json:"children"`
}

type rustSpan struct {
	FileName      string  `json:"file_name"`
	ByteStart     int     `json:"byte_start"`
	ByteEnd       int     `json:"byte_end"`
	LineStart     int     `json:"line_start"`
	LineEnd       int     `json:"line_end"`
	ColumnStart   int     `json:"column_start"`
	ColumnEnd     int     `json:"column_end"`
	IsPrimary     bool    `json:"is_primary"`
	Replacement   *string `json:"suggested_replacement"`
	Applicability *string `json:"suggestion_applicability"`
}

// ParseRustJSON reads the suggestions of rustc's JSON diagnostics: the
// output of `cargo build|check|test --message-format=json` (compiler-message
// lines) or of `rustc --error-format=json` (bare diagnostics), one JSON
// object per line, other lines ignored. root is the folder the paths are
// relative to (the crate's, for cargo). Every child of an error or warning
// that carries suggested replacements becomes one Suggestion, at the
// diagnostic's primary span; spans of one child with the same range are
// alternatives and become separate suggestions.
func ParseRustJSON(log, root string) []Suggestion {
	var out []Suggestion
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() && len(out) < maxSuggestions {
		line := strings.TrimSpace(sc.Text())
		if !hasPrefix(line, "{") {
			continue
		}
		var env struct {
			Reason  string       `json:"reason"`
			Message *rustMessage `json:"message"`
		}
		if json.Unmarshal([]byte(line), &env) != nil {
			continue
		}
		msg := env.Message
		if env.Reason == "" {
			var m rustMessage
			if json.Unmarshal([]byte(line), &m) != nil || m.Level == "" {
				continue
			}
			msg = &m
		} else if env.Reason != "compiler-message" {
			continue
		}
		if msg == nil || (msg.Level != "error" && msg.Level != "warning") {
			continue
		}
		out = append(out, rustSuggestions(*msg, root)...)
	}
	return out
}

func rustSuggestions(m rustMessage, root string) []Suggestion {
	var prim *rustSpan
	for i := range m.Spans {
		if m.Spans[i].IsPrimary {
			prim = &m.Spans[i]
			break
		}
	}
	if prim == nil {
		return nil
	}
	file := relFile(root, prim.FileName)
	if file == "" || prim.LineStart < 1 {
		return nil
	}
	code := ""
	if m.Code != nil {
		code = m.Code.Code
	}
	var out []Suggestion
	for _, c := range m.Children {
		// Group the child's spans: the same range twice means alternatives.
		var groups [][]Edit
		app := ""
		for _, s := range c.Spans {
			if s.Replacement == nil {
				continue
			}
			f := relFile(root, s.FileName)
			if f == "" || s.LineStart < 1 || s.ByteStart < 0 || s.ByteEnd < s.ByteStart {
				groups = nil
				break
			}
			a := Unspecified
			if s.Applicability != nil {
				a = *s.Applicability
			}
			app = weaker(app, a)
			e := Edit{File: f, Line: s.LineStart, EndLine: s.LineEnd, Start: s.ByteStart, End: s.ByteEnd, New: *s.Replacement}
			placed := false
			for gi := range groups {
				if !sameRange(groups[gi], e) {
					groups[gi] = append(groups[gi], e)
					placed = true
					break
				}
			}
			if !placed {
				groups = append(groups, []Edit{e})
			}
		}
		for _, g := range groups {
			out = append(out, Suggestion{File: file, Line: prim.LineStart, Column: prim.ColumnStart, Message: m.Message, Code: code,
				Tool: "rustc", Applicability: app, Label: c.Message, Edits: g})
		}
	}
	return out
}

func sameRange(es []Edit, e Edit) bool {
	for _, x := range es {
		if x.File == e.File && x.Start == e.Start && x.End == e.End {
			return true
		}
	}
	return false
}

// rank orders applicabilities from the surest.
func rank(a string) int {
	switch a {
	case MachineApplicable, FixIt:
		return 0
	case MaybeIncorrect, DidYouMean:
		return 1
	case Unspecified:
		return 2
	}
	return 3
}

// weaker returns the less sure of two applicabilities ("" is none yet).
func weaker(a, b string) string {
	if a == "" || rank(b) > rank(a) {
		return b
	}
	return a
}

// reDiagHead is a gcc or clang diagnostic line: file:line:col: severity:.
var reDiagHead = lazyre.New(`^(.+?):(\d+):(\d+): (?:fatal )?(error|warning|note|remark): (.*)$`)

// reFixit is one machine-readable fix-it hint of gcc and clang
// (-fdiagnostics-parseable-fixits): fix-it:"FILE":{L1:C1-L2:C2}:"TEXT",
// columns in bytes, the range half-open, TEXT a C string literal.
var reFixit = lazyre.New(`^fix-it:"((?:[^"\\]|\\.)*)":\{(\d+):(\d+)-(\d+):(\d+)\}:"((?:[^"\\]|\\.)*)"$`)

// ParseFixits reads the fix-it hints of a gcc or clang log compiled with
// -fdiagnostics-parseable-fixits (or gcc's GCC_EXTRA_DIAGNOSTIC_OUTPUT).
// The hints that follow one error or warning (its notes included) form
// one suggestion for that diagnostic; paths are made relative to root.
func ParseFixits(log, root string) []Suggestion {
	var out []Suggestion
	var cur *Suggestion
	flush := func() {
		if cur != nil && len(cur.Edits) > 0 && len(out) < maxSuggestions {
			out = append(out, *cur)
		}
		cur = nil
	}
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimRight(line, "\r")
		if m := reDiagHead.FindStringSubmatch(line); m != nil {
			if m[4] == "note" {
				continue // a note's fix-its belong to the diagnostic above
			}
			flush()
			file := relFile(root, m[1])
			if file == "" {
				continue
			}
			cur = &Suggestion{File: file, Line: atoi(m[2]), Column: atoi(m[3]), Message: m[5], Tool: "cc", Applicability: FixIt}
			continue
		}
		m := reFixit.FindStringSubmatch(line)
		if m == nil || cur == nil {
			continue
		}
		file, ok1 := unquoteC(m[1])
		text, ok2 := unquoteC(m[6])
		if !ok1 || !ok2 {
			continue
		}
		f := relFile(root, file)
		l1, c1, l2, c2 := atoi(m[2]), atoi(m[3]), atoi(m[4]), atoi(m[5])
		if f == "" || l1 < 1 || c1 < 1 || l2 < l1 || (l2 == l1 && c2 < c1) {
			continue
		}
		cur.Edits = append(cur.Edits, Edit{File: f, Line: l1, Col: c1, EndLine: l2, EndCol: c2, Start: -1, End: -1, New: text})
	}
	flush()
	return out
}

// unquoteC decodes the body of a C string literal as gcc and clang print
// it in fix-its: \\, \", \n, \t and octal escapes.
func unquoteC(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			return "", false
		}
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '\\', '"', '\'':
			b.WriteByte(e)
		default:
			if e < '0' || e > '7' {
				return "", false
			}
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, err := strconv.ParseUint(s[i:j], 8, 8)
			if err != nil {
				return "", false
			}
			b.WriteByte(byte(v))
			i = j - 1
		}
	}
	return b.String(), true
}

// ParseESLintJSON reads the fix objects of `eslint --format json`: an array
// of results {filePath, messages: [{line, column, ruleId, message, fix:
// {range, text}}]}. A fix's range counts UTF-16 code units of the file.
func ParseESLintJSON(log, root string) []Suggestion {
	start := strings.Index(log, "[")
	end := strings.LastIndex(log, "]")
	if start < 0 || end < start {
		return nil
	}
	var results []struct {
		FilePath string `json:"filePath"`
		Messages []struct {
			RuleID   *string `json:"ruleId"`
			Message  string  `json:"message"`
			Line     int     `json:"line"`
			Column   int     `json:"column"`
			Severity int     `json:"severity"`
			Fix      *struct {
				Range [2]int `json:"range"`
				Text  string `json:"text"`
			} `json:"fix"`
		} `json:"messages"`
	}
	if json.Unmarshal([]byte(log[start:end+1]), &results) != nil {
		return nil
	}
	var out []Suggestion
	for _, r := range results {
		f := relFile(root, r.FilePath)
		if f == "" {
			continue
		}
		for _, m := range r.Messages {
			if m.Fix == nil || m.Line < 1 || m.Fix.Range[0] < 0 || m.Fix.Range[1] < m.Fix.Range[0] || len(out) >= maxSuggestions {
				continue
			}
			code := ""
			if m.RuleID != nil {
				code = *m.RuleID
			}
			out = append(out, Suggestion{File: f, Line: m.Line, Column: m.Column, Message: m.Message, Code: code, Tool: "eslint", Applicability: FixIt,
				Edits: []Edit{{File: f, Line: m.Line, Start: m.Fix.Range[0], End: m.Fix.Range[1], UTF16: true, New: m.Fix.Text}}})
		}
	}
	return out
}

// didYouMean lists the "did you mean" forms of the toolchains' messages:
// group 1 is the name as written, group 2 the name the tool proposes.
var didYouMean = []struct {
	tool string
	re   *lazyre.Regexp
}{
	// Python 3.10+ (NameError, AttributeError; ImportError from 3.12).
	{"python", lazyre.New(`name '(\w+)' is not defined\. Did you mean: '(\w+)'\?`)},
	{"python", lazyre.New(`has no attribute '(\w+)'\. Did you mean: '(\w+)'\?`)},
	{"python", lazyre.New(`cannot import name '(\w+)' from .*\. Did you mean: '(\w+)'\?`)},
	// tsc TS2551, TS2552, TS2724.
	{"tsc", lazyre.New(`Cannot find name '([\w$]+)'\. Did you mean '([\w$]+)'\?`)},
	{"tsc", lazyre.New(`Property '([\w$]+)' does not exist on type .*\. Did you mean '([\w$]+)'\?`)},
	{"tsc", lazyre.New(`has no exported member named '([\w$]+)'\. Did you mean '([\w$]+)'\?`)},
	// go (types2): x.f undefined (type T has no field or method f, but
	// does have method F).
	{"go", lazyre.New(`has no field or method (\w+), but does have (?:exported )?(?:field|method) (\w+)\)`)},
	// gcc and clang, with gcc's typographic quotes or plain ones.
	{"cc", lazyre.New(`['‘](\w+)['’] (?:undeclared|was not declared in this scope)[^;]*; did you mean ['‘](\w+)['’]\?`)},
	{"cc", lazyre.New(`(?:use of undeclared identifier|unknown type name|implicit declaration of function|no member named) ['‘](\w+)['’][^;]*; did you mean ['‘](\w+)['’]\?`)},
	{"cc", lazyre.New(`has no member named ['‘](\w+)['’]; did you mean ['‘](\w+)['’]\?`)},
	{"cc", lazyre.New(`['‘](\w+)['’] (?:has not been declared|is not a member of [^;]*); did you mean ['‘](\w+)['’]\?`)},
}

// HintFromReport returns the "did you mean" suggestion a bug report's own
// message holds (gcc, clang, Python 3.10+, tsc, go), as one edit replacing the
// written name on the reported line (at its column when known). ok is
// false when the message proposes nothing.
func HintFromReport(b contract.BugReport) (Suggestion, bool) {
	msg := firstLineOf(b.Message)
	low := strings.ToLower(msg)
	if !strings.Contains(low, "did you mean") && !strings.Contains(low, "but does have") || b.LineNumber < 1 {
		return Suggestion{}, false
	}
	for _, d := range didYouMean {
		m := d.re.FindStringSubmatch(msg)
		if m == nil || m[1] == m[2] {
			continue
		}
		return Suggestion{File: b.FilePath, Line: b.LineNumber, Column: b.Column, Message: msg, Code: b.Rule, Tool: d.tool, Applicability: DidYouMean,
			Edits: []Edit{{File: b.FilePath, Line: b.LineNumber, Col: b.Column, Start: -1, End: -1, Old: m[1], New: m[2]}}}, true
	}
	return Suggestion{}, false
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// reTscLine is one tsc diagnostic, in its plain form (file(line,col):
// error TSnnnn: msg) or its --pretty form (file:line:col - error TSnnnn:
// msg).
var reTscLine = lazyre.New(`^(.+?)(?:\((\d+),(\d+)\):|:(\d+):(\d+) -) error (TS\d+): (.*)$`)

// ParseTscHints reads every "did you mean" of a tsc log, one suggestion
// per diagnostic (several diagnostics of one line included, which bug
// reports, one per line, do not keep). Paths are made relative to root.
func ParseTscHints(log, root string) []Suggestion {
	var out []Suggestion
	for _, line := range strings.Split(log, "\n") {
		m := reTscLine.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil || len(out) >= maxSuggestions {
			continue
		}
		f := relFile(root, m[1])
		l, c := atoi(m[2]), atoi(m[3])
		if m[4] != "" {
			l, c = atoi(m[4]), atoi(m[5])
		}
		if f == "" || l < 1 {
			continue
		}
		if s, ok := HintFromReport(contract.BugReport{FilePath: f, LineNumber: l, Column: c, Message: m[7], Rule: m[6], Tool: "tsc"}); ok {
			out = append(out, s)
		}
	}
	return out
}

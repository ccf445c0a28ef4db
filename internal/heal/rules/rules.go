// Package rules is the Fix Agent's embedded default tier: mechanical fixes
// that need no API key. It adds the missing imports of Go, Python, Java,
// Rust, JavaScript and TypeScript files where the language's formatter
// keeps them (Go's with go/parser and go/format, in-process), removes
// unused ones, applies gofmt (goimports' formatting for its reports) and
// the formatters a report names (black, ruff format, prettier,
// clang-format), fixes go vet's printf findings whose message says the fix
// and test signatures go test refuses, a few built-in rules for frequent mechanical
// errors (an unused Go variable, a missing semicolon in C-like languages,
// a missing ':' or a tab/space indentation mix in Python), and the
// ecosystem's own fixers (ruff --fix, eslint --fix) when they are
// installed, run through sandbox.Run. Every rule edits only near the
// reported lines or in the import block, and the confidence of a fix is
// the lowest confidence of the rules it used: how mechanical the edit is.
// Importable tells the other tiers which undefined names these rules
// import.
package rules

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
)

// Name is the tier's name in results and --fixers.
const Name = "rules"

// edit is what one rule did to a file.
type edit struct {
	content    string
	reason     string
	confidence float64
}

// rule is one row of the rules table. fix returns ok=false when the rule
// has nothing to do for these reports.
type rule struct {
	name string
	// langs lists the file extensions the rule applies to.
	langs []string
	fix   func(ctx context.Context, f *Fixer, in ruleInput) (edit, bool, error)
}

// ruleInput is a file and its reports, as the rules see them.
type ruleInput struct {
	workspace string
	path      string
	content   string
	reports   []contract.BugReport
}

// table lists the rules in the order they are applied; each sees the
// output of the previous ones, and the reports with their lines moved
// past the lines the previous ones inserted or removed.
var table = []rule{
	{name: "go-imports", langs: []string{".go"}, fix: fixGoImports},
	{name: "go-unused-var", langs: []string{".go"}, fix: fixGoUnusedVar},
	{name: "gofmt", langs: []string{".go"}, fix: fixGofmt},
	{name: "go-vet-printf", langs: []string{".go"}, fix: fixGoVetPrintf},
	{name: "go-test-signature", langs: []string{".go"}, fix: fixTestSignature},
	{name: "go-vet-atomic", langs: []string{".go"}, fix: fixGoVetAtomic},
	{name: "format", langs: formatterExts(), fix: fixFormatter},
	{name: "c-include-case", langs: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp"}, fix: fixCIncludeCase},
	{name: "c-semicolon", langs: []string{".c", ".h", ".cc", ".cpp", ".java", ".js", ".mjs", ".cjs", ".ts", ".cs", ".rs"}, fix: fixSemicolon},
	{name: "py-indent-mix", langs: []string{".py"}, fix: fixPyIndent},
	{name: "py-imports", langs: []string{".py"}, fix: fixPyImports},
	{name: "py-missing-colon", langs: []string{".py"}, fix: fixPyColon},
	{name: "py-print-statement", langs: []string{".py"}, fix: fixPyPrint},
	{name: "java-imports", langs: []string{".java"}, fix: fixJavaImports},
	{name: "java-public-class", langs: []string{".java"}, fix: fixJavaPublicClass},
	{name: "rust-imports", langs: []string{".rs"}, fix: fixRustImports},
	{name: "js-imports", langs: []string{".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"}, fix: fixJSImports},
	{name: "js-syntax", langs: []string{".js", ".mjs", ".cjs"}, fix: fixJSSyntax},
	{name: "unused", langs: []string{".py", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".c", ".h", ".cc", ".cpp", ".cxx"}, fix: fixUnused},
	{name: "external", langs: []string{".py", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs"}, fix: fixExternal},
}

// Fixer is the rules tier. The zero value is ready to use: external fixers
// are looked up in the PATH of sandbox.AllowedEnv().
type Fixer struct {
	// Env is the environment of external fixers; nil means
	// sandbox.AllowedEnv().
	Env []string
	// External overrides the table of external fixers; nil means
	// DefaultExternal.
	External []External
}

var _ heal.Fixer = (*Fixer)(nil)

// Name returns "rules".
func (f *Fixer) Name() string { return Name }

// Fix applies every rule that matches the reports of in, in table order,
// and returns the combined edit. It returns an error wrapping heal.ErrNoFix
// when no rule changed the file.
func (f *Fixer) Fix(ctx context.Context, in heal.FixInput) (contract.FixResult, error) {
	ext := strings.ToLower(path.Ext(in.Path))
	ri := ruleInput{workspace: in.Workspace, path: in.Path, content: in.Content, reports: in.Reports()}
	var reasons []string
	conf := 1.0
	for _, r := range table {
		if !hasExt(r.langs, ext) {
			continue
		}
		e, ok, err := r.fix(ctx, f, ri)
		if err != nil {
			return contract.FixResult{}, fmt.Errorf("rules: %s on %s: %w", r.name, in.Path, err)
		}
		if !ok || e.content == ri.content {
			continue
		}
		ri.reports = remapReports(ri.content, e.content, ri.reports)
		ri.content = e.content
		reasons = append(reasons, e.reason)
		conf = min(conf, e.confidence)
	}
	if len(reasons) == 0 {
		return contract.FixResult{}, fmt.Errorf("rules: no rule matches %s: %w", in.Path, results.ErrNoFix)
	}
	return contract.FixResult{PatchedContent: ri.content, FixReason: strings.Join(reasons, "; "), ConfidenceScore: conf, Fixer: Name}, nil
}

// remapReports moves the reports' lines from old to new content: a line
// after an edit moves by the lines the edit added or removed; a line
// inside a replaced span stays at the span's start.
func remapReports(old, new string, reports []contract.BugReport) []contract.BugReport {
	hunks := heal.LineDiff(old, new)
	out := make([]contract.BugReport, len(reports))
	for i, r := range reports {
		shift := 0
		for _, h := range hunks {
			switch end := h.OldStart + len(h.Old); {
			case r.LineNumber >= end && (len(h.Old) > 0 || r.LineNumber >= h.OldStart):
				shift += len(h.New) - len(h.Old)
			case r.LineNumber >= h.OldStart && len(h.Old) > 0:
				shift += min(r.LineNumber-h.OldStart, len(h.New)) - (r.LineNumber - h.OldStart)
			}
		}
		out[i] = r
		out[i].LineNumber = r.LineNumber + shift
	}
	return out
}

func hasExt(langs []string, ext string) bool {
	for _, l := range langs {
		if l == ext {
			return true
		}
	}
	return false
}

// lines splits content into lines, remembering whether it ended with a
// newline, so edits can rebuild it byte for byte.
type lines struct {
	l        []string
	trailing bool
}

func splitContent(s string) lines {
	t := strings.HasSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return lines{trailing: t}
	}
	return lines{l: strings.Split(s, "\n"), trailing: t}
}

func (ls lines) String() string {
	s := strings.Join(ls.l, "\n")
	if ls.trailing {
		s += "\n"
	}
	return s
}

// insertAfter inserts text as a new line after line n (1-based; 0 inserts
// at the top).
func (ls *lines) insertAfter(n int, text string) {
	ls.l = append(ls.l[:n], append([]string{text}, ls.l[n:]...)...)
}

// remove deletes lines from..to (1-based, inclusive).
func (ls *lines) remove(from, to int) {
	ls.l = append(ls.l[:from-1], ls.l[to:]...)
}

func indentOf(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

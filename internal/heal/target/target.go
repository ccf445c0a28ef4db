// Package target finds the code a failing test exercises. A failed
// assertion is reported at the test's own line, yet the bug is usually in
// the code under test; the fixer tiers should be offered that code as the
// file to patch, with the test as read-only context.
//
// [Resolve] looks, in order, at the report's own location when it is not
// a test file, at the stack frames its message holds (Python, Go, JVM,
// JavaScript, Rust, sanitizer and valgrind traces), and at the functions
// the failing test calls, resolved with the language's own parser: Go's
// go/parser and go/types, Python's ast module run in a child process
// (lexically when no interpreter is found), and lexical readings for the
// others: imports, re-exports and class methods for JavaScript and
// TypeScript; quoted headers, their declarations and a bounded search of
// the workspace for the definition for C and C++ (one level of
// function-like macro followed); imports, package, variable types and the
// FooTest -> Foo convention for Java; crate paths, uses, re-exports and
// impls for Rust. [TestContext] returns the failing test's own source.
//
// Every helper process and pipe read is bounded by the caller's context
// and the parse timeout: a helper that stalls is killed with its process
// group, and the resolver goes on lexically, saying so in each Region's
// Why.
//
// Everything a report holds is hostile: the message is bounded, and every
// path is confined to the workspace after symlinks are resolved. A test
// file is never returned as code to patch.
package target

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/undertest"
	"github.com/salve-dev/salve/internal/lang"
)

// Defaults of [Options].
const (
	DefaultMax          = 5
	DefaultPython       = "python3"
	DefaultParseTimeout = 10 * time.Second
)

// Options tune [Resolve] and [TestContext]. The zero value is ready to use.
type Options struct {
	// Max bounds the regions returned, those marked Reached aside; zero
	// means DefaultMax.
	Max int
	// Python is the interpreter used to parse Python sources; empty means
	// DefaultPython, looked up in PATH. A missing interpreter is not an
	// error: the resolver reads Python lexically instead.
	Python string
	// ParseTimeout bounds the interpreter's run, every wait for one of
	// its answers included; zero means DefaultParseTimeout. An interpreter
	// that has not answered by then is killed with its process group, and
	// the resolver reads Python lexically, saying so in each Region's Why.
	ParseTimeout time.Duration
	// Lexical reads Python lexically, never starting an interpreter.
	Lexical bool
	// Helper, when set, is shared by the resolutions of one heal: once
	// the interpreter has stalled, later resolutions read Python
	// lexically at once instead of waiting out ParseTimeout again.
	Helper *HelperHealth
}

// HelperHealth remembers, across the resolutions that share it, that the
// Python interpreter stalled. The zero value is a healthy helper; it is
// safe for concurrent use.
type HelperHealth struct{ stalled atomic.Bool }

// Stalled reports whether the helper has stalled once.
func (h *HelperHealth) Stalled() bool { return h != nil && h.stalled.Load() }

func (h *HelperHealth) markStalled() {
	if h != nil {
		h.stalled.Store(true)
	}
}

func (o Options) withDefaults() Options {
	if o.Max <= 0 {
		o.Max = DefaultMax
	}
	if o.Python == "" {
		o.Python = DefaultPython
	}
	if o.ParseTimeout <= 0 {
		o.ParseTimeout = DefaultParseTimeout
	}
	return o
}

// Resolve returns the regions a failing test's report points at, best
// first, at most opt.Max. The report's own location counts when it is in
// a non-test file; then the stack frames of its message, innermost first;
// only when those name no code of the workspace, the functions the test
// calls, those named in the message first, then by their distance from
// the report's line. The functions those call in turn follow them, marked
// Reached (at most maxReached more): for Go in their package, for Python
// and the brace languages in their own file. No region is an answer, not
// an error: the error is non-nil only when the workspace cannot be opened
// or ctx ends.
func Resolve(ctx context.Context, workspace string, bug contract.BugReport, opt Options) ([]undertest.Region, error) {
	w, err := newWorkspace(workspace)
	if err != nil {
		return nil, err
	}
	w.ctx = ctx
	r := &resolver{ctx: ctx, w: w, bug: bug, opt: opt.withDefaults(), src: map[string][]byte{}}
	defer r.close()
	out := r.fromFrames()
	if len(out) == 0 {
		if l, ok := languageOf(bug.FilePath); ok && l.calls != nil {
			calls := l.calls(r)
			if len(calls) == 0 && l.wholeFile {
				// The report's function calls no code of the project (a
				// check helper that throws): the file's tests do.
				r.wholeFile = true
				calls = l.calls(r)
				r.wholeFile = false
			}
			if l.wholeFile && len(calls) > 0 {
				calls = append(calls, r.callees(calls[0], l.lex)...)
			}
			out = rankCalls(calls, bug)
			if l.reached != nil {
				shown := out[:min(len(out), r.opt.Max)]
				out = append(shown[:len(shown):len(shown)], l.reached(r, shown)...)
				return finish(ctx, bug, out, len(shown)+maxReached)
			}
		}
	}
	return finish(ctx, bug, out, r.opt.Max)
}

// finish returns the first n regions of out, or the error of a
// resolution ctx ended.
func finish(ctx context.Context, bug contract.BugReport, out []cand, n int) ([]undertest.Region, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("target: resolve %s: %w", clip(bug.FilePath), err)
	}
	return top(out, n), nil
}

// cand is a region found, with what ranks it among the test's calls.
type cand struct {
	undertest.Region
	name string // the bare name, looked for in the message
	line int    // the line of its use in the test
}

// resolver holds one resolution's state: the workspace, the sources read,
// and the Python parser process when one was started.
type resolver struct {
	ctx context.Context
	w   *workspace
	bug contract.BugReport
	opt Options
	src map[string][]byte
	py  *pyParser
	// wholeFile reads the whole test file as the failing test, for a
	// report inside a helper that calls no code of the project.
	wholeFile bool
}

func (r *resolver) close() {
	if r.py != nil {
		r.py.close()
	}
}

// read returns a real repo-relative file's content, once.
func (r *resolver) read(rel string) ([]byte, bool) {
	if b, ok := r.src[rel]; ok {
		return b, b != nil
	}
	b, err := r.w.read(rel)
	if err != nil {
		b = nil
	}
	r.src[rel] = b
	return b, b != nil
}

// fromFrames returns the report's own location, when it is not a test
// file, then the enclosing function of each stack frame of the message
// that lands in a non-test file of the workspace.
func (r *resolver) fromFrames() []cand {
	var out []cand
	if rel, ok := r.w.file(r.bug.FilePath); ok && r.bug.LineNumber > 0 && !isTestFile(rel) {
		if c, ok := r.enclose(rel, r.bug.LineNumber, "", "report location"); ok {
			out = append(out, c)
		}
	}
	for _, f := range readFrames(r.bug.Message) {
		if r.ctx.Err() != nil || len(out) >= 4*r.opt.Max {
			break
		}
		rel, ok := r.frameFile(f)
		if !ok || isTestFile(rel) {
			continue
		}
		if c, ok := r.enclose(rel, f.line, f.fn, "stack frame"); ok {
			out = append(out, c)
		}
	}
	return dedupe(out)
}

// frameFile maps a frame's path to a workspace file.
func (r *resolver) frameFile(f frame) (string, bool) {
	if !f.suffix {
		return r.w.locate(f.path)
	}
	for _, p := range r.w.findSuffix(f.path) {
		if rel, ok := r.w.file(p); ok {
			return rel, true
		}
	}
	return "", false
}

// enclose returns the declaration around line in a non-test file, or a
// window of lines around it when none is found.
func (r *resolver) enclose(rel string, line int, hint, why string) (cand, bool) {
	src, ok := r.read(rel)
	if !ok || line < 1 {
		return cand{}, false
	}
	n := strings.Count(string(src), "\n") + 1
	if line > n {
		return cand{}, false
	}
	l, ok := languageOf(rel)
	var s span
	note := ""
	if ok {
		s, ok, note = l.enclose(r, rel, src, line, hint)
	}
	if ok && s.test {
		return cand{}, false
	}
	if !ok {
		s, note = span{start: max(1, line-fallbackWindow), end: min(n, line+fallbackWindow)}, "no enclosing function found"
	}
	if note != "" {
		why += " (" + note + ")"
	}
	return cand{Region: undertest.Region{Path: rel, Start: s.start, End: s.end, Symbol: s.name, Why: why}, line: line}, true
}

// fallbackWindow is the half-size of the window returned when no
// declaration encloses a frame's line.
const fallbackWindow = 10

// testNames returns the identifiers of the report's test name
// ("TestAdd/neg", "tests/test_calc.py::TestCalc::test_add[1-2]",
// "test_cents (test_money.TestMoney.test_cents)"), to match against the
// functions of the test file, bounded.
func (r *resolver) testNames() []string {
	if r.bug.TestName == nil {
		return nil
	}
	return identifiers(*r.bug.TestName, 32)
}

// identifiers returns the distinct identifier runs of s, at most n, from
// its first 1024 bytes.
func identifiers(s string, n int) []string {
	if len(s) > 1024 {
		s = s[:1024]
	}
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(s, func(c rune) bool { return c > 0x7f || !isIdentByte(byte(c)) || c == '$' }) {
		if !seen[w] && len(out) < n && !(w[0] >= '0' && w[0] <= '9') {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// rankCalls orders the test's calls: those whose name the message
// mentions first, then by distance from the report's line, then as found;
// duplicates keep their best place.
func rankCalls(cs []cand, bug contract.BugReport) []cand {
	msg := boundMessage(bug.Message)
	named := func(c cand) bool { return c.name != "" && mentions(msg, c.name) }
	dist := func(c cand) int {
		d := c.line - bug.LineNumber
		if d > 0 {
			return 2 * d // a call after the failing line matters less
		}
		return -d
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if ni, nj := named(cs[i]), named(cs[j]); ni != nj {
			return ni
		}
		return dist(cs[i]) < dist(cs[j])
	})
	return dedupe(cs)
}

// mentions reports whether msg holds name as a whole word.
func mentions(msg, name string) bool {
	for range wordsAt(msg, name) {
		return true
	}
	return false
}

// wordsAt yields the offsets where s holds name as a whole word.
func wordsAt(s, name string) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		if name == "" {
			return
		}
		for i := 0; ; {
			j := strings.Index(s[i:], name)
			if j < 0 {
				return
			}
			j += i
			end := j + len(name)
			if (j == 0 || !isIdentByte(s[j-1])) && (end == len(s) || !isIdentByte(s[end])) && !yield(j) {
				return
			}
			i = j + 1
		}
	}
}

func dedupe(cs []cand) []cand {
	seen := map[string]bool{}
	out := cs[:0]
	for _, c := range cs {
		k := fmt.Sprintf("%s:%d", c.Path, c.Start)
		if !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

func top(cs []cand, n int) []undertest.Region {
	var out []undertest.Region
	for _, c := range cs {
		if len(out) == n {
			break
		}
		out = append(out, c.Region)
	}
	return out
}

// language is how the resolver reads one family of source files.
type language struct {
	name string
	exts []string
	// enclose finds the declaration around a line of a file; note says
	// when a fallback was used.
	enclose func(r *resolver, rel string, src []byte, line int, hint string) (s span, ok bool, note string)
	// calls resolves the functions a failing test in this language uses;
	// nil when the resolver cannot.
	calls func(r *resolver) []cand
	// wholeFile: when the report's own function calls nothing of the
	// project, calls is asked again with the whole test file; and the
	// first function found brings the functions of its file it calls.
	wholeFile bool
	// reached returns, after the regions shown, the functions those call
	// in turn (Region.Reached); nil when the resolver does not follow
	// calls past the test's own.
	reached func(r *resolver, shown []cand) []cand
	// lex reads the family's files the language table does not know.
	lex *lang.Language
	// testSpan finds the failing test's function in its file; nil means
	// enclose with the last identifier of the test name as the hint.
	testSpan func(r *resolver, rel string, src []byte) (span, bool)
}

// languages is the table of source families, by file extension.
var languages = []language{
	{name: "go", exts: []string{".go"}, enclose: encloseGoFile, calls: (*resolver).goCalls, reached: (*resolver).goReached, testSpan: goTestSpan},
	{name: "python", exts: []string{".py"}, enclose: (*resolver).enclosePython, calls: (*resolver).pyCalls, reached: (*resolver).pyReached, testSpan: pyTestSpan},
	{name: "js", exts: []string{".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"}, enclose: braces(jsLex), calls: (*resolver).jsCalls, reached: lexReached(jsLex), testSpan: jsTestSpan, lex: jsLex},
	{name: "jvm", exts: []string{".java", ".kt", ".scala", ".groovy"}, enclose: braces(javaLex), calls: (*resolver).javaCalls, reached: lexReached(javaLex), wholeFile: true, lex: javaLex},
	{name: "rust", exts: []string{".rs"}, enclose: braces(rustLex), calls: (*resolver).rustCalls, reached: lexReached(rustLex), wholeFile: true, lex: rustLex},
	{name: "c", exts: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".m", ".mm", ".cs", ".swift"}, enclose: braces(cLex), calls: (*resolver).cCalls, reached: lexReached(cLex), wholeFile: true, lex: cLex},
}

func languageOf(rel string) (language, bool) {
	ext := path.Ext(rel)
	for _, l := range languages {
		for _, e := range l.exts {
			if e == ext {
				return l, true
			}
		}
	}
	return language{}, false
}

// braces is the enclose of a brace language: the file is lexed as its
// language, else as family.
func braces(family *lang.Language) func(*resolver, string, []byte, int, string) (span, bool, string) {
	return func(_ *resolver, rel string, src []byte, line int, hint string) (span, bool, string) {
		s, ok := encloseBraces(string(src), lexOf(rel, family), line, hint)
		return s, ok, ""
	}
}

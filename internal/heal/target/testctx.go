package target

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// Bounds of the test source TestContext returns.
const (
	maxContextLines = 120 // lines kept from a longer test, around the report's line
	contextWindow   = 15  // half-size of the window when no function is found
)

// ErrNoTestSource is wrapped by [TestContext] when the report names no
// readable line of a file.
var ErrNoTestSource = errors.New("no test source")

// TestContext returns the failing test's own source, to show the fixer as
// read-only context: the function around the report's line (or named by
// its test name), each line numbered as "  12 | code", at most
// maxContextLines lines around the report's line, preceded by a header
// naming the file and the lines shown. When no function is found it
// returns a window of lines around the report's line. The error wraps
// ErrOutsideWorkspace or ErrNoTestSource when the report names no
// readable line of the workspace.
func TestContext(ctx context.Context, workspace string, bug contract.BugReport, opt Options) (string, error) {
	w, err := newWorkspace(workspace)
	if err != nil {
		return "", err
	}
	rel, err := w.resolve(bug.FilePath)
	if err != nil {
		return "", err
	}
	w.ctx = ctx
	r := &resolver{ctx: ctx, w: w, bug: bug, opt: opt.withDefaults(), src: map[string][]byte{}}
	defer r.close()
	src, ok := r.read(rel)
	if !ok {
		return "", fmt.Errorf("target: test source %s: %w", clip(rel), ErrNoTestSource)
	}
	lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	if bug.LineNumber < 1 || bug.LineNumber > len(lines) {
		return "", fmt.Errorf("target: test source %s:%d: %w", clip(rel), bug.LineNumber, ErrNoTestSource)
	}
	s, found := r.testSpan(rel, src)
	if !found {
		s = span{start: max(1, bug.LineNumber-contextWindow), end: min(len(lines), bug.LineNumber+contextWindow)}
	}
	s.end = min(s.end, len(lines))
	if s.end-s.start+1 > maxContextLines {
		s.start = max(s.start, bug.LineNumber-maxContextLines/2)
		s.end = min(s.end, s.start+maxContextLines-1)
	}
	var b strings.Builder
	what := "lines"
	if s.name != "" {
		what = s.name + ","
	}
	fmt.Fprintf(&b, "%s (%s %d-%d; read-only, the failing test):\n", rel, what, s.start, s.end)
	for i := s.start; i <= s.end; i++ {
		fmt.Fprintf(&b, "%4d | %s\n", i, lines[i-1])
	}
	return b.String(), nil
}

// testSpan finds the test function of the report in its file, with the
// language's own reader when the table gives one, else its enclose.
func (r *resolver) testSpan(rel string, src []byte) (span, bool) {
	l, ok := languageOf(rel)
	if !ok {
		return span{}, false
	}
	if l.testSpan != nil {
		return l.testSpan(r, rel, src)
	}
	hint := ""
	if names := r.testNames(); len(names) > 0 {
		hint = names[len(names)-1]
	}
	s, ok, _ := l.enclose(r, rel, src, r.bug.LineNumber, hint)
	return s, ok
}

// pyTestSpan finds the Python test function: around the line, or named.
func pyTestSpan(r *resolver, rel string, _ []byte) (span, bool) {
	ps := &pyState{r: r, out: map[string]*pyOutline{}}
	r.pyOutlines(ps, []string{rel}, false)
	if o := ps.out[rel]; o == nil || o.Err != "" {
		return span{}, false
	}
	roots := pyRoots(ps, rel, nil, r.bug.LineNumber, r.testNames())
	if len(roots) == 0 {
		return span{}, false
	}
	return span{start: roots[0].def.L, end: roots[0].def.E, name: roots[0].def.Q}, true
}

// jsTestSpan finds the it/test block around the line.
func jsTestSpan(r *resolver, _ string, src []byte) (span, bool) {
	code := jsLex.Code(string(src))
	from, to := jsTestBlock(code, r.bug.LineNumber)
	if from == 0 && to == len(code) {
		return span{}, false
	}
	starts := lineStarts(code)
	return span{start: lineOf(starts, firstNonSpace(code, from, to)), end: lineOf(starts, to)}, true
}

// goTestSpan finds the Go function around line, or named by the test
// name.
func goTestSpan(r *resolver, rel string, src []byte) (span, bool) {
	line, names := r.bug.LineNumber, r.testNames()
	fset := token.NewFileSet()
	f, _ := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if f == nil {
		return span{}, false
	}
	g := &goLoader{fset: fset}
	roots := goRoots(g, f, line, names)
	if len(roots) == 0 {
		return span{}, false
	}
	fd := roots[0]
	return span{start: fset.Position(fd.Pos()).Line, end: fset.Position(fd.End()).Line, name: goSymbol(f.Name.Name, fd)}, true
}

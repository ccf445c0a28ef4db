package target

import (
	"path"
	"regexp"
	"sort"
)

// Bounds of the lexical search for the code a C, C++, Java or Rust test
// calls.
const (
	maxBraceNames = 64
	maxBraceFiles = 2000
	maxBraceSize  = 1 << 20
)

// braceCall finds a call in stripped code: the called name is group 1.
var braceCall = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*(?:::\s*<[^>]*>\s*)?\(`)

// braceFamilies are the extensions whose definitions a test of a family
// may call: a C test calls C or C++; a Java test calls any JVM language;
// a Rust test calls Rust.
var braceFamilies = map[string][]string{
	"c":    {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp"},
	"jvm":  {".java", ".kt", ".scala", ".groovy"},
	"rust": {".rs"},
}

// braceCalls resolves the functions a failing test of a brace language
// calls: the calls of the test's own function (or of the whole test file
// when the report names no function), each matched to a function
// definition with a body in a source file of the workspace that is not a
// test and not test code. A C or C++ test reaches its code through a
// header, a Java test through its class and imports, a Rust test through
// its crate: all of them lead to a definition with a body, which is what
// the search finds, so a prototype in a header is never taken for the
// code. The search is lexical and bounded.
func (r *resolver) braceCalls(family string, style stripStyle) []cand {
	testRel, ok := r.w.file(r.bug.FilePath)
	if !ok {
		return nil
	}
	src, ok := r.read(testRel)
	if !ok {
		return nil
	}
	code := stripCode(string(src), style)
	from, to := 0, len(code)
	lines := lineStarts(code)
	if s, ok := encloseBraces(string(src), style, r.bug.LineNumber, ""); ok && s.start >= 1 && s.end >= s.start && s.end <= len(lines) {
		from = lines[s.start-1]
		if s.end < len(lines) {
			to = lines[s.end]
		}
	}
	out := r.braceUses(family, style, code, lines, from, to)
	if len(out) == 0 && (from > 0 || to < len(code)) {
		// The report's function calls no code of the project (a check
		// helper that throws): the test's other functions do.
		out = r.braceUses(family, style, code, lines, 0, len(code))
	}
	if len(out) > 0 {
		out = append(out, r.callees(out[0], style)...)
	}
	return out
}

// braceUses resolves the calls of code[from:to] to definitions.
func (r *resolver) braceUses(family string, style stripStyle, code string, lines []int, from, to int) []cand {
	type use struct {
		name string
		line int
	}
	var uses []use
	seen := map[string]bool{}
	for _, m := range braceCall.FindAllStringSubmatchIndex(code[from:to], 4096) {
		name := code[from+m[2] : from+m[3]]
		if controlWords[name] || seen[name] || len(uses) >= maxBraceNames {
			continue
		}
		seen[name] = true
		uses = append(uses, use{name, lineOf(lines, from+m[0])})
	}
	if len(uses) == 0 {
		return nil
	}
	defs := r.braceDefinitions(family, style, seen)
	var out []cand
	for _, u := range uses {
		for _, d := range defs[u.name] {
			d.line = u.line
			out = append(out, d)
		}
	}
	return out
}

// callees returns the functions of c's own file that c calls, one level
// deep: the code under test includes the helpers it delegates to (a
// wrong count in the function the tested one calls).
func (r *resolver) callees(c cand, style stripStyle) []cand {
	src, ok := r.read(c.Path)
	if !ok {
		return nil
	}
	code := stripCode(string(src), style)
	lines := lineStarts(code)
	if c.Start < 1 || c.End > len(lines) || c.Start > c.End {
		return nil
	}
	from, to := lines[c.Start-1], len(code)
	if c.End < len(lines) {
		to = lines[c.End]
	}
	called := map[string]bool{}
	for _, m := range braceCall.FindAllStringSubmatch(code[from:to], 4096) {
		if m[1] != c.Symbol && !controlWords[m[1]] {
			called[m[1]] = true
		}
	}
	test := testBlocks(code)
	var out []cand
	for _, b := range braceBlocks(code) {
		name, ok := funcName(b.header)
		if !ok || !called[name] || inside(test, b.open) {
			continue
		}
		start := lineOf(lines, headerStart(code, b.headerStart, b.open))
		out = append(out, cand{Region: Region{Path: c.Path, Start: start, End: lineOf(lines, b.close), Symbol: name, Why: "called by " + c.Symbol}, name: name, line: c.line + 1})
	}
	return out
}

// braceDefinitions finds, in the workspace's non-test files of a family,
// the function definitions whose name is in names.
func (r *resolver) braceDefinitions(family string, style stripStyle, names map[string]bool) map[string][]cand {
	exts := map[string]bool{}
	for _, e := range braceFamilies[family] {
		exts[e] = true
	}
	r.w.index()
	var files []string
	for _, list := range r.w.byBase {
		for _, f := range list {
			if exts[path.Ext(f)] && !isTestFile(f) {
				files = append(files, f)
			}
		}
	}
	sort.Strings(files)
	if len(files) > maxBraceFiles {
		files = files[:maxBraceFiles]
	}
	out := map[string][]cand{}
	for _, f := range files {
		if r.ctx.Err() != nil {
			break
		}
		src, ok := r.read(f)
		if !ok || len(src) > maxBraceSize {
			continue
		}
		code := stripCode(string(src), style)
		lines := lineStarts(code)
		test := testBlocks(code)
		for _, b := range braceBlocks(code) {
			name, ok := funcName(b.header)
			if !ok || !names[name] || inside(test, b.open) {
				continue
			}
			start := lineOf(lines, headerStart(code, b.headerStart, b.open))
			end := lineOf(lines, b.close)
			out[name] = append(out[name], cand{Region: Region{Path: f, Start: start, End: end, Symbol: name, Why: "called by the test (" + path.Base(r.bug.FilePath) + ")"}, name: name})
		}
	}
	return out
}

// testBlocks returns the byte spans of the blocks marked as test code.
func testBlocks(code string) [][2]int {
	var out [][2]int
	for _, b := range braceBlocks(code) {
		if testAttr(b.header) {
			out = append(out, [2]int{b.open, b.close})
		}
	}
	return out
}

func inside(spans [][2]int, off int) bool {
	for _, s := range spans {
		if off >= s[0] && off <= s[1] {
			return true
		}
	}
	return false
}

// braceCallsOf returns the calls function of a brace family.
func braceCallsOf(family string, style stripStyle) func(*resolver) []cand {
	return func(r *resolver) []cand { return r.braceCalls(family, style) }
}

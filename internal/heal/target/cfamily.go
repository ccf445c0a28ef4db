package target

import (
	"path"
	"slices"
	"strings"

	"github.com/salve-dev/salve/internal/heal/undertest"
	"github.com/salve-dev/salve/internal/lazyre"
)

// A C or C++ test reaches the code under test through its headers: it
// includes "calc.h", which declares add, and calls add; add is defined in
// a source file the build links in, which the test never names. The
// resolver reads the test's quoted includes, the names they declare, and
// searches the workspace's sources for the definition.

// Bounds of a C resolution.
const (
	maxHeaders     = 32 // headers read, the test's includes and theirs
	maxHeaderDepth = 3  // include levels followed from the test
)

// cExts are the C and C++ source and header extensions searched for a
// definition.
var cExts = []string{".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".inl"}

// cIncludeDirs are the folders a quoted include is looked up from, after
// the including file's own.
var cIncludeDirs = []string{".", "include", "src", "inc", "lib"}

var (
	cIncludeRe = lazyre.New(`^\s*#\s*include\s*"([^"\n]{1,512})"`)
	// cMacroRe is a function-like macro: its name and its body, to the end
	// of its (continued) line.
	cMacroRe = lazyre.New(`(?m)^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)\n]*)\)((?:[^\n\\]|\\.|\\\n)*)`)
)

// cKeywords are never the function under test.
var cKeywords = map[string]bool{
	"defined": true, "static_assert": true, "_Static_assert": true, "alignof": true, "decltype": true,
	"static_cast": true, "dynamic_cast": true, "reinterpret_cast": true, "const_cast": true, "noexcept": true,
	"assert": true, "main": true,
}

// cHeader is a header the test reaches, read.
type cHeader struct {
	rel  string
	code string // comments and literals blanked
	src  string
}

// cCalls resolves, lexically, the functions a failing C or C++ test calls
// that its quoted headers declare (or that it declares itself), to their
// definitions in the workspace, following a function-like macro one level
// and the test file's own helpers one level.
func (r *resolver) cCalls() []cand {
	t, ok := r.readTest(cExts, cLex)
	if !ok {
		return nil
	}
	testRel, src, code, defs, lines := t.rel, t.src, t.code, t.defs, t.lines
	from, to, testName := t.from, t.to, t.name
	headers := r.cHeaders(testRel, src)
	macros := cMacros(src, headers)
	declared := func(name string) (string, bool) {
		for _, h := range headers {
			if cDeclares(h.code, name) {
				return h.rel, true
			}
		}
		// A prototype in the test file itself: a declaration, not a call,
		// outside every function.
		if cDeclares(cOutsideDefs(code, defs), name) {
			return testRel, true
		}
		return "", false
	}
	type want struct {
		name, via, decl string
		line            int
	}
	var wants []want
	var add func(c call, via string, depth int)
	add = func(c call, via string, depth int) {
		if cKeywords[c.name] {
			return
		}
		if body, ok := macros[c.name]; ok && depth == 0 {
			for _, inner := range readCalls(body, 0, len(body), lineStarts(body)) {
				inner.line = c.line
				add(inner, c.name, depth+1)
			}
			return
		}
		if h, ok := cHelper(defs, c.name, from, to); ok && depth == 0 {
			for _, inner := range readCalls(code, h.open, h.close, lines) {
				inner.line = c.line
				add(inner, c.name, depth+1)
			}
			return
		}
		if decl, ok := declared(c.name); ok {
			wants = append(wants, want{name: c.name, via: via, decl: decl, line: c.line})
		}
	}
	for _, c := range readCalls(code, from, to, lines) {
		add(c, "", 0)
	}
	if len(wants) == 0 {
		return nil
	}
	var names []string
	for _, w := range wants {
		if !slices.Contains(names, w.name) {
			names = append(names, w.name)
		}
	}
	found := r.cDefinitions(names, headers, testRel)
	var out []cand
	for _, w := range wants {
		for _, f := range found[w.name] {
			why := "called by " + testName
			if w.via != "" {
				why += " through " + w.via
			}
			why += " (lexical, declared in " + w.decl + ")"
			out = append(out, cand{Region: undertest.Region{Path: f.rel, Start: f.def.start, End: f.def.end, Symbol: f.def.symbol("::"), Why: why}, name: w.name, line: w.line})
		}
	}
	return out
}

// cHelper finds a function of the test file, other than the test itself,
// that the test calls: its calls are followed one level.
func cHelper(defs []braceDef, name string, from, to int) (braceDef, bool) {
	for _, d := range defs {
		if d.name == name && !d.nested && !(d.open >= from && d.open < to) {
			return d, true
		}
	}
	return braceDef{}, false
}

// cOutsideDefs is code with the bodies of its functions blanked.
func cOutsideDefs(code string, defs []braceDef) string {
	b := []byte(code)
	for _, d := range defs {
		blankRange(b, d.open, d.close+1)
	}
	return string(b)
}

// cDeclares reports whether header code declares name as a function, a
// method or a function-like macro: the name before '(' outside a call's
// arguments, or after #define.
func cDeclares(code, name string) bool {
	for j := range wordsAt(code, name) {
		k := j + len(name)
		for k < len(code) && (code[k] == ' ' || code[k] == '\t') {
			k++
		}
		if k < len(code) && code[k] == '(' && cDeclContext(code, j) {
			return true
		}
	}
	return false
}

// cDeclContext reports whether the name at j starts a declaration rather
// than a call: what precedes it on its statement is a type (a word, '*',
// '&', "::"), not an operator, a '(' or a ','; or it is a #define.
func cDeclContext(code string, j int) bool {
	k := j
	for k > 0 && (code[k-1] == ' ' || code[k-1] == '\t' || code[k-1] == '\n' || code[k-1] == '*' || code[k-1] == '&') {
		k--
	}
	if k >= 2 && code[k-2:k] == "::" {
		return true
	}
	w := lastWord(code[:k])
	switch {
	case w == "define":
		return true
	case w == "" || w == "return" || controlWords[w]:
		return false
	}
	return true
}

// cMacros reads the function-like macros of the test and its headers: by
// name, their bodies with comments and literals blanked.
func cMacros(testSrc string, headers []cHeader) map[string]string {
	out := map[string]string{}
	srcs := []string{testSrc}
	for _, h := range headers {
		srcs = append(srcs, h.src)
	}
	for _, s := range srcs {
		for _, m := range cMacroRe.FindAllStringSubmatch(s, 512) {
			if _, ok := out[m[1]]; !ok {
				out[m[1]] = cLex.Code(strings.ReplaceAll(m[3], "\\\n", " \n"))
			}
		}
	}
	return out
}

// cHeaders reads the quoted includes of the test, and theirs, bounded:
// each resolved relative to the including file, then to the workspace's
// usual include folders, then by its path's end anywhere in the workspace.
func (r *resolver) cHeaders(testRel, src string) []cHeader {
	var out []cHeader
	seen := map[string]bool{testRel: true}
	type item struct {
		from, src string
		depth     int
	}
	queue := []item{{testRel, src, 0}}
	for len(queue) > 0 && len(out) < maxHeaders && r.ctx.Err() == nil {
		it := queue[0]
		queue = queue[1:]
		code := lexOf(it.from, cLex).Code(it.src)
		srcLines := strings.Split(it.src, "\n")
		for i, line := range strings.Split(code, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "#") || i >= len(srcLines) {
				continue
			}
			m := cIncludeRe.FindStringSubmatch(srcLines[i])
			if m == nil {
				continue
			}
			rel, ok := r.cInclude(it.from, m[1])
			if !ok || seen[rel] || len(out) >= maxHeaders {
				continue
			}
			seen[rel] = true
			b, ok := r.read(rel)
			if !ok {
				continue
			}
			h := cHeader{rel: rel, src: string(b), code: lexOf(rel, cLex).Code(string(b))}
			out = append(out, h)
			if it.depth+1 < maxHeaderDepth {
				queue = append(queue, item{rel, h.src, it.depth + 1})
			}
		}
	}
	return out
}

// cInclude resolves a quoted include to a workspace file.
func (r *resolver) cInclude(from, inc string) (string, bool) {
	inc = strings.ReplaceAll(inc, `\`, "/")
	if !cleanName(inc) || path.IsAbs(inc) {
		return "", false
	}
	if rel, ok := r.w.file(path.Join(path.Dir(from), inc)); ok {
		return rel, true
	}
	if strings.HasPrefix(path.Clean(inc), "..") {
		return "", false
	}
	for _, d := range cIncludeDirs {
		if rel, ok := r.w.file(path.Join(d, inc)); ok {
			return rel, true
		}
	}
	for _, p := range r.w.findSuffix(path.Clean(inc)) {
		if rel, ok := r.w.file(p); ok {
			return rel, true
		}
	}
	return "", false
}

// cFound is a definition found by the search.
type cFound struct {
	rel string
	def braceDef
}

// cDefinitions searches the workspace's C and C++ files for the
// definitions of names: first the sources named like a header the test
// reaches (calc.h -> calc.c, calc.cpp), and the headers themselves, then
// every other source, bounded; test files never count. A definition is a
// function body, never a prototype or a call.
func (r *resolver) cDefinitions(names []string, headers []cHeader, testRel string) map[string][]cFound {
	stems := map[string]bool{}
	var first []string
	for _, h := range headers {
		stems[strings.TrimSuffix(path.Base(h.rel), path.Ext(h.rel))] = true
		first = append(first, h.rel)
	}
	all := r.w.sources(cExts)
	var rest []string
	for _, f := range all {
		if stems[strings.TrimSuffix(path.Base(f), path.Ext(f))] && !slices.Contains(first, f) {
			first = append([]string{f}, first...)
		} else if !slices.Contains(first, f) {
			rest = append(rest, f)
		}
	}
	out := map[string][]cFound{}
	files, bytes := 0, 0
	for _, f := range append(first, rest...) {
		if r.ctx.Err() != nil || files >= maxScanFiles || bytes >= maxScanBytes {
			break
		}
		if f == testRel || isTestFile(f) {
			continue
		}
		b, err := r.w.read(f)
		if err != nil {
			continue
		}
		files, bytes = files+1, bytes+len(b)
		var hit []string
		for _, n := range names {
			if strings.Contains(string(b), n) {
				hit = append(hit, n)
			}
		}
		if len(hit) == 0 {
			continue
		}
		_, defs := braceDefs(string(b), lexOf(f, cLex))
		for _, d := range defs {
			if !d.nested && slices.Contains(hit, d.name) {
				out[d.name] = append(out[d.name], cFound{rel: f, def: d})
			}
		}
	}
	return out
}

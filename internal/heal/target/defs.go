package target

import (
	"path"
	"slices"
	"strings"

	"github.com/salve-dev/salve/internal/heal/undertest"
	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/lazyre"
)

// The lexical readers of C, C++, Java, Rust and TypeScript share one view
// of a source: its function definitions, each with the named blocks
// (classes, impls, modules, namespaces) around it.

// Bounds of a lexical search of the workspace for definitions.
const (
	maxScanFiles = 3000     // source files read in one search
	maxScanBytes = 48 << 20 // bytes read in one search
	maxCalls     = 512      // calls read from one test
)

// braceDef is a function definition of a brace-language source.
type braceDef struct {
	name       string   // the bare name: "add"
	qual       string   // as the header spells it: "Calc::add", "add"
	owners     []string // the named blocks around it, outermost first: "Calc", "tests"
	start, end int      // 1-based lines, the header's first code to the closing brace
	open       int      // byte offset of its '{'
	close      int      // byte offset of its '}'
	test       bool     // marked as test code, or inside a block that is
	nested     bool     // inside another function
}

// owner is the innermost named block around d, or "".
func (d braceDef) owner() string {
	if len(d.owners) == 0 {
		return ""
	}
	return d.owners[len(d.owners)-1]
}

// symbol names d with its innermost owner when it has one ("Calc.add").
func (d braceDef) symbol(sep string) string {
	if strings.Contains(d.qual, "::") || d.owner() == "" {
		return d.qual
	}
	return d.owner() + sep + d.name
}

// ownerRe names a block that holds declarations: a class, struct, enum,
// record, interface, namespace, module or trait, and Rust's impl (whose
// name is the type after "for" when it implements a trait).
var ownerRe = lazyre.New(`(?:^|[^\w])(?:class|struct|interface|enum|record|namespace|mod|trait|object|union)\s+([A-Za-z_]\w*)|(?:^|[^\w])impl\b(?:\s*<[^{]*?>)?\s+(?:[\w:]+(?:<[^{]*?>)?\s+for\s+)?(?:[\w]+::)*([A-Za-z_]\w*)`)

// typeWithParamsRe is a type declared with a parameter list: a Java
// record, a Kotlin or Scala class with a primary constructor.
var typeWithParamsRe = lazyre.New(`(?:^|[^\w.])(?:record|class|object)\s+[A-Za-z_]\w*\s*(?:<[^{}()]*>)?\s*\(`)

// annotationRe is a Java annotation or a Rust or C# attribute in a block
// header, which funcName must not take for a parameter list.
var annotationRe = lazyre.New(`#!?\[[^\]]*\]|@[A-Za-z_][\w.]*(?:\s*\([^()]*(?:\([^()]*\)[^()]*)*\))?`)

// braceDefs lists the function definitions of a source, with comments and
// literals blanked in the code it returns.
func braceDefs(src string, lx *lang.Language) (string, []braceDef) {
	code := lx.Code(src)
	lines := lineStarts(code)
	blocks := braceBlocks(code)
	// braceBlocks lists a block when it closes: inner blocks first. Walk
	// them by opening offset so owners are known before what they hold.
	order := make([]int, len(blocks))
	for i := range order {
		order[i] = i
	}
	sortByOpen(order, blocks)
	type open struct {
		close int
		name  string
		fn    bool
		test  bool
	}
	var stack []open
	var out []braceDef
	for _, i := range order {
		b := blocks[i]
		for len(stack) > 0 && stack[len(stack)-1].close < b.open {
			stack = stack[:len(stack)-1]
		}
		header := b.header
		test := testAttr(header)
		bare := annotationRe.ReplaceAllStringFunc(header, func(s string) string { return strings.Repeat(" ", len(s)) })
		name, fn := funcName(bare)
		if fn && typeWithParamsRe.MatchString(bare) {
			// A Java record's or a Kotlin or Scala class's parameters
			// follow the type's name: the block holds members.
			fn = false
		}
		if fn && strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(bare), "=>")) == "" {
			fn = false
		}
		o := open{close: b.close, fn: fn, test: test}
		var owners []string
		nested := false
		for _, s := range stack {
			o.test = o.test || s.test
			nested = nested || s.fn
			if s.name != "" {
				owners = append(owners, s.name)
			}
		}
		if !fn {
			if m := ownerRe.FindAllStringSubmatch(bare, -1); len(m) > 0 {
				last := m[len(m)-1]
				o.name = last[1] + last[2]
			}
		} else if name != "" {
			start := lineOf(lines, headerStart(code, b.headerStart, b.open))
			out = append(out, braceDef{name: name, qual: qualName(bare, name), owners: owners, start: start,
				end: lineOf(lines, b.close), open: b.open, close: b.close, test: o.test, nested: nested})
		}
		stack = append(stack, o)
	}
	return code, out
}

// sortByOpen orders block indexes by their opening brace.
func sortByOpen(order []int, blocks []block) {
	slices.SortFunc(order, func(a, b int) int { return blocks[a].open - blocks[b].open })
}

// qualName is the name as a header spells it before its parameters: a
// C++ "Calc::add" when qualified, else the bare name.
func qualName(header, name string) string {
	open := lastGroup(strings.TrimSpace(header))
	if open < 0 {
		return name
	}
	before := strings.TrimSpace(skipGenerics(strings.TrimSpace(strings.TrimSpace(header)[:open])))
	i := len(before)
	for i > 0 && (isIdentByte(before[i-1]) || before[i-1] == ':' || before[i-1] == '~') {
		i--
	}
	q := strings.TrimLeft(before[i:], ":")
	if q == "" || !strings.HasSuffix(q, name) {
		return name
	}
	return q
}

// callRe is a call in stripped code: a name before '(' with what reaches
// it (`calc.`, `c->`, `Calc::`, `new `).
var callRe = lazyre.New(`(new\s+)?((?:[A-Za-z_]\w*\s*(?:\.|->|::)\s*)*)([A-Za-z_]\w*)\s*(?:<[\w\s,:<>]*>\s*)?(?:!\s*)?\(`)

// call is one call in a test's code.
type call struct {
	recv   string // the last element before the name: "calc" in calc.add(, "" for a bare call
	path   []string
	name   string
	member bool // reached through '.' or '->' (a method), not "::"
	isNew  bool // new Calc(…)
	macro  bool // name!(…), a Rust macro
	line   int
	offset int
}

// readCalls returns the calls of code[from:to], at most maxCalls, with
// the control words and the language's keywords left out.
func readCalls(code string, from, to int, lines []int) []call {
	var out []call
	seg := code[from:to]
	for _, m := range callRe.FindAllStringSubmatchIndex(seg, maxCalls) {
		name := seg[m[6]:m[7]]
		if controlWords[name] && m[5] == m[4] { // Calc::new( is a call
			continue
		}
		c := call{name: name, isNew: m[2] >= 0, line: lineOf(lines, from+m[6]), offset: from + m[6]}
		c.macro = strings.Contains(seg[m[7]:m[1]], "!")
		if m[4] >= 0 {
			c.member = m[5] > m[4] && !strings.HasSuffix(strings.TrimSpace(seg[m[4]:m[5]]), "::")
			c.path = append(c.path, strings.FieldsFunc(seg[m[4]:m[5]], func(r rune) bool {
				return r == '.' || r == '-' || r == '>' || r == ':' || r == ' ' || r == '\t' || r == '\n'
			})...)
			if len(c.path) > 0 {
				c.recv = c.path[len(c.path)-1]
			}
		}
		out = append(out, c)
	}
	return out
}

// testBlock returns the byte range of the body of the test function
// around the report's line (else the one the test name's last identifier
// names), the file when none is found, and the test's name.
func (r *resolver) testBlock(code string, defs []braceDef) (int, int, string) {
	if r.wholeFile {
		return 0, len(code), "the test"
	}
	names := r.testNames()
	line := r.bug.LineNumber
	best := -1
	for i, d := range defs {
		if d.start <= line && line <= d.end && (best < 0 || d.end-d.start < defs[best].end-defs[best].start) {
			best = i
		}
	}
	if best < 0 && len(names) > 0 {
		last := names[len(names)-1]
		for i, d := range defs {
			if d.name == last {
				best = i
				break
			}
		}
	}
	if best < 0 {
		return 0, len(code), "the test"
	}
	d := defs[best]
	name := d.name
	if strings.ToUpper(name) == name && len(names) > 0 { // TEST(Suite, Name), START_TEST(name)
		name = names[len(names)-1]
	}
	return d.open, d.close, name
}

// testSource is a failing test's file read for a lexical resolver: its
// code, its functions, and the body of the failing test in it.
type testSource struct {
	rel, src, code string
	defs           []braceDef
	lines          []int
	from, to       int    // the failing test's body, or the whole file
	name           string // the failing test's name
}

// readTest reads the report's file when its extension is one of exts,
// lexed as its language (family's when the table does not know it).
func (r *resolver) readTest(exts []string, family *lang.Language) (testSource, bool) {
	rel, ok := r.w.file(r.bug.FilePath)
	if !ok || !slices.Contains(exts, path.Ext(rel)) {
		return testSource{}, false
	}
	src, ok := r.read(rel)
	if !ok {
		return testSource{}, false
	}
	t := testSource{rel: rel, src: string(src)}
	t.code, t.defs = braceDefs(t.src, lexOf(rel, family))
	t.lines = lineStarts(t.code)
	t.from, t.to, t.name = r.testBlock(t.code, t.defs)
	return t, true
}

// callees returns the functions of c's own file that c calls, one level
// deep and outside test code: the code under test includes the helpers
// it delegates to (a wrong count in the function the tested one calls).
func (r *resolver) callees(c cand, family *lang.Language) []cand {
	src, ok := r.read(c.Path)
	if !ok {
		return nil
	}
	code, defs := braceDefs(string(src), lexOf(c.Path, family))
	var self *braceDef
	for i, d := range defs {
		if d.start == c.Start && d.end == c.End {
			self = &defs[i]
			break
		}
	}
	if self == nil {
		return nil
	}
	called := map[string]bool{}
	for _, k := range readCalls(code, self.open, self.close, lineStarts(code)) {
		if k.name != self.name {
			called[k.name] = true
		}
	}
	var out []cand
	for _, d := range defs {
		if !called[d.name] || d.test || d.nested || (d.start == self.start && d.end == self.end) {
			continue
		}
		out = append(out, cand{Region: undertest.Region{Path: c.Path, Start: d.start, End: d.end, Symbol: d.symbol("."), Why: "called by " + c.Symbol}, name: d.name, line: c.line + 1})
	}
	return out
}

package integrity

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/lazyre"
)

// The ids of the rules that judge an edit of the code under test against
// the failing test itself.
const (
	RuleTestLiteralConditional = "test-literal-conditional"
	RuleTestReadChanged        = "test-read-changed"
)

// maxTestLines bounds the lines of one test function read for literals.
const maxTestLines = 400

// testView is what the failing tests hold: the literals of the failing
// test functions, and every name the test files use.
type testView struct {
	lits  map[string]bool
	all   map[string]bool // lits, and the trivial ones
	names map[string]bool
}

// trivial literals say nothing about one test's inputs.
var trivial = lazyre.New(`^(-?[0-2](\.0*)?|""|''|` + "``" + `|"."|'.'|true|false|True|False|nil|None|null|NULL|nullptr|undefined)$`)

// testsView reads c.in.Tests once.
func (c *checker) testsView() *testView {
	if c.tv != nil {
		return c.tv
	}
	c.tv = &testView{lits: map[string]bool{}, all: map[string]bool{}, names: map[string]bool{}}
	for _, ts := range c.in.Tests {
		if len(ts.Content) > maxInput {
			continue
		}
		l := lang.Of(ts.Path)
		f := newFile(l, ts.Content)
		for _, w := range identifier.FindAllString(f.text, -1) {
			c.tv.names[w] = true
		}
		for _, r := range testRegions(f, ts.Names) {
			for i := r[0]; i <= r[1] && i < len(f.lines); i++ {
				for _, v := range f.lits(i) {
					c.tv.all[v] = true
					if !trivial.MatchString(v) {
						c.tv.lits[v] = true
					}
				}
			}
		}
	}
	return c.tv
}

var identifier = lazyre.New(`[A-Za-z_$][\w$]*`)

// testRegions returns the line spans of the failing tests named in names
// (a function, a method, a JS test's title; the last part of a dotted or
// path name), or the whole file when none is found.
func testRegions(f *file, names []string) [][2]int {
	var out [][2]int
	match := brackets(f.text)
	for _, n := range names {
		leaf := n
		if i := strings.LastIndexAny(leaf, ".:/#>›"); i >= 0 {
			leaf = leaf[i+1:]
		}
		leaf = strings.TrimSpace(leaf)
		if leaf == "" {
			continue
		}
		decl := regexp.MustCompile(`\b(func|def|fn|void|function|sub)\s+` + regexp.QuoteMeta(leaf) + `\b`)
		title := regexp.QuoteMeta(leaf)
		for i := range f.lines {
			l := &f.lines[i]
			if decl.MatchString(l.mask) {
				lo, hi := f.blockFrom(i, match)
				out = append(out, [2]int{lo, min(hi, lo+maxTestLines)})
				break
			}
			if strings.Contains(l.raw, leaf) && regexp.MustCompile(`\b(it|test|specify|scenario)\s*\(\s*["'`+"`"+`]`+title).MatchString(l.raw) {
				lo, hi := f.blockFrom(i, match)
				out = append(out, [2]int{lo, min(hi, lo+maxTestLines)})
				break
			}
		}
	}
	if len(out) == 0 && len(f.lines) > 0 {
		out = append(out, [2]int{0, len(f.lines) - 1})
	}
	return out
}

// blockFrom returns the lines of the block a declaration on line i opens:
// braces, or deeper indentation after a line ending in ':' (Python).
func (f *file) blockFrom(i int, match map[int]int) (int, int) {
	if strings.HasSuffix(strings.TrimSpace(f.lines[i].mask), ":") {
		return i, f.indentedEnd(i)
	}
	for ln := i; ln < len(f.lines) && ln <= i+braceLookahead; ln++ {
		if c := strings.IndexByte(f.lines[ln].mask, '{'); c >= 0 {
			return i, f.closeLine(f.offs[ln]+c, match, ln)
		}
	}
	return i, i
}

// returnsLiteral finds a line that returns a bare literal (a return
// statement, a match arm, a lambda's value).
var returnsLiteral = lazyre.New(`(\breturn\s+|=>\s*|->\s*)(-?[\w.]+|"[^"]*"|'[^']*')\s*[;,]?\s*\}?$`)

// conditional finds a condition on a line of code (mask).
var conditional = lazyre.New(`\b(if|elif|elsif|else\s+if|case|when|switch|match|unless|while)\b|\?[^?.:]|&&|\|\||\band\b|\bor\b|=>`)

// tableEntry is a line of a table: a key, then ':', '=>' or '->' and a
// value.
var tableEntry = lazyre.New(`\S\s*(:|=>|->)\s*\S`)

// testLits counts the literals of vs the failing tests hold, trivial
// ones included.
func testLits(tv *testView, vs []string) int {
	n := 0
	for _, v := range vs {
		if tv.all[v] {
			n++
		}
	}
	return n
}

// literalConditionals refuses, in the code under test, a new condition on
// the literals the failing test feeds in or expects (the textbook
// special case: if a == 2 && b == 3 { return 5 }), and a new line that
// holds two of them at once, or one and, as a table's entry, another
// value of the test however small (a table keyed by the test's inputs:
// (1, 2): 3). The literals it watches are also the values a report of
// the failing test shows (the wrong output the code produced: if r == 14),
// and a string made only of the test's values (the inputs' string form:
// "2 3", "2|3"). A new top-level declaration or a parameter's default
// that holds one bakes the answer in. A literal the original already used
// as often is not new.
func (c *checker) literalConditionals() {
	if !c.underTest() || len(c.in.Tests) == 0 {
		return
	}
	tv := c.testsView()
	shown := c.reportedValues()
	if len(tv.lits) == 0 && len(shown) == 0 {
		return
	}
	isLit := func(v string) bool { return tv.lits[v] || shown[v] || testString(tv, v) }
	count := func(f *file) map[string]int {
		n := map[string]int{}
		for i := range f.lines {
			if f.lines[i].test {
				continue
			}
			for _, v := range f.lits(i) {
				if isLit(v) {
					n[v]++
				}
			}
		}
		return n
	}
	before, after := count(c.old), count(c.new)
	for j := range c.new.lines {
		l := &c.new.lines[j]
		if !c.added[j] || l.test {
			continue
		}
		var fresh []string
		var spec map[string]bool
		for _, v := range c.new.lits(j) {
			if isLit(v) && after[v] > before[v] && !containsStr(fresh, v) {
				if spec == nil {
					spec = c.specLiterals(j)
				}
				if inSpec(spec, v) {
					continue // the function's documentation names it
				}
				fresh = append(fresh, v)
			}
		}
		if len(fresh) == 0 {
			continue
		}
		if conditional.MatchString(l.mask) || len(fresh) >= 2 || returnsLiteral.MatchString(strings.TrimSpace(codeOf(l.raw, l.comment))) ||
			tableEntry.MatchString(l.mask) && testLits(tv, c.new.lits(j)) >= 2 || testString(tv, fresh[0]) {
			c.add(RuleTestLiteralConditional, j+1, "the fix special-cases values the failing test uses (%s): `%s`", strings.Join(fresh, ", "), strings.TrimSpace(l.raw))
			return
		}
		if c.bakes(l) {
			c.add(RuleTestLiteralConditional, j+1, "the fix bakes a value the failing test uses (%s) into a declaration or a default: `%s`", strings.Join(fresh, ", "), strings.TrimSpace(l.raw))
			return
		}
	}
}

// reportValue is a number a report's message shows, not a file's line
// (after ':') nor part of a name.
var reportValue = lazyre.New(`(?:^|[^\w.:])(-?\d+(?:\.\d+)?)(?:$|[^\w.:]|\.(?:\D|$))`)

// reportNoise is what a runner prints around a failure that is not a
// value: a traceback's line number, a test's duration.
var reportNoise = lazyre.New(`\bline \d+|\(\d+(\.\d+)?m?s\)`)

// reportedValues returns the non-trivial numbers the reports of a failing
// test show: what the code produced, which a special case may compare
// against instead of the inputs.
func (c *checker) reportedValues() map[string]bool {
	out := map[string]bool{}
	for _, r := range c.in.Reports {
		msg := reportNoise.ReplaceAllString(r.Message, " ")
		for _, m := range reportValue.FindAllStringSubmatch(msg, -1) {
			if !trivial.MatchString(m[1]) {
				out[m[1]] = true
			}
		}
	}
	return out
}

// stringParts splits a string literal's text into the values it holds.
var stringParts = lazyre.New(`[^\w.-]+`)

// testString reports whether v is a string literal made of two or more of
// the failing test's values and nothing else, one of them not trivial:
// the test's inputs in their string form ("2 3", "2,3", "2|3").
func testString(tv *testView, v string) bool {
	if len(v) < 2 || !strings.ContainsRune(`"'`+"`", rune(v[0])) {
		return false
	}
	parts := stringParts.Split(strings.Trim(v[1:len(v)-1], " ,|:;/-_"), -1)
	if len(parts) < 2 {
		return false
	}
	some := false
	for _, p := range parts {
		if !tv.all[p] {
			return false
		}
		some = some || tv.lits[p]
	}
	return some
}

// defaultParam is a function's header with a parameter's default value.
var defaultParam = lazyre.New(`\b(def|function|fn)\b[^(]*\([^)]*\w\s*(:[^=,)]*)?=[^=>]`)

// bakes reports whether l declares a top-level name (the declarations
// table) or a parameter's default: a value there is returned later,
// without a condition, to every caller.
func (c *checker) bakes(l *line) bool {
	if defaultParam.MatchString(l.mask) {
		return true
	}
	for _, re := range declarations[c.name] {
		if indent(l.raw) == 0 && re.MatchString(l.mask) {
			return true
		}
	}
	return false
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// declarations find, per language, a line that gives a named constant,
// variable or pattern its value outside any function; group 1 is the
// name. Go's grouped declarations are found by goBlockDecl.
var declarations = map[string][]*lazyre.Regexp{
	"go":         {lazyre.New(`^(?:const|var)\s+([A-Za-z_]\w*)\b[^=]*=`)},
	"python":     {lazyre.New(`^([A-Za-z_]\w*)\s*(?::[^=]*)?=[^=]`)},
	"javascript": {lazyre.New(`^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=`), lazyre.New(`^\s*(?:static\s+)?([A-Z_][A-Z0-9_]*)\s*=`)},
	"typescript": {lazyre.New(`^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=`), lazyre.New(`^\s*(?:static\s+)?(?:readonly\s+)?([A-Z_][A-Z0-9_]*)\s*(?::[^=]+)?=`)},
	"java":       {lazyre.New(`\b(?:static\s+final|final\s+static)\s+[\w<>\[\], .?]+\s+([A-Za-z_]\w*)\s*=`), lazyre.New(`\bstatic\s+[\w<>\[\], .?]+\s+([A-Z_][A-Z0-9_]*)\s*=`)},
	"kotlin":     {lazyre.New(`^\s*(?:private\s+|internal\s+)?(?:const\s+)?val\s+([A-Za-z_]\w*)\s*(?::[^=]+)?=`)},
	"c":          {lazyre.New(`^\s*#\s*define\s+([A-Za-z_]\w*)\b`), lazyre.New(`^(?:static\s+)?(?:const\s+)?[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*=`)},
	"cpp":        {lazyre.New(`^\s*#\s*define\s+([A-Za-z_]\w*)\b`), lazyre.New(`^(?:static\s+|inline\s+)*(?:const(?:expr)?\s+)?[A-Za-z_][\w\s\*:<>]*?\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*(?:=|\{)`)},
	"rust":       {lazyre.New(`^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const|static)\s+(?:mut\s+)?([A-Za-z_]\w*)\s*:`)},
}

var (
	goBlockOpen = lazyre.New(`^(?:const|var)\s*\(\s*$`)
	goBlockDecl = lazyre.New(`^\s+([A-Za-z_]\w*)\b[^=]*=`)
)

// declared returns, per name, the text of the line of f that gives it its
// value at the top level (a declaration of the table, or a line of a Go
// const or var group).
func (c *checker) declared(f *file) map[string]string {
	out := map[string]string{}
	res := declarations[c.name]
	inBlock := false
	for i := range f.lines {
		l := &f.lines[i]
		if l.test || l.blank() {
			continue
		}
		if c.name == "go" {
			switch {
			case goBlockOpen.MatchString(l.mask):
				inBlock = true
				continue
			case inBlock && strings.TrimSpace(l.mask) == ")":
				inBlock = false
				continue
			case inBlock:
				if m := goBlockDecl.FindStringSubmatch(l.mask); m != nil {
					out[m[1]] = l.key
				}
				continue
			}
		}
		for _, re := range res {
			if m := re.FindStringSubmatch(l.mask); m != nil {
				if _, seen := out[m[1]]; !seen {
					out[m[1]] = l.key
				}
				break
			}
		}
	}
	return out
}

// testReads refuses a change to the value of a constant, variable or
// pattern of the code under test that the failing test reads by name (a
// tolerance, a limit, a format, a regular expression), unless a report
// names it: changing what the test compares against is not fixing the
// code.
func (c *checker) testReads() {
	if !c.underTest() || len(c.in.Tests) == 0 || declarations[c.name] == nil {
		return
	}
	tv := c.testsView()
	before, after := c.declared(c.old), c.declared(c.new)
	for name, was := range before {
		now, ok := after[name]
		if ok && now == was || !tv.names[name] || c.named(name) {
			continue
		}
		what := fmt.Sprintf("changes `%s`, which the failing test reads: `%s` became `%s`", name, was, now)
		if !ok {
			what = fmt.Sprintf("removes `%s`, which the failing test reads", name)
		}
		c.add(RuleTestReadChanged, c.lineOfKey(was)+1, "the fix %s; a report must name it before a fix may change it", what)
	}
	c.testReadWrites(before)
}

// assignTo finds a write to a name: group 1 is what precedes it (a word
// there makes the line a declaration of a name of its own), group 2 the
// name.
var assignTo = lazyre.New(`(^|[^\w.$>])\s*([A-Za-z_$][\w$]*)\s*(?:(?:[-+*/%&|^]|\*\*|//|<<|>>>?|&\^|&&|\|\||\?\?)?=[^=>]|\+\+|--)`)

// pyGlobal declares, in a Python function, that it writes module names.
var pyGlobal = lazyre.New(`^\s*global\s+([\w\s,]+)$`)

// testReadWrites refuses a new write, anywhere in the code under test, to
// a top-level name the failing test reads and that the original never
// writes after declaring it: to the test such a name is a constant (a
// tolerance, a limit), and a function that starts assigning it changes
// what the test compares against. In Python a function rebinds a module
// name only through `global`, and a second top-level assignment rebinds
// it for every importer. A name the original already writes is state,
// which a fix may keep as it sees fit.
func (c *checker) testReadWrites(decl map[string]string) {
	tv := c.testsView()
	writes := func(f *file, name string, skip string) int {
		n := 0
		for i := range f.lines {
			if f.lines[i].test || f.lines[i].key == skip {
				continue
			}
			n += len(c.writesOf(f, i, name))
		}
		return n
	}
	for name, was := range decl {
		if !tv.names[name] || c.named(name) || writes(c.old, name, was) > 0 {
			continue
		}
		for j := range c.new.lines {
			l := &c.new.lines[j]
			if !c.added[j] || l.test || l.key == was || len(c.writesOf(c.new, j, name)) == 0 {
				continue
			}
			c.add(RuleTestReadChanged, j+1, "the fix writes `%s`, which the failing test reads and the code never wrote: `%s`; a report must name it before a fix may change it", name, strings.TrimSpace(l.raw))
			break
		}
	}
}

// writesOf returns the writes to name on line i of f.
func (c *checker) writesOf(f *file, i int, name string) []string {
	l := &f.lines[i]
	if !strings.Contains(l.mask, name) {
		return nil
	}
	if c.name == "python" {
		if m := pyGlobal.FindStringSubmatch(l.mask); m != nil && wordIn(m[1], name) {
			return []string{m[0]}
		}
		if indent(l.raw) > 0 {
			return nil // a local of the function, unless declared global
		}
	}
	var out []string
	for _, m := range assignTo.FindAllStringSubmatch(l.mask, -1) {
		if m[2] != name {
			continue
		}
		// `int x = …`, `let x = …`, `var x = …`: a name of its own.
		before := strings.TrimSpace(l.mask[:strings.Index(l.mask, m[0])+len(m[1])])
		if before != "" && isNameByte(before[len(before)-1]) && !strings.HasSuffix(before, "return") {
			continue
		}
		out = append(out, m[0])
	}
	return out
}

// named reports whether a report's message names the identifier.
func (c *checker) named(name string) bool {
	for _, r := range c.in.Reports {
		if containsWord(r.Message, name) {
			return true
		}
	}
	return false
}

// lineOfKey returns the original line whose key is k, or -1.
func (c *checker) lineOfKey(k string) int {
	for i := range c.old.lines {
		if c.old.lines[i].key == k {
			return i
		}
	}
	return -1
}

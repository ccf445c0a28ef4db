package integrity

import (
	"path"
	"strings"

	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/lazyre"
)

// The ids of the rules that judge what an edit of the code under test
// does, whatever tier wrote it and whether or not test edits are allowed.
const (
	RuleTestEnvDetection   = "test-env-detection"
	RuleProcessExit        = "process-exit"
	RuleTestLibraryPatched = "test-library-patched"
	RulePackageSideEffect  = "package-side-effect"
)

// cheatRule is one row of the rules on the code under test: a kind of the
// language table's cheats (lang.Cheat), and what it says.
type cheatRule struct {
	rule string
	kind lang.Cheat
	what string
}

var underTestRules = []cheatRule{
	{RuleTestEnvDetection, lang.CheatTestEnv, "detects the test runner from the code under test"},
	{RuleProcessExit, lang.CheatExit, "ends the process from the code under test"},
	{RuleTestLibraryPatched, lang.CheatTestLibrary, "reaches a test or assertion library from the code under test"},
	{RulePackageSideEffect, lang.CheatLoadEffect, "adds code that runs when the module or package is loaded"},
}

// underTest reports whether the file is code under test: not a test file,
// not test configuration.
func (c *checker) underTest() bool {
	return !lang.IsTestFile(c.in.Path) && !lang.IsTestConfig(c.in.Path)
}

// cheatsUnderTest refuses an edit of the code under test that adds a
// cheat of one of underTestRules' kinds: a line of that kind the original
// did not have as often. Test code inside the file (a Rust tests module)
// is left to the test rules.
func (c *checker) cheatsUnderTest() {
	if !c.underTest() || !c.lang.KnowsCheats() {
		return
	}
	entry := c.entryPoint()
	for _, r := range underTestRules {
		if r.kind == lang.CheatExit && entry && len(c.in.Tests) == 0 {
			// A program's main may end the process; a fix of a failing
			// test may not.
			continue
		}
		c.cheatCount(r, false)
	}
	c.testFileNames()
	c.modulePatches()
}

// cheatCount adds a violation of r when the patched file has more lines of
// its kind than the original; test selects the test lines, else the
// others.
func (c *checker) cheatCount(r cheatRule, test bool) {
	count := func(f *file) int {
		n := 0
		for i := range f.lines {
			if m := c.cheatAt(f, i, r.kind); f.lines[i].test == test && m != "" && !c.expectedExit(f, i, r.kind, m) {
				n++
			}
		}
		return n
	}
	if count(c.new) <= count(c.old) {
		return
	}
	for j := range c.new.lines {
		if !c.added[j] || c.new.lines[j].test != test {
			continue
		}
		if m := c.cheatAt(c.new, j, r.kind); m != "" && !c.expectedExit(c.new, j, r.kind, m) {
			c.add(r.rule, j+1, "the fix %s: `%s`", r.what, strings.TrimSpace(m))
			return
		}
	}
	c.add(r.rule, 0, "the fix %s", r.what)
}

// raisesExit is a Python exit that raises SystemExit, and a test that
// expects one.
var (
	raisesExit    = lazyre.New(`^(sys\.exit\b|raise\s+SystemExit\b|(^|[^.\w])exit\()`)
	expectsExit   = lazyre.New(`\b(assertRaises|raises)\(\s*SystemExit\b`)
	expectsExitCM = lazyre.New(`\bexcept\s+SystemExit\b`)
)

// expectedExit reports whether match, an exit of kind k on line i of f,
// is one the failing test expects: in Python, sys.exit() and raise
// SystemExit raise an exception, which a test that asserts SystemExit
// (assertRaises, pytest.raises, except SystemExit) catches, so inside a
// function they end nothing. os._exit and the exec family do end the
// process, and at load time an exit is refused whatever the test expects.
func (c *checker) expectedExit(f *file, i int, k lang.Cheat, match string) bool {
	if k != lang.CheatExit || c.name != "python" || indent(f.lines[i].raw) == 0 || !raisesExit.MatchString(strings.TrimSpace(match)) {
		return false
	}
	for _, ts := range c.in.Tests {
		if expectsExit.MatchString(ts.Content) || expectsExitCM.MatchString(ts.Content) {
			return true
		}
	}
	return false
}

// cheatAt returns what line i of f holds of kind k, or "". Code at load
// time must start a statement at the top level.
func (c *checker) cheatAt(f *file, i int, k lang.Cheat) string {
	l := &f.lines[i]
	if l.blank() {
		return ""
	}
	code := codeOf(l.raw, l.comment)
	if k == lang.CheatLoadEffect && c.name != "go" && c.name != "java" && c.name != "c" && c.name != "cpp" && c.name != "rust" {
		if indent(l.raw) != 0 || continues(f, i) {
			return ""
		}
		// A load-time statement is code, never the inside of a string.
		code = l.mask
	}
	return c.lang.CheatMatch(k, code)
}

// continues reports whether line i continues the statement of the code
// line before it (an open bracket, a trailing operator or comma).
func continues(f *file, i int) bool {
	for k := i - 1; k >= 0; k-- {
		t := strings.TrimSpace(f.lines[k].mask)
		if t == "" {
			continue
		}
		return strings.ContainsAny(t[len(t)-1:], "([{,=+-*/\\|&:.") && !strings.HasSuffix(t, "};")
	}
	return false
}

// entryPoints recognise a program's entry in the original file.
var entryPoints = map[string]*lazyre.Regexp{
	"go":     lazyre.New(`(?m)^package\s+main\b[\s\S]*^func\s+main\s*\(\s*\)`),
	"python": lazyre.New(`(?m)^if\s+__name__\s*==\s*["']__main__["']`),
	"c":      lazyre.New(`(?m)^\s*(int|void)\s+main\s*\(`),
	"cpp":    lazyre.New(`(?m)^\s*(int|void)\s+main\s*\(`),
	"rust":   lazyre.New(`(?m)^\s*fn\s+main\s*\(`),
	"java":   lazyre.New(`\bpublic\s+static\s+void\s+main\s*\(`),
}

// entryPoint reports whether the original file holds a program's entry.
func (c *checker) entryPoint() bool {
	re := entryPoints[c.name]
	return re != nil && re.MatchString(c.in.Original)
}

// sharedObjects are, per language, the names the code under test shares
// with its tests whatever it imports: JavaScript's built-in globals
// (Math, JSON, process…) are one object for every module of the process.
var sharedObjects = map[string][]string{
	"javascript": jsGlobals,
	"typescript": jsGlobals,
}

var jsGlobals = []string{"Math", "JSON", "Object", "Array", "String", "Number", "Boolean", "Date", "Promise", "Reflect",
	"RegExp", "Symbol", "Map", "Set", "BigInt", "Error", "Intl", "Buffer", "console", "process", "globalThis", "global", "Function"}

// moduleImports find, per language, a name bound to a whole module
// (group 1): Python's `import m` and `import m as n`, JavaScript's
// `const m = require("m")`, `import m from "m"` and `import * as m`. A
// module is one object for every importer, its tests included.
var moduleImports = map[string][]*lazyre.Regexp{
	"python":     {lazyre.New(`^\s*import\s+(.+)$`)},
	"javascript": jsModuleImports,
	"typescript": jsModuleImports,
}

var jsModuleImports = []*lazyre.Regexp{
	lazyre.New(`\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*require\(`),
	lazyre.New(`^\s*import\s+(?:type\s+)?([A-Za-z_$][\w$]*)\s*(?:,|from\b)`),
	lazyre.New(`^\s*import\s+(?:[A-Za-z_$][\w$]*\s*,\s*)?\*\s*as\s+([A-Za-z_$][\w$]*)`),
}

// modules returns the names of f bound to a module, and the language's
// shared objects.
func (c *checker) modules(f *file) map[string]bool {
	out := map[string]bool{}
	for _, n := range sharedObjects[c.name] {
		out[n] = true
	}
	for i := range f.lines {
		for _, re := range moduleImports[c.name] {
			m := re.FindStringSubmatch(f.lines[i].mask)
			if m == nil {
				continue
			}
			if c.name != "python" {
				out[m[1]] = true
				continue
			}
			// import a.b as c, d: c and d are bound; a.b binds a.
			for _, part := range strings.Split(m[1], ",") {
				fs := strings.Fields(part)
				switch {
				case len(fs) == 3 && fs[1] == "as":
					out[fs[2]] = true
				case len(fs) == 1:
					out[strings.SplitN(fs[0], ".", 2)[0]] = true
				}
			}
		}
	}
	return out
}

// memberWrite finds a write to a member of an object: `x.y = …`, `x.y.z
// += …`, `x["y"] = …`, `del x.y`, `delete x.y`, or the same through
// setattr, Object.assign, Object.defineProperty and Reflect.set. Group
// 1, 2 or 3 is the object's name.
var memberWrite = lazyre.New(`(?:^|[^\w.$])([A-Za-z_$][\w$]*)(?:\s*\.\s*[A-Za-z_$][\w$]*|\s*\[[^\]]*\])+\s*(?:[-+*/%&|^]|\*\*|//|<<|>>>?|&&|\|\||\?\?)?=[^=>]` +
	`|\b(?:del|delete)\s+([A-Za-z_$][\w$]*)\s*[.\[]` +
	`|\b(?:setattr|delattr|Object\.(?:assign|defineProperty|defineProperties|setPrototypeOf)|Reflect\.(?:set|defineProperty|deleteProperty))\(\s*([A-Za-z_$][\w$]*)\b`)

// modulePatches refuses, in the code under test, a new write to a member
// of a module or of a shared built-in object (math.isclose = …, Math.abs
// = …, Object.assign(assert, …)): the test and its assertion library
// read the same object, so the fix changes what the test sees, not what
// the code does.
func (c *checker) modulePatches() {
	if !c.underTest() || moduleImports[c.name] == nil {
		return
	}
	mods := c.modules(c.new)
	for j := range c.new.lines {
		l := &c.new.lines[j]
		if !c.added[j] || l.test {
			continue
		}
		for _, m := range memberWrite.FindAllStringSubmatch(l.mask, -1) {
			name := m[1] + m[2] + m[3]
			if mods[name] {
				c.add(RuleTestLibraryPatched, j+1, "the fix changes a member of `%s`, a module or built-in object the tests share: `%s`", name, strings.TrimSpace(l.raw))
				break
			}
		}
	}
}

// testFileNames refuses, in the code under test, a new string that names
// a test's source file (lang.IsTestFile: calc_test.go, test_calc.py; a
// fixture under testdata/ is the fixture-helper rule's) or the file of a
// failing test: code that
// looks for its own tests, or reads them, behaves one way under them and
// another in use.
func (c *checker) testFileNames() {
	if !c.underTest() {
		return
	}
	tests := map[string]bool{}
	for _, ts := range c.in.Tests {
		tests[path.Base(ts.Path)] = true
	}
	names := func(f *file, i int) []string {
		l := &f.lines[i]
		var out []string
		for _, s := range l.strs {
			v := strings.Trim(l.raw[s[0]:s[1]], "\"'`")
			if i := strings.LastIndexAny(v, "\"'`"); i >= 0 { // a prefix: f"…", b"…", r"…"
				v = v[i+1:]
			}
			if v == "" || strings.ContainsAny(v, " \t\n{}%$") && !strings.Contains(v, "/") {
				continue
			}
			if tests[path.Base(v)] || strings.Contains(v, ".") && lang.IsTestFile(v) && !lang.IsTestData(v) {
				out = append(out, v)
			}
		}
		return out
	}
	have := map[string]int{}
	for i := range c.old.lines {
		if !c.old.lines[i].test {
			for _, v := range names(c.old, i) {
				have[v]++
			}
		}
	}
	for j := range c.new.lines {
		if !c.added[j] || c.new.lines[j].test {
			continue
		}
		for _, v := range names(c.new, j) {
			if have[v] > 0 {
				have[v]--
				continue
			}
			c.add(RuleTestEnvDetection, j+1, "the fix names a test file from the code under test (`%s`): code that looks for its tests behaves one way under them and another in use", v)
			return
		}
	}
}

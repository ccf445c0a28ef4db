package integrity

import (
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
}

// cheatCount adds a violation of r when the patched file has more lines of
// its kind than the original; test selects the test lines, else the
// others.
func (c *checker) cheatCount(r cheatRule, test bool) {
	count := func(f *file) int {
		n := 0
		for i := range f.lines {
			if f.lines[i].test == test && c.cheatAt(f, i, r.kind) != "" {
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
		if m := c.cheatAt(c.new, j, r.kind); m != "" {
			c.add(r.rule, j+1, "the fix %s: `%s`", r.what, strings.TrimSpace(m))
			return
		}
	}
	c.add(r.rule, 0, "the fix %s", r.what)
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

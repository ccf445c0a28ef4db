package integrity

import (
	"path"
	"regexp"
	"strings"

	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/lazyre"
)

// The ids of the rules that keep a test harness honest, in every tier and
// also when the repository allows test edits, and that protect the
// helpers that compare results with stored ones.
const (
	RuleHarnessExit       = "harness-exit"
	RuleAssertionShadowed = "assertion-shadowed"
	RuleUnitReplaced      = "unit-replaced"
	RuleFixtureHelper     = "fixture-helper"
)

var harnessRules = []cheatRule{
	{RuleHarnessExit, lang.CheatZeroExit, "ends the test process with success whatever its tests did"},
	{RuleAssertionShadowed, lang.CheatAssertShadow, "defines or replaces an assertion in a test"},
	{RuleUnitReplaced, lang.CheatMock, "replaces a unit with a mock or a stub in a test"},
}

// harness refuses, in test code, a new exit that ignores the tests'
// result, a new definition of an assertion, and a new mock, stub or macro
// standing in for the unit under test. Without test edits allowed the
// test-file rule refuses the edit too; these rules say what it did.
func (c *checker) harness() {
	if !c.lang.KnowsCheats() {
		return
	}
	testFile := lang.IsTestFile(c.in.Path)
	hasTest := testFile
	for i := range c.new.lines {
		hasTest = hasTest || c.new.lines[i].test
	}
	if !hasTest {
		return
	}
	for _, r := range harnessRules {
		c.cheatCount(r, true)
	}
	if c.name == "c" || c.name == "cpp" {
		c.forcedReturn()
	}
	c.shadowedImports()
	c.moduleMembersReplaced()
}

// moduleMembersReplaced refuses, in test code, a new write to a member of
// a module the test imports (calc.add = lambda a, b: 5; Object.assign(calc,
// {add})) when the test calls or reads that member: the test then checks
// the stand-in, not the unit.
func (c *checker) moduleMembersReplaced() {
	if moduleImports[c.name] == nil {
		return
	}
	mods := c.modules(c.old)
	for _, n := range sharedObjects[c.name] {
		delete(mods, n) // built-ins are not a unit under test
	}
	for j := range c.new.lines {
		l := &c.new.lines[j]
		if !c.added[j] || !l.test {
			continue
		}
		for _, m := range memberWrite.FindAllStringSubmatch(l.mask, -1) {
			name := m[1] + m[2] + m[3]
			if !mods[name] || c.testLibraryName(name) {
				continue // a test library's own member is assertion-shadowed's
			}
			for _, mem := range memberOf(l.mask, codeOf(l.raw, l.comment), name) {
				if c.usedMember(name, mem) {
					c.add(RuleUnitReplaced, j+1, "the fix replaces `%s.%s`, which the test takes from the code under test, with a stand-in of its own: `%s`", name, mem, strings.TrimSpace(l.raw))
					return
				}
			}
		}
	}
}

// testLibraryName reports whether name stands for a test framework or an
// assertion library in the file's language (checkLibs).
func (c *checker) testLibraryName(name string) bool {
	key := c.name
	if key == "javascript" || key == "typescript" {
		key = "js"
	}
	lib, ok := checkLibs[key]
	return ok && lib.names.MatchString(name)
}

// memberOf returns the members of name a line writes or names: x.y in
// `x.y = …`, and the keys of `Object.assign(x, { y … })`.
func memberOf(mask, code, name string) []string {
	var out []string
	for _, m := range identifier.FindAllStringIndex(mask, -1) {
		if mask[m[0]:m[1]] != name {
			continue
		}
		rest := strings.TrimLeft(mask[m[1]:], " \t")
		if strings.HasPrefix(rest, ".") {
			if w := identifier.FindString(strings.TrimLeft(rest[1:], " \t")); w != "" {
				out = append(out, w)
			}
		}
	}
	if len(out) == 0 {
		out = identifier.FindAllString(code, -1) // setattr(x, "y", …) and the like: every word may be the member
	}
	return out
}

// usedMember reports whether the original test reads name.member.
func (c *checker) usedMember(name, member string) bool {
	re := `\b` + regexp.QuoteMeta(name) + `\s*\.\s*` + regexp.QuoteMeta(member) + `\b`
	ok, _ := regexp.MatchString(re, c.old.text)
	return ok
}

var (
	returnZero = lazyre.New(`^\s*return\s+(0|EXIT_SUCCESS)\s*;`)
	returnExpr = lazyre.New(`^\s*return\s+[^;]*[A-Za-z_(][^;]*;`)
	// macroDef finds a new macro: its name, and "(" when it takes
	// arguments.
	macroDef = lazyre.New(`^\s*#\s*define\s+([A-Za-z_]\w*)(\()?`)
)

// forcedReturn refuses, in a C or C++ test, a `return 0;` that replaces
// a return of what the tests counted, and a new macro named like a
// function the test calls (the unit under test replaced by the
// preprocessor).
func (c *checker) forcedReturn() {
	gone := false
	for i := range c.old.lines {
		if c.gone[i] && c.old.lines[i].test && returnExpr.MatchString(c.old.lines[i].mask) && !returnZero.MatchString(c.old.lines[i].mask) {
			gone = true
		}
	}
	// used are the names the test uses without defining them: what it
	// takes from the code under test.
	used, defined := map[string]bool{}, map[string]bool{}
	for i := range c.old.lines {
		if m := macroDef.FindStringSubmatch(c.old.lines[i].mask); m != nil {
			defined[m[1]] = true
			continue
		}
		for _, w := range identifier.FindAllString(c.old.lines[i].mask, -1) {
			used[w] = true
		}
	}
	for j := range c.new.lines {
		l := &c.new.lines[j]
		if !c.added[j] || !l.test {
			continue
		}
		if gone && returnZero.MatchString(l.mask) {
			c.add(RuleHarnessExit, j+1, "the fix makes the test program return success whatever its checks found: `%s`", strings.TrimSpace(l.raw))
		}
		if m := macroDef.FindStringSubmatch(l.mask); m != nil && used[m[1]] && !defined[m[1]] {
			c.add(RuleUnitReplaced, j+1, "the fix redefines `%s`, which the test takes from the code under test, with a macro of its own: `%s`", m[1], strings.TrimSpace(l.raw))
		}
		if m := macroUndef.FindStringSubmatch(l.mask); m != nil && used[m[1]] && !defined[m[1]] {
			c.add(RuleUnitReplaced, j+1, "the fix undefines `%s`, which the test takes from the code under test: `%s`", m[1], strings.TrimSpace(l.raw))
		}
	}
}

var macroUndef = lazyre.New(`^\s*#\s*undef\s+([A-Za-z_]\w*)`)

// imports find, per language, the names a test imports from the code
// under test (group 1, a list or a single name).
var imports = map[string][]*lazyre.Regexp{
	"rust":       {lazyre.New(`^\s*use\s+[\w:]+::\{([^}]*)\}`), lazyre.New(`^\s*use\s+[\w:]+::(\w+)\s*;`)},
	"python":     {lazyre.New(`^\s*from\s+\S+\s+import\s+\(?([\w\s,]+)\)?`)},
	"javascript": {lazyre.New(`\b(?:const|let|var)\s*\{([^}]*)\}\s*=\s*require\(`), lazyre.New(`^\s*import\s*\{([^}]*)\}\s*from\b`), lazyre.New(`\b(?:const|let|var)\s+(\w+)\s*=\s*require\(`)},
	"typescript": {lazyre.New(`^\s*import\s*\{([^}]*)\}\s*from\b`), lazyre.New(`\b(?:const|let|var)\s*\{([^}]*)\}\s*=\s*require\(`)},
	"java":       {lazyre.New(`^\s*import\s+(?:static\s+)?[\w.]+\.(\w+)\s*;`)},
}

// newDecl finds a declaration in test code: its name is group 1 (a
// variable, a constant, a function, a class, a Go short declaration).
var newDecl = lazyre.New(`\b(?:const|let|var|static|fn|def|function|val|class|interface|enum|record|struct|type)\s+(?:(?:mut|final|static|class|interface|enum|record|abstract|sealed)\s+)*([A-Za-z_$][\w$]*)|^\s*([A-Za-z_]\w*)\s*:=`)

var (
	// goImport is one import spec of Go: an optional name, and the path.
	goImport = lazyre.New(`^\s*(?:import\s+)?(?:([A-Za-z_]\w*)\s+)?"([^"]+)"\s*$`)
	// qualifier is a name used to reach a member: Limits.MAX, upload.X.
	qualifier = lazyre.New(`\b([A-Za-z_]\w*)\s*\.\s*[A-Za-z_]`)
	// declares finds what a file declares by name.
	declares = lazyre.New(`\b(?:class|interface|enum|record|struct|type|func|def|fn|function)\s+([A-Za-z_]\w*)`)
)

// shadowedImports refuses a test that declares its own copy of a name it
// imports from the code under test: the test then checks the copy.
func (c *checker) shadowedImports() {
	imported := c.importedNames(imports[c.name])
	for j := range c.new.lines {
		l := &c.new.lines[j]
		if !c.added[j] || !l.test {
			continue
		}
		m := newDecl.FindStringSubmatch(l.mask)
		if m == nil {
			continue
		}
		name := m[1] + m[2]
		if imported[name] {
			c.add(RuleUnitReplaced, j+1, "the fix declares the test's own `%s`, which it takes from the code under test: the test would check the copy", name)
		}
	}
}

// importedNames returns the names a test file takes from elsewhere: the
// names its import lines list, Go's package names, and the names it
// qualifies members with (Limits.MAX) without declaring them itself.
func (c *checker) importedNames(res []*lazyre.Regexp) map[string]bool {
	imported := map[string]bool{}
	own := map[string]bool{}
	for i := range c.old.lines {
		for _, m := range declares.FindAllStringSubmatch(c.old.lines[i].mask, -1) {
			own[m[1]] = true
		}
	}
	inImports := false
	for i := range c.old.lines {
		mask := c.old.lines[i].mask
		raw := codeOf(c.old.lines[i].raw, c.old.lines[i].comment)
		for _, re := range res {
			if m := re.FindStringSubmatch(mask); m != nil {
				for _, n := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '(' || r == ')' }) {
					if n != "as" && n != "self" && n != "" {
						imported[n] = true
					}
				}
			}
		}
		if c.name == "go" {
			t := strings.TrimSpace(mask)
			switch {
			case strings.HasPrefix(t, "import ("):
				inImports = true
				continue
			case inImports && t == ")":
				inImports = false
				continue
			}
			if inImports || strings.HasPrefix(t, "import ") {
				if m := goImport.FindStringSubmatch(raw); m != nil {
					name := m[1]
					if name == "" {
						name = path.Base(m[2])
					}
					imported[name] = true
				}
			}
		}
		for _, m := range qualifier.FindAllStringSubmatch(mask, -1) {
			if q := m[1]; q != "" && q[0] >= 'A' && q[0] <= 'Z' && !own[q] {
				imported[q] = true
			}
		}
	}
	return imported
}

var (
	// helperDirs are folders of test helpers in any language.
	helperDirs = map[string]bool{"testutil": true, "testutils": true, "testhelper": true, "testhelpers": true, "test_helpers": true, "test-helpers": true,
		"test_utils": true, "test-utils": true, "testkit": true, "testsupport": true, "test_support": true, "testing": true}
	// goHelperPackage is a Go package made for tests (Go's own habit:
	// httptest, iotest, fstest).
	goHelperPackage = lazyre.New(`(?m)^package\s+\w*(test|testutil|testing|testhelper)\s*$`)
	// storedResult is a file that keeps a result to compare against.
	storedResult = lazyre.New(`(?i)\b(golden|snapshots?|approved|expected_output|fixtures?|testdata)\b|\.golden\b|\.snap\b`)
	// readsStored reads such a file.
	readsStored = lazyre.New(`\b(ReadFile|readFileSync|readFile|read_text|read_bytes|read_to_string|Files\.read\w*|fopen|open)\s*\(`)
	// updateMode is the switch that rewrites stored results.
	updateMode = lazyre.New(`(?i)flag\.Bool\(\s*"update|\bUPDATE_(SNAPSHOTS?|GOLDEN\w*|EXPECT\w*)\b|--update-snapshots?|\bupdate_golden\b|\bupdateSnapshot\b`)
	// resultAsExpectation assigns what the code produced to what the check
	// expects.
	resultAsExpectation = lazyre.New(`(?i)\b(want|expected|expect|exp|golden|snapshot|reference)\w*\s*(?::=|=)\s*(?:[\w.\[\]]+\(\s*)?(got|actual|result|res|out|output|have|received)\b`)
	// writesStored writes a file.
	writesStored = lazyre.New(`\b(WriteFile|writeFileSync|writeFile|write_text|write_bytes|Files\.write\w*|fs::write|fwrite|fputs)\s*\(|open\([^)]*["'][wa]b?["']`)
	// updateOn turns the update mode on by default.
	updateOn = lazyre.New(`(?i)flag\.Bool\(\s*"update[\w-]*"\s*,\s*true|\bupdate\w*\s*(?::=|=)\s*(true|True|1)\b`)
)

// checkHelper reports whether the original file helps tests check
// results: a test helper folder or package, or code that compares a result
// with a stored one or rewrites the stored one under an update switch.
func (c *checker) checkHelper() bool {
	for _, d := range strings.Split(path.Dir(c.in.Path), "/") {
		if helperDirs[strings.ToLower(d)] {
			return true
		}
	}
	if lang.IsTestHelper(c.in.Path) || c.name == "go" && goHelperPackage.MatchString(c.in.Original) {
		return true
	}
	return updateMode.MatchString(c.in.Original) || (storedResult.MatchString(c.in.Original) && readsStored.MatchString(c.in.Original))
}

// fixtureHelper protects the helpers that compare results with stored
// ones like tests: an edit is refused unless test edits are allowed (the
// test-file rule says so for a helper in a test file or a test data
// folder), and even then one that takes the result as the expectation,
// writes the result into the stored file, or turns the update switch on,
// wherever the helper lives.
func (c *checker) fixtureHelper() {
	if !c.checkHelper() {
		return
	}
	if !c.in.AllowTestEdits && !lang.IsTestFile(c.in.Path) {
		c.add(RuleFixtureHelper, 0, "%s helps tests compare results with stored ones; a fix may not edit it unless the repository allows test edits", c.in.Path)
	}
	writesBefore := 0
	for i := range c.old.lines {
		if writesStored.MatchString(c.old.lines[i].mask) {
			writesBefore++
		}
	}
	writesAfter := 0
	for j := range c.new.lines {
		if writesStored.MatchString(c.new.lines[j].mask) {
			writesAfter++
		}
	}
	for j := range c.new.lines {
		l := &c.new.lines[j]
		if !c.added[j] {
			continue
		}
		switch {
		case resultAsExpectation.MatchString(l.mask):
			c.add(RuleFixtureHelper, j+1, "the fix makes the check's expectation the result it checks: `%s`", strings.TrimSpace(l.raw))
		case updateOn.MatchString(l.mask):
			c.add(RuleFixtureHelper, j+1, "the fix turns the rewriting of stored results on: `%s`", strings.TrimSpace(l.raw))
		case writesAfter > writesBefore && writesStored.MatchString(l.mask):
			c.add(RuleFixtureHelper, j+1, "the fix writes the result into the stored one it is compared with: `%s`", strings.TrimSpace(l.raw))
		}
	}
}

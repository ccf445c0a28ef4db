// Package integrity is the policy that keeps a fix from weakening a
// check: a fix may make a build pass only by changing what the code does,
// never by deleting or loosening an assertion, changing an expected value,
// skipping or removing a test, silencing a checker, or editing the test
// and CI configuration that decide what "passing" means.
//
// Check is pure: it reads the two texts of one file and the reports the
// fix targets, and returns every rule the fix breaks. The fix gate calls it
// for every fix before it is written; see docs/heal.md.
package integrity

import (
	"fmt"
	"sort"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/missing"
	"github.com/salve-dev/salve/internal/lang"
)

// The stable ids of the rules, as Violation.Rule names them.
const (
	RuleTestFile             = "test-file"
	RuleTestConfig           = "test-config"
	RuleCIConfig             = "ci-config"
	RuleAssertionRemoved     = "assertion-removed"
	RuleAssertionLoosened    = "assertion-loosened"
	RuleExpectedValueChanged = "expected-value-changed"
	RuleTestSkipped          = "test-skipped"
	RuleTestRemoved          = "test-removed"
	RuleSuppressionAdded     = "suppression-added"
	RuleTooLarge             = "too-large"
)

// Input is one proposed fix of one file.
type Input struct {
	// Path is the file's repository-relative path, with forward slashes.
	Path string
	// Original and Patched are the file's text before and after the fix.
	Original, Patched string
	// Reports are the errors the fix targets. A suppression the fix adds
	// is allowed when a report's message itself asks for it (holds the
	// exact attribute or comment).
	Reports []contract.BugReport
	// AllowTestEdits lets the fix edit test files and test configuration
	// (the repository opted in). CI and lint configuration stay closed,
	// and every other rule still applies.
	AllowTestEdits bool
	// Protected are globs of paths no fix may edit (the repository's
	// protected_paths; see MatchPath), whatever else it allows.
	Protected []string
	// RenamesFromCommit says the fix renames only as the breaking
	// commit's own diff renamed (the history tier). Only such a fix may
	// rename, in a test file, a name a report says is not declared: from
	// any other fixer, a rename could swap what the test calls for
	// something weaker.
	RenamesFromCommit bool
	// Tests are the failing tests the fix answers, read-only; nil when
	// the fix answers no failing test (a compile error, a lint finding).
	Tests []TestSource
}

// Violation is one way a fix weakens a check.
type Violation struct {
	// Rule is the rule's stable kebab-case id (the Rule* constants).
	Rule string
	// Line is 1-based: a line of Original for what the fix removes or
	// changes, a line of Patched for what it adds (a skip, a suppression);
	// 0 when the rule is about the whole file.
	Line int
	// Detail says what was found, for a person.
	Detail string
}

// String renders v as "rule-id: detail (line N)", without the line part
// when Line is 0.
func (v Violation) String() string {
	if v.Line == 0 {
		return v.Rule + ": " + v.Detail
	}
	return fmt.Sprintf("%s: %s (line %d)", v.Rule, v.Detail, v.Line)
}

// maxInput bounds each text Check reads; a larger file is refused whole.
const maxInput = 2 << 20

// maxViolations bounds the violations Check returns.
const maxViolations = 50

// rule is one row of the policy.
type rule struct {
	id    string
	check func(*checker)
}

// rules is the policy, in the order Check reports.
var rules = []rule{
	{RuleProtectedPath, (*checker).protectedPath},
	{RuleCIConfig, (*checker).ciConfig},
	{RuleTestConfig, (*checker).testConfig},
	{RuleTestFile, (*checker).testFile},
	{RuleAssertionRemoved, (*checker).assertions}, // also assertion-loosened and expected-value-changed on assertions
	{RuleExpectedValueChanged, (*checker).testLiterals},
	{RuleTestSkipped, (*checker).skipped},
	{RuleTestRemoved, (*checker).removedTests},
	{RuleSuppressionAdded, (*checker).suppressed},
	{RuleTestEnvDetection, (*checker).cheatsUnderTest}, // also process-exit, test-library-patched, package-side-effect
	{RuleTestLiteralConditional, (*checker).literalConditionals},
	{RuleEqualityWeakened, (*checker).equality},
	{RuleTestReadChanged, (*checker).testReads},
	{RuleFixtureHelper, (*checker).fixtureHelper},
	{RuleHarnessExit, (*checker).harness}, // also assertion-shadowed, unit-replaced
}

// RuleIDs returns the id of every rule Check applies.
func RuleIDs() []string {
	return []string{RuleTestFile, RuleTestConfig, RuleCIConfig, RuleAssertionRemoved, RuleAssertionLoosened,
		RuleExpectedValueChanged, RuleTestSkipped, RuleTestRemoved, RuleSuppressionAdded,
		RuleTestEnvDetection, RuleProcessExit, RuleTestLibraryPatched, RulePackageSideEffect,
		RuleTestLiteralConditional, RuleEqualityWeakened, RuleTestReadChanged, RuleFixtureHelper,
		RuleHarnessExit, RuleAssertionShadowed, RuleUnitReplaced, RuleTooLarge}
}

// checker holds one Check's views of the fix.
type checker struct {
	in       Input
	lang     *lang.Language
	name     string // the language row's name, "" when unknown
	old, new *file
	hunks    []hunk
	gone     []bool // old lines the fix removes (a moved line is not removed)
	added    []bool // new lines the fix adds
	// oldDiff and newDiff mark the lines that differ at all: the hunks'
	// lines and the aligned lines whose comments changed. Counting a
	// pattern on them alone gives the same difference as on whole files.
	oldDiff, newDiff []bool
	handled          []bool // old lines an assertion rule already judged
	out              []Violation
	tv               *testView // what the failing tests hold, read once
	// kept caches checksKept: 0 not yet known, 1 proven, -1 not.
	kept int
}

// checksKept reports whether the edit of a test file provably keeps
// every check: go/ast's proof for Go (goChecksKept), the lexical proofs
// for Python (pyChecksKept), JavaScript and TypeScript (jsChecksKept)
// and Rust (rustChecksKept). The rules that judge checks line by line then have
// nothing to find.
func (c *checker) checksKept() bool {
	if c.kept != 0 {
		return c.kept == 1
	}
	c.kept = -1
	if !lang.IsTestFile(c.in.Path) {
		return false
	}
	kept := false
	switch c.name {
	case "go":
		// Only a report that asks for other arguments opens its line:
		// a call the compiler says has the wrong number of them, a
		// print go vet flags. A failure or a panic reported on a
		// call's line never does: changing that call's arguments
		// would change the test's input.
		reported := map[int]bool{}
		for _, r := range c.in.Reports {
			if a, ok := missing.Of(r.Message); ok && a.Need == missing.Arity || reVetArgs.MatchString(r.Message) {
				reported[r.LineNumber] = true
			}
		}
		kept = goChecksKept(c.in.Original, c.in.Patched, reported)
	case "python":
		kept = pyChecksKept(c.in.Original, c.in.Patched, c.in.Reports)
	case "javascript", "typescript":
		kept = jsChecksKept(c.in.Path, c.in.Original, c.in.Patched, c.in.Reports)
	case "rust":
		kept = rustChecksKept(c.in.Original, c.in.Patched, c.in.Reports)
	}
	if kept {
		c.kept = 1
	}
	return kept
}

// Check returns every violation of the policy by the fix in, in rule
// order; nil when the fix changes nothing or breaks no rule. It never
// panics and does bounded work: a text over 2 MiB is one too-large
// violation.
func Check(in Input) []Violation {
	if in.Original == in.Patched {
		return nil
	}
	if len(in.Original) > maxInput || len(in.Patched) > maxInput {
		return []Violation{{Rule: RuleTooLarge, Detail: fmt.Sprintf("the file is over %d bytes, too large to check that the fix weakens no test", maxInput)}}
	}
	c := newChecker(in)
	for _, r := range rules {
		r.check(c)
	}
	return dedupe(c.out)
}

func newChecker(in Input) *checker {
	c := &checker{in: in, lang: lang.Of(in.Path)}
	if c.lang != nil {
		c.name = c.lang.Name
	}
	c.old, c.new = newFile(c.lang, in.Original), newFile(c.lang, in.Patched)
	testFile := lang.IsTestFile(in.Path)
	markTests(c.old, c.name, testFile)
	markTests(c.new, c.name, testFile)
	c.hunks = diff(c.old.lines, c.new.lines)
	c.gone, c.added = moved(c.old.lines, c.new.lines, c.hunks)
	c.oldDiff, c.newDiff = differing(c.old.lines, c.new.lines, c.hunks)
	c.handled = make([]bool, len(c.old.lines))
	return c
}

// moved marks the lines of the hunks that the fix really removes or adds:
// a line whose key the other side has as often is only moved.
func moved(a, b []line, hs []hunk) (gone, added []bool) {
	count := map[string]int{}
	for _, l := range a {
		count[l.key]++
	}
	for _, l := range b {
		count[l.key]--
	}
	gone, added = make([]bool, len(a)), make([]bool, len(b))
	deficit, surplus := map[string]int{}, map[string]int{}
	for k, n := range count {
		if n > 0 {
			deficit[k] = n
		} else if n < 0 {
			surplus[k] = -n
		}
	}
	for _, h := range hs {
		for i := h.oldLo; i < h.oldHi; i++ {
			if deficit[a[i].key] > 0 {
				deficit[a[i].key]--
				gone[i] = true
			}
		}
		for j := h.newLo; j < h.newHi; j++ {
			if surplus[b[j].key] > 0 {
				surplus[b[j].key]--
				added[j] = true
			}
		}
	}
	return gone, added
}

// differing marks the lines of a and b that the hunks hold, and the
// lines between hunks (aligned one to one) whose raw text differs.
func differing(a, b []line, hs []hunk) (da, db []bool) {
	da, db = make([]bool, len(a)), make([]bool, len(b))
	i, j := 0, 0
	pair := func(toI int) {
		for ; i < toI && j < len(b); i, j = i+1, j+1 {
			if a[i].raw != b[j].raw {
				da[i], db[j] = true, true
			}
		}
	}
	for _, h := range hs {
		pair(h.oldLo)
		for k := h.oldLo; k < h.oldHi; k++ {
			da[k] = true
		}
		for k := h.newLo; k < h.newHi; k++ {
			db[k] = true
		}
		i, j = h.oldHi, h.newHi
	}
	pair(len(a))
	return da, db
}

func (c *checker) add(rule string, line int, format string, args ...any) {
	c.out = append(c.out, Violation{Rule: rule, Line: line, Detail: fmt.Sprintf(format, args...)})
}

// dedupe drops repeated violations, keeps rule order then line order, and
// caps the list.
func dedupe(vs []Violation) []Violation {
	order := map[string]int{}
	for i, id := range RuleIDs() {
		order[id] = i
	}
	sort.SliceStable(vs, func(a, b int) bool {
		if order[vs[a].Rule] != order[vs[b].Rule] {
			return order[vs[a].Rule] < order[vs[b].Rule]
		}
		return vs[a].Line < vs[b].Line
	})
	seen := map[Violation]bool{}
	var out []Violation
	for _, v := range vs {
		if !seen[v] && len(out) < maxViolations {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// testFile refuses an edit of a test file unless the repository allows
// test edits, or the edit is neutral (neutralTestEdit): formatting, import
// lines, a printf verb or a test signature the toolchain's report asks for.
func (c *checker) testFile() {
	if !c.in.AllowTestEdits && lang.IsTestFile(c.in.Path) && !c.neutralTestEdit() {
		c.add(RuleTestFile, 0, "%s is a test file; a fix may not edit tests unless the repository allows test edits", c.in.Path)
	}
}

// testConfig refuses an edit of test-runner or coverage configuration
// unless the repository allows test edits.
func (c *checker) testConfig() {
	if c.in.AllowTestEdits {
		return
	}
	if lang.IsTestConfig(c.in.Path) {
		c.add(RuleTestConfig, 0, "%s configures the tests; a fix may not edit it unless the repository allows test edits", c.in.Path)
		return
	}
	c.configSections(RuleTestConfig)
}

// ciConfig refuses every edit of CI or lint configuration.
func (c *checker) ciConfig() {
	if lang.IsCIConfig(c.in.Path) {
		c.add(RuleCIConfig, 0, "%s is CI or lint configuration; a fix never edits the checks it must pass", c.in.Path)
		return
	}
	c.configSections(RuleCIConfig)
}

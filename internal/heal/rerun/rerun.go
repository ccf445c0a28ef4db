// Package rerun works out the command that re-runs only the failing tests
// of a build, so that a heal can tell a flaky test (it fails once and
// passes on a re-run) from a bug before any fixer runs.
//
// Everything here is pure: [For] reads the command that ran, the project
// type the executor detected and the parsed bug reports, and returns a
// [Plan]. Running the plan is the caller's job.
//
// Test names and file paths come from a build log, so they are hostile:
// each runner accepts only a strict set of characters in a name, every
// interpolated part is single-quoted, and a failure whose name does not
// pass makes the plan fall back to the original command (which re-runs
// everything, that failure included), never to a narrower command that
// would leave it out. Words copied from the original command are copied
// only when they are plain (letters, digits and a few punctuation marks).
package rerun

import (
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

// MaxTests is the most tests a narrowed plan selects; with more failures
// the plan re-runs the original command.
const MaxTests = 50

// maxName bounds the length of one test name or path taken from a report.
const maxName = 256

// Plan is how to re-run the failing tests of a build.
type Plan struct {
	// Command is a shell command line; every part taken from a report is
	// single-quoted. Empty means there is no plan: some failure is not a
	// test failure (a compile error is not flaky), or nothing failed.
	Command string
	// Tests are the failing tests the plan re-runs, as the runner spells
	// them (a Go top-level test, a pytest node id, a Maven Class#method).
	// It is empty exactly when Command is.
	Tests []string
	// Narrowed is false when the runner cannot select tests (or a name
	// could not be used safely): Command is then the original command.
	Narrowed bool
	// Runner is the test runner: "go", "pytest", "unittest", "jest",
	// "vitest", "mocha", "node", "cargo", "maven", "gradle", "dotnet", or
	// "" when unknown.
	Runner string
	// Proof re-runs the same tests as Command with the runner's own
	// structured output switched on (go test -json, pytest -rA, TAP, jest's
	// JSON, a JUnit report…), for [Read] to read what the run proves. Empty
	// when the runner gives nothing salve reads, or the plan is not
	// narrowed (the original command's output is the user's to shape).
	Proof string
	// Direct says the original command is one step that runs the runner
	// itself (it begins with the runner's launcher, so no other program
	// of the command prints beside it) and the runner's row
	// lets the output of that whole command stand as its evidence: the
	// verify build, which runs the whole command after the fixes, may
	// then be read with [Read] for this plan's runner, and when
	// [Proves] holds there the Proof run is not needed. Set only with
	// Proof.
	Direct bool
	// bin is what a go plan's run from test binaries needs
	// ([Plan.BinaryProof]).
	bin goBinary
}

// failure is one failing test read from a report.
type failure struct {
	name string // the test name as the log spells it
	file string // the repo-relative file of the report
	tool string // the report's tool ("go test", "pytest", "jest"…)
}

// For returns the plan for the failing tests among bugs, given the command
// that ran and the project type the executor detected.
//
// A report counts as a failing test when it is an error (not a warning or
// a note) of type LOGIC naming its test. When some error is anything else
// (a compile error, an import error, a runtime error outside any test),
// For returns the zero Plan: such a failure is not flaky. When the
// failures belong to a runner that cannot select tests, to several
// runners, or to more than [MaxTests] tests, or when a test name holds a
// character the runner's charset refuses, the plan re-runs command as it
// is (Narrowed false).
func For(command, projectType string, bugs []contract.BugReport) Plan {
	fails, ok := testFailures(bugs)
	if !ok {
		return Plan{}
	}
	r := pickRunner(command, projectType, fails)
	if r == nil {
		return whole(command, "", fails)
	}
	inv := invocation{segs: splitCommand(command)}
	inv.launcher, inv.rest, inv.found = findInvocation(inv.segs, r.launchers)
	cmd, tests, ok := r.build(inv, fails)
	if !ok || len(tests) == 0 || len(tests) > MaxTests {
		return whole(command, r.name, fails)
	}
	p := Plan{Command: cmd, Tests: tests, Narrowed: true, Runner: r.name}
	if r.name == "go" && inv.found && len(inv.segs) == 1 && len(skipEnv(inv.segs[0])) == len(inv.segs[0]) {
		p.bin = goBinaryOf(inv.rest, goDirs(fails))
	}
	if r.proof != nil {
		p.Proof = r.proof(cmd)
		p.Direct = r.wholeReads && inv.found && len(inv.segs) == 1
	}
	return p
}

// whole is the plan that re-runs the original command.
func whole(command, runner string, fails []failure) Plan {
	if strings.TrimSpace(command) == "" {
		return Plan{}
	}
	p := Plan{Command: command, Runner: runner}
	seen := map[string]bool{}
	for _, f := range fails {
		n := f.name
		if len(n) > maxName {
			n = n[:maxName]
		}
		if !seen[n] && len(p.Tests) < MaxTests {
			seen[n] = true
			p.Tests = append(p.Tests, n)
		}
	}
	return p
}

// testFailures returns the failing tests of bugs, in order, and false when
// there is none or some error is not a test failure.
func testFailures(bugs []contract.BugReport) ([]failure, bool) {
	var out []failure
	for _, b := range bugs {
		switch b.Severity {
		case "warning", "info":
			continue // a warning did not fail the build
		}
		if b.ErrorType != contract.ErrLogic || b.TestName == nil || strings.TrimSpace(*b.TestName) == "" {
			return nil, false
		}
		out = append(out, failure{name: strings.TrimSpace(*b.TestName), file: b.FilePath, tool: b.Tool})
	}
	return out, len(out) > 0
}

// Ran reports whether output (the re-run's log) names every test of the
// plan as run, by the last part of its name (after the last "/", "::",
// "#" or "."; a JavaScript test by its whole name: jest and vitest print
// a test in describe blocks with " › " or " > " between the parts, which
// Ran reads as the spaces of the plan's names). A re-run that selected
// nothing usually passes, so a caller should call a failure flaky only
// when the re-run passed and Ran holds. Runners that do not print the
// names of passing tests (Maven, Gradle, dotnet without a verbose logger)
// make Ran false: no flaky verdict.
func (p Plan) Ran(output string) bool {
	if len(p.Tests) == 0 {
		return false
	}
	lines := strings.Split(output, "\n")
	if p.Runner == "jest" || p.Runner == "vitest" {
		for i, l := range lines {
			lines[i] = jsSeparators.Replace(l)
		}
	}
	for _, t := range p.Tests {
		if !jsRunners[p.Runner] {
			t = leaf(t)
		}
		if !named(lines, t) {
			return false
		}
	}
	return true
}

// jsSeparators reads the separators jest and vitest print between a
// test's describe blocks and its name as the spaces of the plans' names.
var jsSeparators = strings.NewReplacer(" › ", " ", " > ", " ")

// named reports whether a line of a re-run's output names the test leaf
// as run: not on a line that says it was skipped (node's test runner
// lists every test its pattern filtered out, with "# SKIP"; vitest marks
// one with "↓"), nor on a TAP "# Subtest:" line, which announces a test
// before it runs or is skipped. A test whose own name holds "skip" is
// never confirmed, which only withholds a flaky verdict.
func named(lines []string, leaf string) bool {
	for _, l := range lines {
		if strings.Contains(l, leaf) && !strings.Contains(strings.ToLower(l), "skip") && !strings.Contains(l, "↓") &&
			!strings.HasPrefix(strings.TrimSpace(l), "# Subtest:") {
			return true
		}
	}
	return false
}

// jsRunners are the runners whose test names are free text.
var jsRunners = map[string]bool{"jest": true, "vitest": true, "mocha": true, "node": true}

// leaf is the last part of a test name.
func leaf(t string) string {
	if i := strings.IndexByte(t, '['); i > 0 {
		t = t[:i] // a parameter's id may be printed differently
	}
	i := strings.LastIndexAny(t, "/:#.")
	if i >= 0 && i < len(t)-1 {
		return t[i+1:]
	}
	return t
}

// quote single-quotes s for a POSIX shell.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// plainWord matches a word of the original command that may be copied
// into a plan unquoted.
var plainWord = lazyre.New(`^[A-Za-z0-9_./=:,@+-]+$`)

// safePath matches a repo-relative path from a report that may name a
// file or folder in a plan (quoted all the same).
var safePath = lazyre.New(`^[A-Za-z0-9_][A-Za-z0-9_./+-]*$`)

// okPath reports whether p is a usable repo-relative path.
func okPath(p string) bool {
	if len(p) > maxName || !safePath.MatchString(p) {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || part == "" {
			return false
		}
	}
	return true
}

// splitCommand splits a command line into the words of its simple
// commands: operators (&&, ||, ;, |, &, newlines, parentheses) end a
// segment. Quotes are kept in the words, so a quoted word is never
// plain and is never copied. It only serves to find the invocation of a
// runner among the steps of the original command.
func splitCommand(cmd string) [][]string {
	var segs [][]string
	var cur []string
	var w strings.Builder
	flushWord := func() {
		if w.Len() > 0 {
			cur = append(cur, w.String())
			w.Reset()
		}
	}
	flushSeg := func() {
		flushWord()
		if len(cur) > 0 {
			segs = append(segs, cur)
			cur = nil
		}
	}
	var q byte
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case q != 0:
			w.WriteByte(c)
			if c == q {
				q = 0
			}
		case c == '\'' || c == '"':
			q = c
			w.WriteByte(c)
		case c == ' ' || c == '\t':
			flushWord()
		case strings.IndexByte("&|;\n()", c) >= 0:
			flushSeg()
		default:
			w.WriteByte(c)
		}
	}
	flushSeg()
	return segs
}

// findInvocation returns the words after the first segment of segs that
// begins with one of the launchers (each a list of words), and the
// launcher's words as written; ok is false when none does.
func findInvocation(segs [][]string, launchers [][]string) (launcher, rest []string, ok bool) {
	for _, s := range segs {
		s = skipEnv(s)
		for _, l := range launchers {
			if len(s) >= len(l) && equalWords(s[:len(l)], l) {
				return s[:len(l)], s[len(l):], true
			}
		}
	}
	return nil, nil, false
}

// skipEnv drops leading VAR=value assignments of a segment.
func skipEnv(s []string) []string {
	for len(s) > 0 && strings.Contains(s[0], "=") && !strings.HasPrefix(s[0], "-") {
		s = s[1:]
	}
	return s
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// keepFlags copies the flags of words that the keep table allows: a flag
// with no value, a flag=value, or a flag followed by its value; every
// copied word must be plain and every value must match the row's value
// expression.
func keepFlags(words []string, keep []flagRule) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !plainWord.MatchString(w) {
			continue
		}
		name, val, hasVal := strings.Cut(w, "=")
		for _, k := range keep {
			if name != k.name {
				continue
			}
			switch {
			case k.value == nil && !hasVal:
				out = append(out, w)
			case k.value != nil && hasVal && k.value.MatchString(val):
				out = append(out, w)
			case k.value != nil && !hasVal && i+1 < len(words) && plainWord.MatchString(words[i+1]) && k.value.MatchString(words[i+1]):
				out = append(out, w, words[i+1])
				i++
			}
			break
		}
	}
	return out
}

// flagRule is a flag of the original invocation a plan keeps: value nil
// for a switch, else the expression its value must match.
type flagRule struct {
	name  string
	value *lazyre.Regexp
}

// uniq returns xs without repeats, in first-seen order.
func uniq(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// sortedUniq returns xs sorted without repeats.
func sortedUniq(xs []string) []string {
	out := uniq(xs)
	sort.Strings(out)
	return out
}

// regexAlt is an anchored alternation of the regexp-quoted names.
func regexAlt(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = regexp.QuoteMeta(n)
	}
	if len(q) == 1 {
		return "^" + q[0] + "$"
	}
	return "^(" + strings.Join(q, "|") + ")$"
}

// structuredOff are the go test flags after which -json would change what
// the command does or prints beyond the form of its output: compile only,
// list the tests, name an output file, or -json already there.
var structuredOff = []string{"-json", "-c", "-list", "-o", "-fuzz"}

// Structured returns command made to print the runner's structured
// results while it runs every test, or "" when it cannot be. Only go
// test has such a switch that changes nothing else of the run: with
// -json it builds, vets and runs the same tests, exits with the same
// status, and prints each line it would have printed inside a JSON event
// (with every test's own result beside it, as -v would show them). The
// command must be one step that is go test itself, with no redirection,
// so that the whole output is go's. A heal runs every build of such a
// command this way, and then the verify build's own output can prove a
// fix (Plan.Direct) where a plain run names no passing test; all its
// builds being alike, go's test cache serves one from another.
func Structured(command string) string {
	cmd := strings.TrimSpace(command)
	if !strings.HasPrefix(cmd, "go test ") && cmd != "go test" {
		return ""
	}
	if strings.ContainsAny(cmd, "<>|&;`$\n\\") {
		return ""
	}
	segs := splitCommand(cmd)
	if len(segs) != 1 || len(segs[0]) < 2 || segs[0][0] != "go" || segs[0][1] != "test" {
		return ""
	}
	for _, w := range segs[0][2:] {
		if w == "-args" {
			break // the test binary's own arguments follow
		}
		if !strings.HasPrefix(w, "-") {
			continue // a package, or a flag's value
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(w, "-"), "=")
		if slices.Contains(structuredOff, name) || slices.Contains(structuredOff, "-"+name) {
			return ""
		}
	}
	return "go test -json" + strings.TrimPrefix(cmd, "go test")
}

// goImportPath matches an import path a plan may pass to go test.
var goImportPath = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._~/-]*$`)

// allGoPackages is how a go plan that cannot tell the failing tests'
// packages from the reports ends: every package of the module.
const allGoPackages = " './...'"

// InPackages narrows a go plan that runs every package (a failure located
// outside a _test.go file does not say which package's test failed) to
// the packages where log, the output of a go test -json run, shows each
// of the plan's tests failing: go then builds and links those test
// binaries only. Any other plan, or a log that does not name a package
// for every test, comes back unchanged.
func (p Plan) InPackages(log string) Plan {
	if p.Runner != "go" || !p.Narrowed || !strings.HasSuffix(p.Command, allGoPackages) || !strings.Contains(log, `"Action"`) {
		return p
	}
	failed := map[string][]string{} // top-level test: the packages it failed in
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, `{"`) || !strings.Contains(line, `"fail"`) {
			continue
		}
		var e goEvent
		if json.Unmarshal([]byte(line), &e) != nil || e.Action != "fail" || e.Test == "" {
			continue
		}
		top, _, _ := strings.Cut(e.Test, "/")
		if !slices.Contains(failed[top], e.Package) {
			failed[top] = append(failed[top], e.Package)
		}
	}
	var pkgs []string
	for _, t := range p.Tests {
		if len(failed[t]) == 0 {
			return p
		}
		for _, pkg := range failed[t] {
			if !goImportPath.MatchString(pkg) {
				return p
			}
			pkgs = append(pkgs, pkg)
		}
	}
	var q []string
	for _, pkg := range sortedUniq(pkgs) {
		q = append(q, quote(pkg))
	}
	list := " " + strings.Join(q, " ")
	p.Command = strings.TrimSuffix(p.Command, allGoPackages) + list
	if strings.HasSuffix(p.Proof, allGoPackages) {
		p.Proof = strings.TrimSuffix(p.Proof, allGoPackages) + list
	}
	p.bin.pkgs = sortedUniq(pkgs)
	return p
}

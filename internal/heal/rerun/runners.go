package rerun

import (
	"path"
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// runner is one test runner: how to recognise its reports and its
// invocation, and how to build a command that selects tests.
type runner struct {
	name string
	// tools are the report Tool values that belong to this runner alone.
	tools []string
	// projectTypes are the executor's project types whose default runner
	// this is, when the reports leave a choice.
	projectTypes []string
	// launchers are the word sequences that invoke the runner directly in
	// the original command.
	launchers [][]string
	// build returns the command, the tests it selects, and false when a
	// name cannot be used safely.
	build func(inv invocation, fails []failure) (string, []string, bool)
	// proof turns a command build made into the one that prints the
	// runner's structured results (Plan.Proof), which Read reads; nil when
	// the runner has none salve reads.
	proof func(cmd string) string
	// wholeReads lets the output of the original command, when it runs
	// the runner itself, stand as the proof's evidence (Plan.Direct): a
	// run of every test is read the same way as the proof run of the
	// failing ones, and what it cannot show (no structured output, a
	// run cut short) sends the heal to the proof run as before. Off
	// where that output is not the runner's alone to give.
	wholeReads bool
}

// Proof commands: how each runner is asked for results Read can read.
var (
	proofGo = func(cmd string) string {
		return strings.Replace(cmd, "go test -count=1 -v", "go test -count=1 -json", 1)
	}
	proofSame    = func(cmd string) string { return cmd }
	proofPytest  = func(cmd string) string { return cmd + " -rA" }
	proofNodeTAP = func(cmd string) string {
		return strings.Replace(cmd, "node --test", "node --test --test-reporter=tap", 1)
	}
	proofMochaTAP = func(cmd string) string { return cmd + " --reporter tap" }
	proofJest     = func(cmd string) string { return cmd + " --json" }
	proofVitest   = func(cmd string) string { return cmd + " --reporter=junit" }
)

// invocation is what the original command says of a runner.
type invocation struct {
	segs     [][]string // every simple command of the original
	launcher []string   // the runner's launcher words, when found
	rest     []string   // the words after the launcher
	found    bool
}

// shared are report Tool values several runners use; the command or the
// project type decides.
var shared = map[string][]string{
	"python": {"pytest", "unittest"},
	"node":   {"jest", "vitest", "mocha", "node"},
	"java":   {"maven", "gradle"},
}

// runners is the table of test runners that can select tests.
var runners = []runner{
	{name: "go", tools: []string{"go test", "go test -race", "go"}, projectTypes: []string{"go"},
		launchers: [][]string{{"go", "test"}}, build: buildGo, proof: proofGo, wholeReads: true},
	{name: "pytest", tools: []string{"pytest"},
		launchers: [][]string{{"pytest"}, {"py.test"}, {"python", "-m", "pytest"}, {"python3", "-m", "pytest"}},
		build:     buildPytest, proof: proofPytest, wholeReads: true},
	{name: "unittest", tools: []string{"unittest"}, projectTypes: []string{"python"},
		launchers: [][]string{{"python3", "-m", "unittest"}, {"python", "-m", "unittest"}}, build: buildUnittest, proof: proofSame, wholeReads: true},
	// The JavaScript runners (see jsRunner):
	//   - jest: -t with an anchored expression of the full names, and the files;
	//   - vitest: as jest; vitest's -t is also matched against the full name;
	//   - mocha: --grep, unanchored (mocha's failure list does not always
	//     give the full title);
	//   - node: node --test with --test-name-pattern, unanchored: node's
	//     failure lines give a test's own name, and how a pattern meets the
	//     names of nested tests differs between node versions. An npm test
	//     script is not used, since arguments npm appends after a script's
	//     file arguments reach the test files, not node.
	{name: "jest", tools: []string{"jest"}, launchers: [][]string{{"npx", "jest"}, {"jest"}},
		build: jsRunner{launch: "npx --no -- jest", flag: "-t", anchored: true, files: true, pathRegex: true}.build, proof: proofJest, wholeReads: true},
	{name: "vitest", tools: []string{"vitest"},
		launchers: [][]string{{"npx", "vitest", "run"}, {"npx", "vitest"}, {"vitest", "run"}, {"vitest"}},
		build:     jsRunner{launch: "npx --no -- vitest run", flag: "-t", anchored: true, files: true}.build, proof: proofVitest, wholeReads: true},
	{name: "mocha", tools: []string{"mocha"}, launchers: [][]string{{"npx", "mocha"}, {"mocha"}},
		build: jsRunner{launch: "npx --no -- mocha", flag: "--grep"}.build, proof: proofMochaTAP, wholeReads: true},
	{name: "node", tools: []string{"node:test"}, launchers: [][]string{{"node", "--test"}},
		build: jsRunner{launch: "node --test", fixed: true, flag: nodeNameFlag, files: true}.build, proof: proofNodeTAP, wholeReads: true},
	{name: "cargo", tools: []string{"cargo test"}, projectTypes: []string{"rust"},
		launchers: [][]string{{"cargo", "test"}}, build: buildCargo, proof: proofSame, wholeReads: true},
	{name: "maven", projectTypes: []string{"maven"},
		launchers: [][]string{{"./mvnw"}, {"mvnw"}, {"mvn"}}, build: buildMaven, proof: proofSame, wholeReads: true},
	{name: "gradle", tools: []string{"gradle"}, projectTypes: []string{"gradle"},
		launchers: [][]string{{"./gradlew"}, {"gradlew"}, {"gradle"}}, build: buildGradle, proof: proofSame, wholeReads: true},
	{name: "dotnet", tools: []string{"dotnet test", "dotnet"}, launchers: [][]string{{"dotnet", "test"}}, build: buildDotnet},
}

// runnerNamed returns the row of a runner.
func runnerNamed(name string) *runner {
	for i := range runners {
		if runners[i].name == name {
			return &runners[i]
		}
	}
	return nil
}

// candidates returns the runners a report Tool may belong to.
func candidates(tool string) []string {
	if c, ok := shared[tool]; ok {
		return c
	}
	for _, r := range runners {
		for _, t := range r.tools {
			if t == tool {
				return []string{r.name}
			}
		}
	}
	return nil
}

// pickRunner returns the one runner every failure belongs to, or nil
// (an unknown runner, or failures of several runners).
func pickRunner(command, projectType string, fails []failure) *runner {
	var set []string
	for i, f := range fails {
		c := candidates(f.tool)
		if i == 0 {
			set = c
			continue
		}
		set = intersect(set, c)
	}
	switch len(set) {
	case 0:
		return nil
	case 1:
		return runnerNamed(set[0])
	}
	segs := splitCommand(command)
	for _, name := range set {
		r := runnerNamed(name)
		if _, _, ok := findInvocation(segs, r.launchers); ok {
			return r
		}
	}
	for _, name := range set {
		r := runnerNamed(name)
		for _, t := range r.projectTypes {
			if t == projectType {
				return r
			}
		}
	}
	return nil
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		for _, y := range b {
			if x == y {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

// Name expressions: what each runner accepts in a test name.
var (
	goName     = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)
	pyName     = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*(\[[A-Za-z0-9_.+-]*\])?$`)
	jsName     = lazyre.New(`^[A-Za-z0-9_][A-Za-z0-9 _.,:/()+=#@!?-]*$`)
	rustName   = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*$`)
	javaIdent  = lazyre.New(`^[A-Za-z_$][A-Za-z0-9_$]*$`)
	dotnetName = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

	jsTestFile = lazyre.New(`(\.(test|spec)\.[cm]?[jt]sx?$)|(^|/)__tests__/`)

	goTags    = lazyre.New(`^[A-Za-z0-9_.,-]+$`)
	goMod     = lazyre.New(`^(mod|vendor|readonly)$`)
	pyDir     = lazyre.New(`^[A-Za-z0-9_./-]+$`)
	rustCrate = lazyre.New(`^[A-Za-z0-9_-]+$`)
	rustFeat  = lazyre.New(`^[A-Za-z0-9_,/-]+$`)
)

// joinPlan joins the words of a plan's command.
func joinPlan(words ...string) string {
	var out []string
	for _, w := range words {
		if w != "" {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// buildGo: one go test over the package folders of the failing tests'
// _test.go files, with a combined -run of their top-level names. A
// subtest (TestA/case_1) is selected by its parent, so the re-run runs
// the parent's other subtests too. When a failure is located in a file
// that is not a _test.go file (a panic in the code under test, a helper
// of another package), its package is unknown and the plan runs ./...
// with the same -run. The flags of the original go test that change what
// is built (-tags, -race, -mod, -short) are kept; when the original
// command does not run go test itself (make test, a script), the plan is
// still a plain go test, since that is what the report's log came from:
// whatever the script adds around it is lost, and a failure that depends
// on it does not reproduce, which Plan.Ran and the caller's check of the
// re-run's output catch.
func buildGo(inv invocation, fails []failure) (string, []string, bool) {
	flags := keepFlags(inv.rest, []flagRule{
		{name: "-race"}, {name: "-short"},
		{name: "-tags", value: goTags},
		{name: "-mod", value: goMod},
	})
	var names []string
	for _, f := range fails {
		top, _, _ := strings.Cut(f.name, "/")
		if !goName.MatchString(top) {
			return "", nil, false
		}
		names = append(names, top)
	}
	names = sortedUniq(names)
	var pkgs []string
	for _, d := range goDirs(fails) {
		pkgs = append(pkgs, quote(d))
	}
	cmd := joinPlan("go test -count=1 -v", strings.Join(flags, " "), "-run", quote(regexAlt(names)), strings.Join(pkgs, " "))
	return cmd, names, true
}

// goDirs returns the package folders of the failing tests' _test.go
// files, sorted, or "./..." alone when some failure is located outside
// a _test.go file.
func goDirs(fails []failure) []string {
	var dirs []string
	for _, f := range fails {
		if !strings.HasSuffix(f.file, "_test.go") || !okPath(f.file) {
			return []string{"./..."}
		}
		if d := path.Dir(f.file); d == "." {
			dirs = append(dirs, ".")
		} else {
			dirs = append(dirs, "./"+d)
		}
	}
	return sortedUniq(dirs)
}

// isPyTestFile reports whether a report's file is a pytest test module.
func isPyTestFile(p string) bool {
	base := path.Base(p)
	return okPath(p) && strings.HasSuffix(base, ".py") && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py"))
}

// buildPytest selects by node id (file::Class::test[param]) when every
// failure is located in a test module, else by a -k expression of the
// tests' names (which may select a few more tests whose names contain
// them).
func buildPytest(inv invocation, fails []failure) (string, []string, bool) {
	run := "python3 -m pytest"
	if inv.found {
		run = strings.Join(inv.launcher, " ")
	}
	byID := true
	for _, f := range fails {
		if !pyName.MatchString(f.name) {
			return "", nil, false
		}
		byID = byID && isPyTestFile(f.file)
	}
	var tests []string
	for _, f := range fails {
		if byID {
			tests = append(tests, f.file+"::"+pyNodePath(f.name))
		} else {
			tests = append(tests, pyLeaf(f.name))
		}
	}
	tests = uniq(tests)
	if byID {
		var q []string
		for _, t := range tests {
			q = append(q, quote(t))
		}
		return joinPlan(run, "-v", strings.Join(q, " ")), tests, true
	}
	return joinPlan(run, "-v", "-k", quote(strings.Join(tests, " or "))), tests, true
}

// pyNodePath turns a pytest headline name (Class.test[param]) into the
// part of a node id after the file (Class::test[param]).
func pyNodePath(name string) string {
	head, param := name, ""
	if i := strings.IndexByte(name, '['); i >= 0 {
		head, param = name[:i], name[i:]
	}
	return strings.ReplaceAll(head, ".", "::") + param
}

// pyLeaf is the function part of a pytest name, with its parameter.
func pyLeaf(name string) string {
	head, param := name, ""
	if i := strings.IndexByte(name, '['); i >= 0 {
		head, param = name[:i], name[i:]
	}
	return head[strings.LastIndexByte(head, '.')+1:] + param
}

// buildUnittest adds one -k pattern per test, "*.name", which unittest
// matches against each test's full dotted name: exactly the methods of
// that name. A discover invocation keeps its start and top folders.
func buildUnittest(inv invocation, fails []failure) (string, []string, bool) {
	run := "python3 -m unittest discover"
	if inv.found {
		run = strings.Join(inv.launcher, " ")
		if rest := inv.rest; len(rest) > 0 && rest[0] == "discover" {
			run = joinPlan(run, "discover", strings.Join(keepFlags(rest[1:], []flagRule{{name: "-s", value: pyDir}, {name: "-t", value: pyDir}}), " "))
		} else if mods, ok := unittestTargets(rest); ok {
			// python -m unittest tests.test_x: the same modules, so that
			// the re-run selects among the tests the command runs.
			run = joinPlan(run, strings.Join(mods, " "))
		}
	}
	var tests []string
	for _, f := range fails {
		if !pyName.MatchString(f.name) || strings.IndexByte(f.name, '[') >= 0 {
			return "", nil, false
		}
		tests = append(tests, f.name)
	}
	tests = uniq(tests)
	words := []string{run, "-v"}
	for _, t := range tests {
		words = append(words, "-k", quote("*."+t))
	}
	return joinPlan(words...), tests, true
}

// pyTarget matches a module, class or test name, or a test file, that a
// unittest command line names.
var pyTarget = lazyre.New(`^(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*|[A-Za-z0-9_./-]+\.py)$`)

// unittestTargets returns the modules, classes, tests or files a
// python -m unittest command line (rest, after the launcher) names, and
// false when it names none or holds a word salve does not copy.
func unittestTargets(rest []string) ([]string, bool) {
	var out []string
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		switch {
		case w == "-k" || w == "--durations":
			i++ // the flag's value
		case strings.HasPrefix(w, "-"):
		case pyTarget.MatchString(w):
			out = append(out, w)
		default:
			return nil, false
		}
	}
	return out, len(out) > 0
}

// jsLaunch returns how to start a JavaScript runner: its own invocation in
// the original command, else the project's test script (npm test with
// "--" before the runner's arguments), else fallback.
func jsLaunch(inv invocation, fallback string) string {
	if inv.found {
		return strings.Join(inv.launcher, " ")
	}
	segs := inv.segs
	if _, _, ok := findInvocation(segs, [][]string{{"npm", "test"}, {"npm", "run", "test"}, {"npm", "t"}}); ok {
		return "npm test --"
	}
	if l, _, ok := findInvocation(segs, [][]string{{"yarn", "test"}, {"pnpm", "test"}}); ok {
		return strings.Join(l, " ")
	}
	return fallback
}

// jsNames validates the failures' names and returns each as the runner's
// full name: describe blocks and test joined by spaces (jest prints them
// joined by " › ", vitest by " > ").
func jsNames(fails []failure) ([]string, bool) {
	var names []string
	for _, f := range fails {
		n := strings.ReplaceAll(strings.ReplaceAll(f.name, " › ", " "), " > ", " ")
		if len(n) > maxName || !jsName.MatchString(n) {
			return nil, false
		}
		names = append(names, n)
	}
	return uniq(names), true
}

// jsFiles returns the failures' files, quoted, when every one is a test
// file the runner can be given (jsFileArg); else none (the runner then
// looks in all its test files).
func jsFiles(fails []failure, pathRegex bool) string {
	var q []string
	for _, f := range fails {
		if !jsFileArg(f.file, pathRegex) {
			return ""
		}
		q = append(q, quote(f.file))
	}
	return strings.Join(uniq(q), " ")
}

// jsFileArg reports whether rel, a workspace-relative path, is a test
// file a runner can be given as it is. jest reads each path it is given
// as a regular expression: a "+" in it would match something else, so
// such a path is not given (pathRegex), and the runner looks in all.
func jsFileArg(rel string, pathRegex bool) bool {
	return okPath(rel) && jsTestFile.MatchString(rel) && !(pathRegex && strings.Contains(rel, "+"))
}

// jsRunner is how one JavaScript test runner is told which failing tests to
// run: a name filter made of the tests' full names (regexAlt), and the test
// files when the runner takes them.
type jsRunner struct {
	launch    string // the default launch words; jsLaunch keeps the project's own
	fixed     bool   // launch is used as it is, not through jsLaunch
	flag      string // the name filter's flag; one ending in "=" takes its value joined
	anchored  bool   // the filter is anchored (^…$) to the full name
	files     bool   // the test files are passed after the filter
	pathRegex bool   // the runner reads each file given as a regular expression (jest)
}

// build is a runner's build function (runner.build).
func (r jsRunner) build(inv invocation, fails []failure) (string, []string, bool) {
	names, ok := jsNames(fails)
	if !ok {
		return "", nil, false
	}
	pattern := regexAlt(names)
	if !r.anchored {
		pattern = strings.Trim(pattern, "^$")
	}
	run := r.launch
	if !r.fixed {
		run = jsLaunch(inv, r.launch)
	}
	filter := r.flag + " " + quote(pattern)
	if strings.HasSuffix(r.flag, "=") {
		filter = r.flag + quote(pattern)
	}
	files := ""
	if r.files {
		files = jsFiles(fails, r.pathRegex)
	}
	return joinPlan(run, filter, files), names, true
}

// buildCargo: libtest's exact filters, one per test, with the original
// cargo test's package and feature selection.
func buildCargo(inv invocation, fails []failure) (string, []string, bool) {
	flags := keepFlags(inv.rest, []flagRule{
		{name: "-p", value: rustCrate}, {name: "--package", value: rustCrate},
		{name: "--features", value: rustFeat},
		{name: "--all-features"}, {name: "--workspace"}, {name: "--release"},
		{name: "--offline"}, {name: "--locked"}, {name: "--frozen"},
	})
	var names, q []string
	for _, f := range fails {
		if !rustName.MatchString(f.name) {
			return "", nil, false
		}
		names = append(names, f.name)
	}
	names = uniq(names)
	for _, n := range names {
		q = append(q, quote(n))
	}
	return joinPlan("cargo test", strings.Join(flags, " "), "--", "--exact", strings.Join(q, " ")), names, true
}

// javaClass returns the simple class name of a test source file
// (src/test/…/FooTest.java), or "" when the report is located elsewhere
// (the code under test).
func javaClass(file string) string {
	if !okPath(file) || !strings.Contains(file, "src/test/") {
		return ""
	}
	base := path.Base(file)
	for _, ext := range []string{".java", ".kt", ".groovy", ".scala"} {
		if c, ok := strings.CutSuffix(base, ext); ok && javaIdent.MatchString(c) {
			return c
		}
	}
	return ""
}

// javaLaunch returns the original Maven or Gradle launcher, or fallback.
func javaLaunch(inv invocation, fallback string) (string, []string) {
	if !inv.found {
		return fallback, nil
	}
	return strings.Join(inv.launcher, " "), inv.rest
}

// buildMaven: surefire's -Dtest=Class#method list; a method whose test
// class is unknown is selected in every class (*#method).
// failIfNoSpecifiedTests=false keeps the modules of a multi-module build
// that hold none of the tests from failing.
func buildMaven(inv invocation, fails []failure) (string, []string, bool) {
	run, rest := javaLaunch(inv, "mvn")
	flags := keepFlags(rest, []flagRule{{name: "-B"}, {name: "--batch-mode"}, {name: "-q"}, {name: "-o"}, {name: "--offline"}})
	tests, ok := javaTests(fails, "#")
	if !ok {
		return "", nil, false
	}
	return joinPlan(run, strings.Join(flags, " "), "test", "-Dtest="+quote(strings.Join(tests, ",")),
		"-Dsurefire.failIfNoSpecifiedTests=false"), tests, true
}

// javaTests names each failing test as Class<sep>method (* for a class
// that is unknown), without repeats; false when a name is not a Java
// identifier.
func javaTests(fails []failure, sep string) ([]string, bool) {
	var tests []string
	for _, f := range fails {
		if !javaIdent.MatchString(f.name) {
			return nil, false
		}
		c := javaClass(f.file)
		if c == "" {
			c = "*"
		}
		tests = append(tests, c+sep+f.name)
	}
	return uniq(tests), true
}

// buildGradle: one --tests filter per test, Class.method (a pattern that
// starts with an upper-case letter matches the simple class name), or
// *.method when the class is unknown.
func buildGradle(inv invocation, fails []failure) (string, []string, bool) {
	run, rest := javaLaunch(inv, "gradle")
	flags := keepFlags(rest, []flagRule{{name: "--no-daemon"}, {name: "--offline"}, {name: "-q"}})
	tests, ok := javaTests(fails, ".")
	if !ok {
		return "", nil, false
	}
	words := []string{run, "test"}
	for _, t := range tests {
		words = append(words, "--tests", quote(t))
	}
	return joinPlan(append(words, flags...)...), tests, true
}

// buildDotnet: a --filter of FullyQualifiedName~name alternatives.
func buildDotnet(inv invocation, fails []failure) (string, []string, bool) {
	var names, parts []string
	for _, f := range fails {
		if !dotnetName.MatchString(f.name) {
			return "", nil, false
		}
		names = append(names, f.name)
	}
	names = uniq(names)
	for _, n := range names {
		parts = append(parts, "FullyQualifiedName~"+n)
	}
	return joinPlan("dotnet test", "--filter", quote(strings.Join(parts, "|"))), names, true
}

package logparse

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

func init() {
	register(goLintRows()...)
	register(
		&Row{Name: "go-build", Family: "go", Tool: "go", Hint: ".go:",
			Pattern:  `^(?:vet: )?(?P<file>[^\s:]+\.go):(?P<line>\d+):(?P<col>\d+): (?P<msg>.+)$`,
			Classify: goClassify, Confidence: 0.95,
			Doc: "go build and vet's echo of type errors (and go vet lines the go-vet row does not recognise): file.go:line:col: message (the column is required: log.Lshortfile lines have none)"},
		&Row{Name: "go-test", Family: "go", Tool: "go test",
			Doc: "go test: t.Errorf/Fatalf lines under --- FAIL (-v and -json streams too), testify blocks, by package"},
		&Row{Name: "go-panic", Family: "go", Tool: "go",
			Doc: "Go panics and fatal errors (the deepest goroutine frame inside the workspace) and race reports (the first access's frame)"},
	)
	addHandler(30, func() handler { return &goTest{} })
}

var reGoLintCode = lazyre.New(`\(([A-Z]{1,3}\d{3,5}|[a-z][a-z0-9]+)\)$`)

// goLinters are the linters whose name tags a Go diagnostic at the end of
// its line, "(errcheck)", as golangci-lint prints them. A check's code,
// "(SA1000)", tags it too (see goLintTag).
var goLinters = []string{"errcheck", "govet", "staticcheck", "unused", "gosimple", "ineffassign", "revive", "gocritic",
	"stylecheck", "gofmt", "goimports", "misspell", "unparam", "gosec", "dupl", "lll", "godot", "errorlint", "nilerr",
	"prealloc", "bodyclose", "noctx", "whitespace", "wsl", "nakedret", "gocyclo", "funlen", "goconst", "exhaustive",
	"forcetypeassert", "predeclared", "unconvert", "copyloopvar", "intrange", "perfsprint", "testifylint", "usestdlibvars"}

var goLinterSet = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range goLinters {
		m[l] = true
	}
	return m
}()

// goLintTagged reports whether s ends with a linter's tag in parentheses.
// The tag holds no parenthesis, so it is what lies between the last "("
// of s and its closing ")".
func goLintTagged(s string) bool {
	i := strings.LastIndexByte(s, '(')
	return i >= 0 && hasSuffix(s, ")") && goLintTag(s[i+1:len(s)-1])
}

// goLintTag reports whether tag names a linter of goLinters or is a
// check's code: one to three capitals, then three to five digits.
func goLintTag(tag string) bool {
	if goLinterSet[tag] {
		return true
	}
	i := 0
	for i < len(tag) && i < 3 && tag[i] >= 'A' && tag[i] <= 'Z' {
		i++
	}
	n := len(tag) - i
	return i > 0 && n >= 3 && n <= 5 && allDigits(tag[i:])
}

// goVetWords are phrases of go vet's and staticcheck's messages that the
// compiler never prints.
var goVetWords = []string{" format %", "format reads arg", "call has arguments but no formatting", "call needs ",
	"possible formatting directive", "unreachable code", "self-assignment", "the cancel function", "possible misuse",
	"struct field tag", "call not used", "passes lock by value", "copies lock", "loop variable", "composite literal uses unkeyed",
	"suspect or", "redundant and", "redundant or", "comparison of function", "before checking for errors",
	"non-constant format string", "arg list ends with redundant newline", "should be", "should have", "should not",
	"should use", "should omit", "should replace", "should check", "should merge", "is never used", "error strings should",
	"ineffectual assignment", "error return value", "empty branch", "never changes", "is unused", "has no effect",
	"always true", "always false", "is deprecated", "printf-style"}

func isGoVet(msg string) bool {
	low := strings.ToLower(msg)
	for _, w := range goVetWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// goClassify reads Go's one-line diagnostics: vet and linters are LINTING,
// the compiler's messages go through the shared classifier, and unknown
// messages default to TYPE_ERROR.
func goClassify(m *match) (contract.ErrorType, bool) {
	msg := m.get("msg")
	if hasPrefix(strings.TrimSpace(m.line), "vet: ") {
		return classifyMessage(msg, contract.ErrTypeError), true
	}
	if goLintTagged(msg) {
		if c := reGoLintCode.FindStringSubmatch(msg); c != nil {
			m.rule = c[1]
		}
		if t := classifyMessage(msg, contract.ErrLinting); t == contract.ErrImport {
			return t, true
		}
		return contract.ErrLinting, true
	}
	if isGoVet(msg) || m.p.ctx.goVet && !reGoCompile.MatchString(msg) {
		return contract.ErrLinting, true
	}
	return classifyMessage(msg, contract.ErrTypeError), true
}

var reGoCompile = lazyre.New(`^(?:undefined|cannot|syntax error|missing|too many|not enough|invalid|declared and not used|"[^"]+" imported|could not import|no required module|non-declaration|expected|unexpected|assignment mismatch|mismatched types)|declared and not used|imported and not used|redeclared|has no field or method|is not a type|not used$`)

// goItem is one t.Errorf/Fatalf line of go test.
type goItem struct {
	test string
	file string
	line int
	msg  string
	abs  string // a testify "Error Trace" path, when given
}

// goTest follows go test's output: which test is running, which failed,
// the file:line lines that belong to them, panics, and the package lines
// that say which directory the test files live in.
type goTest struct {
	running string   // from === RUN/NAME/CONT
	failing string   // from --- FAIL, for the lines printed after it
	buf     []goItem // lines of tests whose verdict is not known yet
	group   []goItem // lines of failed tests, not yet emitted
	pending []finding
	failed  []string // tests of this package that failed, children first in -json streams
	panic   *goPanic
	race    *goRace
}

type goPanic struct {
	msg    string
	test   string
	frames bool
	fn     string
	done   bool
	indent bool // printed inside a failed test's output (fuzzing), indented
	// timeout holds the tests that "panic: test timed out" says were
	// running; the report is the deepest workspace frame of the goroutine
	// running one of them.
	timeout []string
	first   *finding // the current goroutine's deepest workspace frame
	hasTest string   // the running test whose function the current goroutine runs
	tRunner bool     // the current goroutine is a test's own (testing.tRunner runs it)
}

var (
	reGoLine    = lazyre.New(`^(\s+)([^\s:]+\.go):(\d+): ?(.*)$`)
	reGoTrace   = lazyre.New(`^\s+Error Trace:\s+(\S+\.go):(\d+)`)
	reGoTestify = lazyre.New(`^\s+(Error|Messages):\s+(.*)$`)
	reGoFrame   = lazyre.New(`^\t(\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?$`)
	reGoFunc    = lazyre.New(`^((?:[\w.\-~]+/)*[\w.\-~]+?)\.([^/]+)\(.*\)$`)
)

// assertWords are the words of a test's line that reads like an
// assertion, in any case.
var assertWords = []string{"want", "expect", "got", "fail", "error", "mismatch", "!=", "should", "not equal", "unexpected",
	"differ", "incorrect", "wrong", "missing", "panic", "must", "assert", "bad", "invalid", "diff"}

// reAssertish is assertWords as one expression, for text that is not
// ASCII, where case folding reaches beyond ASCII letters.
var reAssertish = lazyre.New(`(?i)` + strings.Join(assertWords, "|"))

// assertish reports whether msg holds one of assertWords, in any case. An
// ASCII text is lowered and searched word by word, which costs a small
// part of the expression's run.
func assertish(msg string) bool {
	for i := 0; i < len(msg); i++ {
		if msg[i] >= utf8.RuneSelf {
			return reAssertish.MatchString(msg)
		}
	}
	low := strings.ToLower(msg)
	for _, w := range assertWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// goTestLeads start the lines goTest reads while no test's output is
// being read: === and --- lines, panic: and fatal error:, the package's
// FAIL or ok, and a race report's WARNING.
var goTestLeads = leads("=-pfFoW")

func (g *goTest) line(p *parser, s string) bool {
	if g.race == nil && g.panic == nil && g.running == "" && g.failing == "" && len(g.buf) == 0 && p.quiet(goTestLeads) {
		return false
	}
	if g.race != nil || s == "WARNING: DATA RACE" {
		return g.raceLine(p, s)
	}
	if g.panic != nil {
		if g.panic.indent {
			if g.indentedPanicLine(p, s) {
				return true
			}
		} else if g.panicLine(p, s) {
			return true
		}
	}
	if len(s) == 0 {
		return false
	}
	switch {
	case hasPrefix(s, "=== "):
		if name, ok := goRunLine(s); ok {
			g.endGroup(p)
			g.running, g.failing = name, ""
			return true
		}
	case (s[0] == '-' || s[0] == ' ') && hasPrefix(strings.TrimLeft(s, " "), "--- "):
		if v, name, ok := goVerdictLine(s); ok {
			g.verdict(p, v, name)
			return true
		}
	case hasPrefix(s, "panic: ") || hasPrefix(s, "fatal error: "):
		g.endGroup(p)
		test := g.failing
		if test == "" {
			test = g.running
		}
		g.panic = &goPanic{msg: s, test: test}
		if hasPrefix(s, "panic: test timed out") {
			g.panic.timeout = []string{}
		}
		return true
	case hasPrefix(s, "FAIL") || hasPrefix(s, "ok "):
		if pkg, ok := goPkgLine(s); ok {
			g.packageDone(p, pkg)
			return true
		}
	case s[0] == ' ' || s[0] == '\t':
		return g.indented(p, s)
	}
	return false
}

func (g *goTest) indented(p *parser, s string) bool {
	if m := matchNeedle(s, ndGoFile, p.mask, reGoLine); m != nil && (g.failing != "" || g.running != "") {
		if m[2] == "testing.go" {
			if hasPrefix(m[4], "panic: ") {
				// A panic inside a fuzz target: its stack follows, indented.
				test := g.failing
				if test == "" {
					test = g.running
				}
				g.panic = &goPanic{msg: own(m[4]), test: own(test), indent: true}
			}
			return true // the testing package's own note ("race detected during execution of test")
		}
		it := goItem{file: own(m[2]), line: atoi(m[3]), msg: own(m[4])}
		if g.failing != "" {
			it.test = own(g.failing)
			if len(g.group) < 256 {
				g.group = append(g.group, it)
			}
		} else {
			it.test = own(g.running)
			if len(g.buf) < 256 {
				g.buf = append(g.buf, it)
			}
		}
		return true
	}
	if g.failing != "" {
		if t := strings.TrimSpace(s); hasPrefix(t, "Failing input written to ") {
			g.noteFuzzInput(p, t)
			return true
		}
	}
	last := g.lastItem()
	if last == nil {
		return false
	}
	if m := matchNeedle(s, ndErrorTrace, p.mask, reGoTrace); m != nil {
		last.abs = own(m[1])
		return true
	}
	if m := matchNeedle(s, ndColon, p.mask, reGoTestify); m != nil {
		if strings.TrimSpace(last.msg) == "" || m[1] == "Error" && !strings.Contains(last.msg, "\n") {
			last.msg = strings.TrimSpace(last.msg + "\n" + m[1] + ": " + m[2])
		}
		return true
	}
	if len(last.msg) < 1000 {
		last.msg += "\n" + strings.TrimSpace(s)
	}
	return true
}

func (g *goTest) lastItem() *goItem {
	if g.failing != "" && len(g.group) > 0 {
		return &g.group[len(g.group)-1]
	}
	if g.failing == "" && len(g.buf) > 0 {
		return &g.buf[len(g.buf)-1]
	}
	return nil
}

func (g *goTest) verdict(p *parser, v, name string) {
	if v != "FAIL" {
		// -v prints a parent's verdict before its subtests': a subtest that
		// passed takes its lines back out of the failed group.
		kept := g.group[:0]
		for _, it := range g.group {
			if it.test != name && !hasPrefix(it.test, name+"/") {
				kept = append(kept, it)
			}
		}
		g.group = kept
	}
	keep := g.buf[:0]
	var moved []goItem
	for _, it := range g.buf {
		if it.test == name || hasPrefix(it.test, name+"/") {
			if v == "FAIL" {
				moved = append(moved, it)
			}
			continue
		}
		keep = append(keep, it)
	}
	g.buf = keep
	g.group = append(g.group, moved...)
	if v == "FAIL" {
		g.failing = name
		if len(g.failed) < 256 {
			g.failed = append(g.failed, own(name))
		}
	} else {
		g.failing = ""
	}
	g.running = ""
}

// endGroup emits the lines of the failed tests seen so far: per test, the
// lines that read like assertions, or the last line when none does (the
// others are t.Log noise).
func (g *goTest) endGroup(p *parser) {
	if len(g.group) == 0 {
		return
	}
	byTest := map[string][]goItem{}
	var order []string
	for _, it := range g.group {
		if _, ok := byTest[it.test]; !ok {
			order = append(order, it.test)
		}
		byTest[it.test] = append(byTest[it.test], it)
	}
	for _, t := range order {
		items := byTest[t]
		var chosen []goItem
		for _, it := range items {
			if assertish(it.msg) {
				chosen = append(chosen, it)
			}
		}
		if len(chosen) == 0 {
			if hasSubtest(order, t) || hasSubtest(g.failed, t) {
				continue // a parent's t.Log; its failed subtests say why
			}
			chosen = items[len(items)-1:]
		}
		for _, it := range chosen {
			g.addPending(p, it)
		}
	}
	g.group = g.group[:0]
}

func hasSubtest(tests []string, name string) bool {
	for _, t := range tests {
		if hasPrefix(t, name+"/") {
			return true
		}
	}
	return false
}

func (g *goTest) addPending(p *parser, it goItem) {
	f := finding{file: it.file, line: it.line, typ: contract.ErrLogic, msg: strings.TrimSpace(it.msg),
		test: it.test, tool: "go test", conf: 0.9, base: p.base(), row: "go-test"}
	if it.abs != "" && path.Base(it.abs) == path.Base(it.file) {
		f.file = it.abs
		p.emit(f)
		return
	}
	if len(g.pending) < 512 {
		g.pending = append(g.pending, f)
	}
}

// packageDone resolves the pending lines against the package's directory.
func (g *goTest) packageDone(p *parser, pkg string) {
	g.endGroup(p)
	for _, f := range g.pending {
		f.file = path.Join(goPkgDir(p, pkg), f.file)
		p.emit(f)
	}
	g.pending = g.pending[:0]
	g.buf = g.buf[:0]
	g.failed = g.failed[:0]
	g.running, g.failing = "", ""
}

func (g *goTest) flush(p *parser) {
	if g.panic != nil {
		g.panic = nil
	}
	g.endGroup(p)
	for _, f := range g.pending {
		p.emit(f)
	}
	g.pending = nil
}

// panicLine reads a goroutine trace and reports its deepest frame inside
// the workspace. It returns false when the trace is over.
func (g *goTest) panicLine(p *parser, s string) bool {
	pn := g.panic
	if pn.timeout != nil {
		return g.timeoutLine(p, s)
	}
	switch {
	case isBlank(s):
		if pn.frames {
			g.panic = nil
		}
		return true
	case hasPrefix(s, "goroutine "):
		if pn.frames || pn.done {
			pn.done = true
		}
		pn.frames = true
		return true
	case hasPrefix(s, "\t"):
		if pn.done {
			return true
		}
		if hasPrefix(strings.TrimSpace(s), "panic: ") {
			return true
		}
		if m := reGoFrame.FindStringSubmatch(s); m != nil && !goStdFrame(m[1], pn.fn) {
			test := pn.test
			if test == "" {
				if i := strings.LastIndex(pn.fn, ".Test"); i >= 0 {
					test = strings.TrimSuffix(pn.fn[i+1:], "(...)")
					test = strings.SplitN(test, "(", 2)[0]
				}
			}
			g.learnGoRoot(p, m[1], pn.fn)
			p.emit(finding{file: m[1], line: atoi(m[2]), typ: contract.ErrLogic, msg: pn.msg,
				test: test, tool: "go", conf: 0.8, base: p.base(), row: "go-panic"})
			pn.done = true
		}
		return true
	case pn.frames:
		if hasPrefix(s, "FAIL") || hasPrefix(s, "exit status") || hasPrefix(s, "ok ") {
			g.panic = nil
			return false
		}
		pn.fn = s
		if i := strings.LastIndex(pn.fn, ".Test"); i >= 0 && pn.test == "" && !pn.done {
			pn.test = strings.SplitN(pn.fn[i+1:], "(", 2)[0]
		}
		return true
	}
	if hasPrefix(s, "[signal ") || hasPrefix(s, "\tpanic: ") {
		return true
	}
	g.panic = nil
	return false
}

// goStdFrame reports whether a frame is the standard library's: its file
// lies under .../src/<package path>/, as GOROOT's files do.
func goStdFrame(file, fn string) bool {
	if isForeign(file) {
		return true
	}
	m := reGoFunc.FindStringSubmatch(fn)
	if m == nil {
		return false
	}
	pkg := m[1]
	if strings.Contains(strings.SplitN(pkg, "/", 2)[0], ".") {
		return false
	}
	return strings.Contains(file, "/src/"+pkg+"/")
}

// learnGoRoot infers the module root from a frame's function (package
// path) and file (directory): the directory's elements that match the end
// of the package path belong to the module; what precedes them is its root.
func (g *goTest) learnGoRoot(p *parser, file, fn string) {
	m := reGoFunc.FindStringSubmatch(fn)
	if m == nil || !hasPrefix(file, "/") {
		return
	}
	if rel, ok := p.res.stripRoot(file); ok {
		if p.ctx.modPath == "" {
			d := path.Dir(rel)
			switch {
			case d == ".":
				p.ctx.modPath = m[1]
			case hasSuffix(m[1], "/"+d):
				p.ctx.modPath = strings.TrimSuffix(m[1], "/"+d)
			}
		}
		return
	}
	pkg := strings.Split(m[1], "/")
	dir := strings.Split(path.Dir(file), "/")
	n := 0
	for n < len(pkg) && n < len(dir)-1 && pkg[len(pkg)-1-n] == dir[len(dir)-1-n] {
		n++
	}
	if n == len(pkg) {
		return // GOPATH layout; nothing to learn
	}
	mod := strings.Join(pkg[:len(pkg)-n], "/")
	root := strings.Join(dir[:len(dir)-n], "/")
	if p.res.root == "" {
		p.res.learnRoot(root)
	}
	if p.ctx.modPath == "" {
		p.ctx.modPath = mod
	}
}

// goPkgDir is the directory of a Go package, relative to the module root
// (joined to the current base by the caller's finding).
func goPkgDir(p *parser, pkg string) string {
	pkg = strings.TrimSuffix(pkg, ".test")
	if mod := p.ctx.modPath; mod != "" {
		if pkg == mod {
			return ""
		}
		if hasPrefix(pkg, mod+"/") {
			return pkg[len(mod)+1:]
		}
	}
	el := strings.Split(pkg, "/")
	drop := 1
	if strings.Contains(el[0], ".") {
		drop = 2
		switch el[0] {
		case "github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "gitee.com", "sr.ht", "git.sr.ht":
			drop = 3
		}
		if len(el) > drop && len(el[drop]) >= 2 && el[drop][0] == 'v' && isDigit(el[drop][1]) {
			drop++
		}
	}
	if drop >= len(el) {
		return ""
	}
	return strings.Join(el[drop:], "/")
}

// goModulePath reads the module line of a go.mod file.
func goModulePath(gomod string) string {
	for _, l := range strings.Split(gomod, "\n") {
		l = strings.TrimSpace(l)
		if hasPrefix(l, "module ") {
			return strings.Trim(strings.TrimSpace(l[len("module "):]), `"`)
		}
	}
	return ""
}

// goPkgLine reads go test's package summary: "FAIL\tpkg\t0.01s",
// "ok  \tpkg\t(cached)", "FAIL\tpkg [build failed]".
func goPkgLine(s string) (string, bool) {
	f0, rest := field(s)
	if f0 != "FAIL" && f0 != "ok" {
		return "", false
	}
	f1, _ := field(rest)
	if f1 == "" || atoi(f1) != 0 || hasPrefix(f1, "-") {
		return "", false
	}
	return f1, true
}

// field splits off the first space-separated field of s, without
// allocating.
func field(s string) (string, string) {
	s = trimIndent(s)
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\t' {
			return s[:i], s[i:]
		}
	}
	return s, ""
}

// goRunLine reads "=== RUN   TestX" (and NAME, CONT, PAUSE).
func goRunLine(s string) (string, bool) {
	f0, rest := field(s)
	f1, rest := field(rest)
	f2, _ := field(rest)
	if f0 != "===" || f2 == "" {
		return "", false
	}
	switch f1 {
	case "RUN", "NAME", "CONT", "PAUSE":
		return f2, true
	}
	return "", false
}

// goVerdictLine reads "--- FAIL: TestX (0.00s)", indented or not.
func goVerdictLine(s string) (verdict, name string, ok bool) {
	f0, rest := field(s)
	f1, rest := field(rest)
	f2, _ := field(rest)
	if f0 != "---" || f2 == "" {
		return "", "", false
	}
	switch f1 {
	case "FAIL:", "PASS:", "SKIP:":
		return strings.TrimSuffix(f1, ":"), f2, true
	}
	return "", "", false
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s) && i < 9; i++ {
		if !isDigit(s[i]) {
			break
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}

package logparse

import (
	"slices"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

const jsExt = `(?:ts|tsx|mts|cts|js|jsx|mjs|cjs|vue|svelte)`

func init() {
	register(
		&Row{Name: "tsc", Family: "ts", Tool: "tsc", Hint: " TS",
			Pattern:  `^(?P<file>[^\s(][^(]*\.` + jsExt + `)\((?P<line>\d+),(?P<col>\d+)\): (?P<sev>error|warning) (?P<code>TS\d+): (?P<msg>.*)$`,
			Classify: tsClassify, Confidence: 0.95,
			Doc: "tsc --pretty false: file.ts(line,col): error TSnnnn: message"},
		&Row{Name: "tsc-pretty", Family: "ts", Tool: "tsc", Hint: " TS",
			Pattern:  `^(?P<file>[^\s:]+\.` + jsExt + `):(?P<line>\d+):(?P<col>\d+) - (?P<sev>error|warning) (?P<code>TS\d+): (?P<msg>.*)$`,
			Classify: tsClassify, Confidence: 0.95,
			Doc: "tsc --pretty: file.ts:line:col - error TSnnnn: message"},
		&Row{Name: "eslint-unix", Family: "js", Tool: "eslint", Hint: "[Error|[Warning",
			Pattern:  `^(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*) \[(?P<sev>Error|Warning)(?:/(?P<rule>[^\]]+))?\]$`,
			Classify: eslintClassify, Confidence: 0.9,
			Doc: "eslint -f unix: file:line:col: message [Error/rule]"},
		&Row{Name: "eslint-compact", Family: "js", Tool: "eslint", Hint: ", col ",
			Pattern:  `^(?P<file>\S+): line (?P<line>\d+), col (?P<col>\d+), (?P<sev>Error|Warning) - (?P<msg>.*?)(?: \((?P<rule>[^()]+)\))?$`,
			Classify: eslintClassify, Confidence: 0.9,
			Doc: "eslint -f compact: file: line N, col N, Error - message (rule)"},
		&Row{Name: "babel-syntax", Family: "js", Tool: "babel", Hint: "Error: ",
			Pattern: `^\s*(?:SyntaxError|Error): (?P<file>[^\s:]+\.` + jsExt + `): (?P<msg>.*?) \((?P<line>\d+):(?P<col>\d+)\)$`,
			Classify: func(m *match) (contract.ErrorType, bool) {
				return classifyMessage(m.get("msg"), contract.ErrSyntax), true
			},
			Confidence: 0.9, Doc: "babel and jest syntax errors: SyntaxError: file.js: message (line:col)"},
		&Row{Name: "node-esm-missing", Family: "js", Tool: "node", Hint: "ERR_MODULE_NOT_FOUND",
			Pattern:  `^Error \[ERR_MODULE_NOT_FOUND\]: Cannot find (?:module|package) '(?P<sym>[^']+)' imported from (?P<file>\S+?)$`,
			Classify: esmImportSite, Confidence: 0.85,
			Doc: "node ESM: Error [ERR_MODULE_NOT_FOUND]: Cannot find module 'x' imported from file.mjs, placed at the import line"},
		&Row{Name: "eslint-stylish", Family: "js", Tool: "eslint",
			Doc: "eslint's default stylish format: a file line, then   line:col  error  message  rule"},
		&Row{Name: "js-test", Family: "js", Tool: "node",
			Doc: "jest, vitest, mocha, uvu, ava, node-tap (TAP and base), node:test (spec and TAP) and uncaught Node errors: the deepest workspace stack frame"},
	)
	addHandler(80, func() handler { return &stylish{} })
	addHandler(100, func() handler { return &jsFail{} })
}

// esmImportSite places an ES module resolution failure, which names the
// importing file but no line, at the line of that file that imports the
// missing specifier, read from the workspace. Without a workspace, or when
// no line names it, the report goes to line 1 (where imports usually
// stand) with a lower confidence.
func esmImportSite(m *match) (contract.ErrorType, bool) {
	file := strings.TrimPrefix(m.get("file"), "file://")
	spec := m.get("sym")
	if i := strings.LastIndexAny(spec, "/\\"); i >= 0 && i+1 < len(spec) {
		spec = spec[i+1:]
	}
	line, conf := m.p.findImport(file, spec), m.row.Confidence
	if line < 1 {
		line, conf = 1, 0.5
	}
	m.relocate = &finding{file: own(file), line: line, base: m.p.base(), row: m.row.Name, conf: conf}
	return contract.ErrImport, true
}

func tsClassify(m *match) (contract.ErrorType, bool) {
	if m.get("sev") != "error" {
		return "", false
	}
	code := m.get("code")
	switch code {
	case "TS2307", "TS2306", "TS2792", "TS7016", "TS2305", "TS2614", "TS1192", "TS6192", "TS2613", "TS1259":
		return contract.ErrImport, true
	case "TS6133", "TS6138", "TS6196", "TS6198", "TS7027", "TS7028", "TS6385", "TS6387":
		if strings.Contains(m.line, "import") || m.p.sourceLineHas(m.get("file"), m.num("line"), "import ") {
			return contract.ErrImport, true
		}
		return contract.ErrLinting, true
	}
	if hasPrefix(code, "TS1") && len(code) == 6 {
		return contract.ErrSyntax, true
	}
	return contract.ErrTypeError, true
}

// eslintRules maps rules whose defect is more than style.
var eslintRules = map[string]contract.ErrorType{
	"no-undef": contract.ErrTypeError, "import/no-unresolved": contract.ErrImport, "n/no-missing-import": contract.ErrImport,
	"node/no-missing-import": contract.ErrImport, "n/no-missing-require": contract.ErrImport, "node/no-missing-require": contract.ErrImport,
	"import/named": contract.ErrImport, "import/no-unused-modules": contract.ErrImport, "unused-imports/no-unused-imports": contract.ErrImport,
	"@typescript-eslint/no-unused-vars": contract.ErrLinting, "import/default": contract.ErrImport,
}

func eslintClassify(m *match) (contract.ErrorType, bool) {
	return eslintType(m.get("rule"), m.get("msg")), true
}

func eslintType(rule, msg string) contract.ErrorType {
	if rule == "" && (hasPrefix(msg, "Parsing error") || strings.Contains(msg, "Parsing error:")) {
		return classifyMessage(msg, contract.ErrSyntax)
	}
	if t, ok := eslintRules[rule]; ok {
		return t
	}
	return contract.ErrLinting
}

var (
	reStylishFile = lazyre.New(`^(/\S.*|[A-Za-z]:\\\S.*|[\w.\-/]+\.` + jsExt + `)$`)
	reStylishMsg  = lazyre.New(`^\s+(\d+):(\d+)\s+(error|warning)\s+(.+?)(?:\s{2,}(\S+))?\s*$`)
)

// stylish reads ESLint's default format, where the file is named once on
// its own line.
type stylish struct{ file string }

func (st *stylish) line(p *parser, s string) bool {
	if isBlank(s) {
		st.file = ""
		return false
	}
	if st.file != "" && (s[0] == ' ' || s[0] == '\t') {
		if m := reStylishMsg.FindStringSubmatch(s); m != nil {
			sev := m[3]
			p.emit(finding{file: st.file, line: atoi(m[1]), col: atoi(m[2]), typ: eslintType(m[5], m[4]),
				msg: m[4], rule: m[5], sev: sev, tool: "eslint", conf: 0.9, base: p.base(), row: "eslint-stylish"})
			return true
		}
		st.file = ""
		return false
	}
	if s[0] != ' ' && len(s) < 1024 && (s[0] == '/' || strings.IndexByte(s, ' ') < 0) && strings.IndexByte(s, '.') > 0 &&
		!strings.Contains(s, ": ") && reStylishFile.MatchString(s) {
		st.file = s
		return false
	}
	st.file = ""
	return false
}

func (st *stylish) flush(p *parser) {}

var (
	reUvuFail   = lazyre.New(`^FAIL\s+(?:(\S.*?)\s+)?"(.+)"$`)
	reAvaFail   = lazyre.New(`^\s*✘ \[fail\]: (.+)$`)
	reJSUndef   = lazyre.New(`^[A-Za-z_$][\w$]* is not defined$`)
	reJest      = lazyre.New(`^\s*● (.+)$`)
	reMochaHead = lazyre.New(`^\s+\d+\) (.+?):?$`)
	// reParenTail matches a numbered line that ends with a duration or a
	// location in parentheses, which no mocha failure's title does
	// (titles such as ".json(object)" do hold parentheses).
	reParenTail = lazyre.New(`\((?:[\d.]+ ?m?s|[^()]*:\d+(?::\d+)?)\)$`)
	reNodeX     = lazyre.New(`^\s*✖ (.+?)(?: \([\d.]+m?s\))?$`)
	reTapNotOK  = lazyre.New(`^\s*not ok \d+ - (.+?)(?: # .*)?$`)
	reJsErr     = lazyre.New(`^\s{0,8}(?:Uncaught )?((?:\w+\.)?\w*(?:Error|Exception))(?: \[\w+\])?(?::\s*(.*))?$`)
	reBabelLoc  = lazyre.New(`: \S+\.` + jsExt + `: .* \(\d+:\d+\)$`)
	reNodeLoc   = lazyre.New(`^(\S+\.` + jsExt + `):(\d+)$`)
)

// jsFail reads JavaScript test failures and uncaught errors: a context
// (jest's ●, mocha's "1) ", node:test's ✖, TAP's "not ok", uvu's FAIL
// "name", ava's title below its "✘ [fail]:" list, node-tap's ✖ name >
// assertion), an error line, then stack frames; the first frame inside the
// workspace is the report.
type jsFail struct {
	open    bool
	test    string
	msg     string
	errName string
	done    bool
	tap     bool
	mocha   bool
	// titling is set while a mocha failure's title goes on below its
	// head, one suite or test title a line, the last ending with ":".
	titling bool
	runner  string   // jest, mocha, node:test, vitest, uvu, ava, tap; node for uncaught errors
	console bool     // inside a jest console.* block
	loc     *finding // node's "file:line" header before an uncaught error
	// stack is the indentation of a TAP YAML "stack: |" block being read,
	// -1 outside one: its frames drop the "at " and may be relative.
	stack int
	// after counts the lines read since the context started.
	after int
	// block is set after a TAP "error: |-": the message is the next line.
	block bool
	// keep holds what outlives one failure: the titles ava listed as
	// failed and the TAP subtests open around the current line.
	keep *jsKeep
}

// jsKeep is the part of jsFail's state that spans failures.
type jsKeep struct {
	avaFailed []string
	subtests  []tapSubtest
}

// tapSubtest is a TAP "# Subtest: name" line and its indentation.
type tapSubtest struct {
	indent int
	name   string
}

// maxJSKept bounds the titles and subtests jsKeep remembers.
const maxJSKept = 256

func (j *jsFail) start(test string, tap bool) {
	k := j.keep
	if k == nil {
		k = &jsKeep{}
	}
	*j = jsFail{open: true, test: own(test), tap: tap, loc: j.loc, console: false, stack: -1, keep: k}
}

// subtest records a TAP "# Subtest:" line, closing the deeper ones.
func (k *jsKeep) subtest(indent int, name string) {
	for len(k.subtests) > 0 && k.subtests[len(k.subtests)-1].indent >= indent {
		k.subtests = k.subtests[:len(k.subtests)-1]
	}
	if len(k.subtests) < maxJSKept {
		k.subtests = append(k.subtests, tapSubtest{indent, own(name)})
	}
}

// enclosing returns the innermost open subtest at indent or less: the
// test a TAP "not ok" belongs to (node-tap nests an assertion's "not ok"
// below its test's "# Subtest:").
func (k *jsKeep) enclosing(indent int) string {
	for i := len(k.subtests) - 1; i >= 0; i-- {
		if k.subtests[i].indent <= indent {
			return k.subtests[i].name
		}
	}
	return ""
}

// avaTitle returns the failed test ava listed whose title is t: its list
// line is "✘ [fail]: title", sometimes followed by the failure's kind.
func (k *jsKeep) avaTitle(t string) (string, bool) {
	for _, f := range k.avaFailed {
		if f == t || (hasPrefix(f, t) && f[len(t)] == ' ') {
			return t, true
		}
	}
	return "", false
}

func (j *jsFail) line(p *parser, s string) bool {
	if j.console {
		// jest's console.log/error blocks: indented, stacks and all
		if s == "" || s[0] == ' ' || s[0] == '\t' {
			if !strings.Contains(s, "● ") {
				return false
			}
		}
		j.console = false
	}
	trimmed := trimIndent(s)
	indent := len(s) - len(trimmed)
	if hasPrefix(trimmed, "console.") && !strings.ContainsAny(trimmed, " (") {
		j.open, j.console = false, true
		return false
	}
	if len(s) < 3 {
		return false
	}
	if m := nodeLocLine(strings.TrimPrefix(s, tapComment)); m != nil {
		j.loc = &finding{file: own(strings.TrimPrefix(m[1], "file://")), line: atoi(m[2]), base: p.base(), tool: "node"}
		return false
	}
	if j.keep == nil {
		j.keep = &jsKeep{}
	}
	j.after++
	if hasPrefix(trimmed, "# Subtest: ") {
		j.keep.subtest(indent, strings.TrimSpace(trimmed[len("# Subtest: "):]))
		return false
	}
	if hasPrefix(trimmed, "FAIL ") && hasSuffix(trimmed, `"`) {
		// uvu: `FAIL  "name"`, or `FAIL  suite  "name"`
		if m := reUvuFail.FindStringSubmatch(strings.TrimSpace(trimmed)); m != nil {
			name := m[2]
			if m[1] != "" {
				name = m[1] + " > " + name
			}
			j.start(name, false)
			j.runner = "uvu"
			return true
		}
	}
	if indent == 2 && len(j.keep.avaFailed) > 0 && trimmed != "" && trimmed[0] != ' ' {
		// ava: each failure's details open with its title, indented by two
		if t, ok := j.keep.avaTitle(strings.TrimRight(trimmed, " ")); ok {
			j.start(t, false)
			j.runner = "ava"
			return true
		}
	}
	if hasPrefix(trimmed, "FAIL ") && strings.Contains(trimmed, " > ") {
		// vitest: " FAIL  file.test.js > suite > name"
		_, name, _ := strings.Cut(strings.TrimSpace(trimmed), " > ")
		j.start(name, false)
		j.runner = "vitest"
		return true
	}
	// The runners' markers. Each one's expression wants it first on the
	// line, after blanks; a line that also holds an earlier marker of the
	// list, anywhere, is that one's, and is left alone.
	switch u := trimLeftRESpace(s); {
	case hasPrefix(u, "● "):
		if m := reJest.FindStringSubmatch(s); m != nil {
			t := m[1]
			if hasPrefix(t, "Test suite failed to run") || hasPrefix(t, "Console") {
				t = ""
			}
			j.start(t, false)
			j.runner = "jest"
			return true
		}
	case hasPrefix(u, "✘ [fail]: ") && !strings.Contains(s, "● "):
		if m := reAvaFail.FindStringSubmatch(s); m != nil {
			// Kept for the rest of the log: cloned, or each title would
			// keep its whole read chunk alive; a title listed again adds
			// nothing.
			if len(j.keep.avaFailed) < maxJSKept && !slices.Contains(j.keep.avaFailed, m[1]) {
				j.keep.avaFailed = append(j.keep.avaFailed, own(m[1]))
			}
			return true
		}
	case hasPrefix(u, "✖ ") && !strings.Contains(s, "● ") && !strings.Contains(s, "✘ [fail]: "):
		if m := reNodeX.FindStringSubmatch(s); m != nil {
			if hasPrefix(m[1], "failing tests") {
				return true
			}
			if !hasSuffix(s, "s)") {
				// node-tap's base reporter: "✖ test > assertion", no
				// duration, then the assertion's file:line:col
				name, msg := m[1], ""
				if i := strings.LastIndex(name, " > "); i > 0 {
					name, msg = name[:i], name[i+len(" > "):]
				}
				j.start(name, false)
				j.runner, j.msg = "tap", msg
				return true
			}
			j.start(m[1], false)
			j.runner = "node:test"
			return true
		}
	case hasPrefix(u, "not ok ") && (strings.IndexByte(s, 0xE2) < 0 || // the other markers start with this byte
		!strings.Contains(s, "● ") && !strings.Contains(s, "✘ [fail]: ") && !strings.Contains(s, "✖ ")):
		if j.tapNotOK(s, indent) {
			return true
		}
	}
	if len(s) > 4 && s[0] == ' ' && trimmed != "" && isDigit(trimmed[0]) && strings.Contains(s, ") ") {
		if m := reMochaHead.FindStringSubmatch(s); m != nil && !reParenTail.MatchString(m[1]) {
			j.start(m[1], false)
			j.runner = "mocha"
			j.mocha = true
			j.titling = !hasSuffix(trimmed, ":")
			return true
		}
	}
	if indent <= 8 && (ndError.in(trimmed, p.mask) || ndException.in(trimmed, p.mask)) {
		if m := jsErrLine(s, j.loc); m != nil {
			if !j.open || j.done {
				j.start("", false)
			}
			if j.errName == "" {
				j.errName, j.msg = own(m[1]), own(strings.TrimSpace(strings.TrimPrefix(s, tapComment)))
				if reBabelLoc.MatchString(s) {
					j.done = true // the babel-syntax row reports it, at the file it names
					return false
				}
				if m[1] == "SyntaxError" && j.loc != nil {
					f := *j.loc
					f.typ, f.msg, f.conf, f.test, f.row = contract.ErrSyntax, j.msg, 0.85, j.test, "js-test"
					p.emit(f)
					j.done = true
				}
			}
			return j.test != ""
		}
	}
	if !j.open || j.done {
		return false
	}
	if m := j.frame(s); m != nil {
		return j.frameLine(p, m)
	}
	if j.titling && j.errName == "" && len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		// mocha's nested title: its full title, as --grep and the TAP
		// reporter spell it, joins the parts with spaces.
		t := strings.TrimSpace(s)
		j.test += " " + strings.TrimSuffix(t, ":")
		j.titling = !hasSuffix(t, ":")
		return true
	}
	t := strings.TrimSpace(s)
	if j.tap || j.runner == "tap" {
		switch {
		case j.tap && hasPrefix(t, "error: "):
			j.msg = strings.Trim(strings.TrimPrefix(t, "error: "), `'"|-`) // node:test TAP's YAML
			j.block = j.msg == ""                                          // a block scalar: the message is on the next line
			return true
		case j.block && t != "":
			j.msg, j.block = t, false
			return true
		case hasPrefix(t, "stack: |"):
			j.stack = indent
			return true
		case hasPrefix(t, "name: ") || hasPrefix(t, "type: "):
			// the error's class: node:test's YAML name, node-tap's type
			if v := strings.Trim(t[len("name: "):], `'"`); j.errName == "" && (hasSuffix(v, "Error") || hasSuffix(v, "Exception")) && strings.IndexByte(v, ' ') < 0 {
				j.errName = v
			}
			return true
		}
		if j.stack >= 0 && indent <= j.stack {
			j.stack = -1
		}
		return false // a TAP failure's message is its error: line, or its description
	}
	if j.msg == "" && t != "" && t != "---" && (s[0] == ' ' || s[0] == '\t') && !(j.runner == "ava" && avaNoise(t)) {
		j.msg = t
	}
	return false
}

// tapNotOK starts a failure at TAP's "not ok N name", and reports
// whether s is one.
func (j *jsFail) tapNotOK(s string, indent int) bool {
	m := reTapNotOK.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	name, desc := m[1], m[1]
	if t := j.keep.enclosing(indent); t != "" {
		name = t // node-tap: the "not ok" is the assertion's
	}
	j.start(name, true)
	j.runner = "node:test"
	if name != desc {
		j.runner, j.msg = "tap", desc
	}
	return true
}

// avaNoise reports whether a line of an ava failure is its location or
// its source excerpt ("test.js:5", "4: code"), not its message.
func avaNoise(t string) bool {
	i := strings.IndexByte(t, ':')
	if i <= 0 {
		return false
	}
	return allDigits(t[:i]) || (strings.IndexByte(t, ' ') < 0 && allDigits(t[i+1:]))
}

// tapComment starts a TAP diagnostic line; node:test's TAP reporter
// prints a test file's stderr so, an uncaught error's header included.
const tapComment = "# "

// jsErrLine matches an error line, or one printed as a TAP diagnostic
// below node's "file:line" header of an uncaught error (loc).
func jsErrLine(s string, loc *finding) []string {
	if jsErrShape(s) {
		if m := reJsErr.FindStringSubmatch(s); m != nil {
			return m
		}
	}
	if loc != nil && hasPrefix(s, tapComment) && jsErrShape(s[len(tapComment):]) {
		return reJsErr.FindStringSubmatch(s[len(tapComment):])
	}
	return nil
}

// jsErrShape is a cheap test before reJsErr: after at most eight blanks
// and "Uncaught ", a run of word bytes and dots that ends in Error or
// Exception, then the end of the line, a colon or a blank. The
// expression's error name is that run, since it holds only such bytes
// and what may follow it none.
func jsErrShape(s string) bool {
	i := 0
	for i < len(s) && isRESpace(s[i]) {
		i++
	}
	if i > 8 {
		return false
	}
	s = strings.TrimPrefix(s[i:], "Uncaught ")
	i = 0
	for i < len(s) && (isWordByte(s[i]) || s[i] == '.') {
		i++
	}
	if i < len(s) && s[i] != ':' && s[i] != ' ' {
		return false
	}
	return hasSuffix(s[:i], "Error") || hasSuffix(s[:i], "Exception")
}

// nodeLocLine reads the "file.js:line" header Node prints above an
// uncaught error's source line.
func nodeLocLine(s string) []string {
	if !isDigit(s[len(s)-1]) || strings.IndexByte(s, ' ') >= 0 || strings.IndexByte(s, ':') < 0 {
		return nil
	}
	return reNodeLoc.FindStringSubmatch(s)
}

func (j *jsFail) frame(s string) []string {
	if strings.IndexByte(s, ':') < 0 || (s[0] != ' ' && s[0] != '\t' && !hasPrefix(s, "❯")) {
		return nil
	}
	needAt, rel := !j.tap, false
	switch {
	case j.tap && j.stack >= 0:
		rel = true // a TAP YAML stack block: node-tap's frames are relative
	case j.runner == "tap":
		// node-tap's base reporter: the assertion's "file:line:col" right
		// after its ✖ line, then "fn (file:line:col)" frames
		needAt, rel = false, true
		if j.after > 1 && !hasSuffix(s, ")") {
			return nil
		}
	}
	if f, l, c, ok := jsFrame(s, needAt, rel); ok {
		return []string{s, "", f, l, c}
	}
	return nil
}

// jsFrame reads a V8 stack frame, "at fn (path:line:col)" or
// "at path:line:col"; TAP's YAML stacks drop the "at " (needAt false),
// and then only absolute paths count, unless rel (a stack block whose
// runner prints paths relative to the project). vitest's and ava's frames
// start with "❯ " and "› ".
func jsFrame(s string, needAt, rel bool) (file, line, col string, ok bool) {
	t := strings.TrimSpace(s)
	if hasPrefix(t, "at ") {
		t = t[3:]
	} else if hasPrefix(t, "❯ ") || hasPrefix(t, "› ") {
		// vitest: "❯ fn file:line:col" or "❯ file:line:col"; ava: "› file:line:col"
		t = t[strings.IndexByte(t, ' ')+1:]
		if i := strings.LastIndexByte(t, ' '); i >= 0 {
			t = t[i+1:]
		}
		needAt, rel = true, true
	} else if needAt {
		return "", "", "", false
	}
	t = strings.TrimSuffix(t, ")")
	if i := strings.LastIndex(t, " ("); i >= 0 {
		t = t[i+2:]
	} else {
		t = strings.TrimPrefix(t, "(")
	}
	t = strings.TrimPrefix(t, "file://")
	j := strings.LastIndexByte(t, ':')
	if j <= 0 || !allDigits(t[j+1:]) {
		return "", "", "", false
	}
	k := strings.LastIndexByte(t[:j], ':')
	if k <= 0 || !allDigits(t[k+1:j]) {
		return "", "", "", false
	}
	file = t[:k]
	if strings.ContainsAny(file, " ()") || (!needAt && !rel && !hasPrefix(file, "/")) {
		return "", "", "", false
	}
	return file, t[k+1 : j], t[j+1:], true
}

func allDigits(s string) bool {
	if s == "" || len(s) > 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func (j *jsFail) frameLine(p *parser, m []string) bool {
	p.noteFrame(m[2])
	f := finding{file: m[2], line: atoi(m[3]), col: atoi(m[4]), base: p.base(), tool: "node", test: j.test, row: "js-test"}
	if _, res := p.res.resolve(f.file, f.base); res == resDrop {
		return true
	}
	f.typ = jsErrType(j.errName, j.msg)
	f.msg = j.msg
	if f.msg == "" {
		f.msg = j.errName
	}
	f.conf = 0.8
	if j.test != "" {
		f.conf = 0.85
		f.tool = j.runner
	}
	p.emit(f)
	j.done = true
	return true
}

func (j *jsFail) flush(p *parser) {}

// jsErrType maps a JavaScript error to an error type; see the package doc.
// Some runners (uvu, node-tap) print an error's message without its class:
// the engine's own wordings then name it.
func jsErrType(name, msg string) contract.ErrorType {
	if name == "" {
		name = jsErrName(msg)
	}
	switch {
	case strings.Contains(msg, "Cannot find module") || strings.Contains(msg, "Cannot find package") || strings.Contains(msg, "ERR_MODULE_NOT_FOUND"):
		return contract.ErrImport
	case name == "SyntaxError":
		if strings.Contains(msg, "does not provide an export named") {
			return contract.ErrImport
		}
		if strings.Contains(msg, "JSON") {
			return contract.ErrLogic // JSON.parse on bad data, not bad code
		}
		return contract.ErrSyntax
	case name == "ReferenceError":
		return contract.ErrTypeError
	case name == "TypeError" && (strings.Contains(msg, "is not a function") || strings.Contains(msg, "is not a constructor")):
		return contract.ErrTypeError
	}
	return contract.ErrLogic
}

// jsErrName names the class of a V8 error from its message alone: the
// engine's wordings for an undefined name and for calling what is not a
// function. "" when the message is not one of them.
func jsErrName(msg string) string {
	switch {
	case reJSUndef.MatchString(msg):
		return "ReferenceError"
	case hasSuffix(msg, " is not a function") || hasSuffix(msg, " is not a constructor"):
		return "TypeError"
	}
	return ""
}

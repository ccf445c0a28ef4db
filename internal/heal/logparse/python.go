package logparse

import (
	"path"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

func init() {
	register(
		&Row{Name: "pylint", Family: "python", Tool: "pylint", Hint: ".py:",
			Pattern:  `^(?P<file>[^\s:]+\.pyi?):(?P<line>\d+):(?P<col>\d+): (?P<code>[CRWEFI]\d{4}): (?P<msg>.*?)(?: \((?P<rule>[\w-]+)\))?$`,
			Classify: pyCodeClassify, Confidence: 0.9,
			Doc: "pylint: file.py:line:col: C0114: message (symbol)"},
		&Row{Name: "pylint-parseable", Family: "python", Tool: "pylint", Hint: ": [",
			Pattern:  `^(?P<file>[^\s:]+\.pyi?):(?P<line>\d+): \[(?P<code>[A-Z]{1,4}\d{2,4})(?:\((?P<rule>[\w-]+)\))?(?:, [^\]]*)?\] (?P<msg>.*)$`,
			Classify: pyCodeClassify, Confidence: 0.9,
			Doc: "pylint --output-format=parseable and flake8 --format=pylint: file.py:line: [C0114(symbol), obj] message"},
		&Row{Name: "flake8", Family: "python", Tool: "flake8", Hint: ".py:",
			Pattern:  `^(?P<file>[^\s:]+\.pyi?):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]{1,4}\d{2,4}) (?:\[\*\] )?(?P<msg>.*)$`,
			Classify: pyCodeClassify, Confidence: 0.9,
			Doc: "flake8, pycodestyle, pyflakes and ruff --output-format concise: file.py:line:col: CODE message"},
		&Row{Name: "ruff-syntax", Family: "python", Tool: "ruff", Hint: "SyntaxError",
			Pattern: `^(?P<file>[^\s:]+\.pyi?):(?P<line>\d+):(?P<col>\d+): (?P<msg>SyntaxError: .*)$`,
			Classify: func(m *match) (contract.ErrorType, bool) {
				return classifyMessage(m.get("msg"), contract.ErrSyntax), true
			},
			Confidence: 0.9, Doc: "ruff's syntax errors: file.py:line:col: SyntaxError: message"},
		&Row{Name: "pyright", Family: "python", Tool: "pyright", Hint: " - ",
			Pattern:  `^\s+(?P<file>[^\s:]+\.pyi?):(?P<line>\d+):(?P<col>\d+) - (?P<sev>error|warning|information): (?P<msg>.*)$`,
			Classify: pyrightClassify, Confidence: 0.95,
			Doc: "pyright: the file, then   /path/file.py:line:col - error: message"},
		&Row{Name: "python-traceback", Family: "python", Tool: "python",
			Doc: "Python tracebacks and SyntaxError blocks: the deepest frame inside the workspace; unittest FAIL:/ERROR: names the test; compileall's and py_compile's Sorry: IndentationError: … (file.py, line N)"},
		&Row{Name: "pytest", Family: "python", Tool: "pytest",
			Doc: "pytest failures: ____ test ____ sections, E lines, and file.py:line: Exception"},
	)
	addHandler(10, func() handler { return &pyTrace{} })
	addHandler(20, func() handler { return &pytest{} })
}

func pyrightClassify(m *match) (contract.ErrorType, bool) {
	switch m.get("sev") {
	case "information":
		return "", false
	case "warning":
		if t := classifyMessage(m.get("msg"), contract.ErrLinting); t == contract.ErrImport {
			return t, true
		}
		return contract.ErrLinting, true
	}
	msg := m.get("msg")
	if hasPrefix(msg, "Import ") && strings.Contains(msg, "could not be resolved") {
		return contract.ErrImport, true
	}
	t := classifyMessage(msg, contract.ErrTypeError)
	if t == contract.ErrLogic {
		t = contract.ErrTypeError
	}
	return t, true
}

func pyCodeClassify(m *match) (contract.ErrorType, bool) {
	code := m.get("code")
	if m.get("rule") == "syntax-error" {
		code = "E0001"
	}
	return pyCodeType(code, m.get("msg")), true
}

// pyCodes maps flake8/ruff/pylint codes whose defect is more than style.
var pyCodes = map[string]contract.ErrorType{
	"F401": contract.ErrImport, "W0611": contract.ErrImport, "E0401": contract.ErrImport, "E0611": contract.ErrImport,
	"F811": contract.ErrLinting, "W0404": contract.ErrImport,
	"F821": contract.ErrTypeError, "F822": contract.ErrTypeError, "F823": contract.ErrTypeError,
	"E0602": contract.ErrTypeError, "E1101": contract.ErrTypeError, "E1120": contract.ErrTypeError,
	"E1121": contract.ErrTypeError, "E1123": contract.ErrTypeError, "E1124": contract.ErrTypeError,
	"E1102": contract.ErrTypeError, "E0601": contract.ErrTypeError,
	"E112": contract.ErrIndentation, "E113": contract.ErrIndentation, "E902": contract.ErrIndentation,
}

// pyCodeType classifies a Python linter code: syntax codes by their
// message (SyntaxError or IndentationError), the codes above, else LINTING.
func pyCodeType(code, msg string) contract.ErrorType {
	switch code {
	case "E999", "E0001", "invalid-syntax":
		return classifyMessage(msg, contract.ErrSyntax)
	}
	if t, ok := pyCodes[code]; ok {
		if code == "E902" && !strings.Contains(msg, "TabError") && !strings.Contains(msg, "Indentation") {
			return contract.ErrLinting
		}
		return t
	}
	return contract.ErrLinting
}

var (
	reTraceHead = lazyre.New(`^\s*Traceback \(most recent call last\):\s*$`)
	rePyFrame   = lazyre.New(`^\s*File "(.+?)", line (\d+)(?:, in (.+))?$`)
	rePyExc     = lazyre.New(`^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Failure|Warning|Iteration|Group)|[a-z_][\w.]*\.[A-Z]\w*)(?:\[[^\]]*\])?(?:: (.*))?$`)
	reUnitHead  = lazyre.New(`^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)`)
)

// pyTrace reads tracebacks: it keeps the deepest frame inside the
// workspace and reports it when the exception line arrives.
//
// Chained exceptions ("During handling of the above exception" and "The
// above exception was the direct cause") report the root cause, printed
// first; a later link is reported too, unless its deepest workspace frame
// is a raise statement (a wrapper raised on purpose). Exception groups
// ("+ Exception Group Traceback", the sub-exceptions' "| " frames) report
// each sub-exception at its deepest workspace frame, and the group's own
// frame only when no sub-exception has one.
type pyTrace struct {
	active  bool
	frames  int
	last    *finding // the deepest workspace frame so far
	lastSrc string   // its source line, as the traceback quotes it
	srcNext bool     // the next indented line is last's source line
	final   *finding // the last frame, for SyntaxError blocks
	test    string   // from unittest's FAIL:/ERROR: header
	link    bool     // this traceback is a later link of a chain
	chain   bool     // a chain message was just read
	head    bool     // this traceback is an exception group's own
	grp     pyGroup
	compile string // the file of compileall's "*** Error compiling 'f'..."
}

// pyGroup is what an exception group traceback has read so far.
type pyGroup struct {
	in       bool
	fallback *finding // the group's own deepest workspace frame
	reported bool     // a sub-exception was reported
}

var (
	rePyGroupRule = lazyre.New(`^\s*\+(?:-+\+?)?-+(?: \d+ -+| \.\.\.[^-]*-+)?$`)
	rePySorry     = lazyre.New(`^Sorry: (\w+): (.*) \(([^,()]+), line (\d+)\)$`)
)

// pyTraceLeads start the lines pyTrace reads between tracebacks: unittest's
// FAIL: and ERROR:, an exception group's +, compileall's *** and Sorry:,
// Traceback, File, and the chain messages During and The.
var pyTraceLeads = leads("FE+*STD")

func (t *pyTrace) line(p *parser, s string) bool {
	if !t.active && !t.chain && !t.grp.in && p.quiet(pyTraceLeads) {
		return false
	}
	if hasPrefix(s, "FAIL: ") || hasPrefix(s, "ERROR: ") {
		if m := reUnitHead.FindStringSubmatch(s); m != nil {
			t.test = own(m[1])
			return true
		}
	}
	if t.grp.in || groupHead(s) {
		if done, ok := t.groupLine(p, s); done {
			return ok
		}
	}
	if hasPrefix(s, "*** Error compiling ") {
		t.compile = own(strings.TrimSuffix(strings.Trim(strings.TrimPrefix(s, "*** Error compiling "), "."), "..."))
		t.compile = strings.Trim(t.compile, `'"`)
		return true
	}
	if hasPrefix(s, "Sorry: ") {
		if m := rePySorry.FindStringSubmatch(s); m != nil && (t.compile == "" || path.Base(t.compile) == m[3]) {
			file, conf := t.compile, 0.95
			if file == "" {
				// python -m py_compile alone names the file by its base
				// name: the workspace's one file of that name.
				file, conf = m[3], 0.85
			}
			typ := pyExcType(m[1], m[2])
			p.emit(finding{file: file, line: atoi(m[4]), typ: typ, msg: own(strings.TrimPrefix(s, "Sorry: ")),
				tool: "python", conf: conf, base: p.base(), row: "python-traceback"})
			t.compile = ""
			return true
		}
	}
	return t.traceLine(p, s)
}

// groupHead is a cheap test for "  + Exception Group Traceback".
func groupHead(s string) bool {
	i := 0
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i < len(s) && s[i] == '+' && hasPrefix(s[i:], "+ Exception Group Traceback")
}

// groupLine reads the frame of an exception group: its rules, and the
// "| " prefix of its lines, which it strips before reading them as a
// traceback. done is false when s is not part of a group.
func (t *pyTrace) groupLine(p *parser, s string) (done, ok bool) {
	u := strings.TrimLeft(s, " ")
	switch {
	case hasPrefix(u, "+ Exception Group Traceback"):
		t.endGroup(p)
		t.grp.in = true
		t.start(true)
		return true, true
	case hasPrefix(u, "+-") || u == "+":
		if rePyGroupRule.MatchString(s) {
			t.active = false // the next sub-exception
			return true, true
		}
	case hasPrefix(u, "|"):
		if !t.grp.in {
			return false, false
		}
		c := strings.TrimPrefix(strings.TrimPrefix(u, "|"), " ")
		if hasPrefix(c, "Exception Group Traceback") {
			t.start(true) // a nested group's own traceback
			return true, true
		}
		if hasPrefix(c, "Traceback (") {
			t.start(false)
			return true, true
		}
		t.traceLine(p, c)
		return true, true
	}
	if t.grp.in {
		t.endGroup(p)
	}
	return false, false
}

// start begins a traceback; head marks an exception group's own.
func (t *pyTrace) start(head bool) {
	link := t.chain
	*t = pyTrace{active: true, test: t.test, link: link, head: head, grp: t.grp, compile: t.compile}
}

// endGroup reports the group's own frame when none of its sub-exceptions
// was reported.
func (t *pyTrace) endGroup(p *parser) {
	if t.grp.in && !t.grp.reported && t.grp.fallback != nil {
		p.emit(*t.grp.fallback)
	}
	t.grp = pyGroup{}
}

// traceLine reads one line of a plain traceback.
func (t *pyTrace) traceLine(p *parser, s string) bool {
	// Both expressions want their words first on the line, after blanks.
	u := trimLeftRESpace(s)
	if hasPrefix(u, "Traceback (") && reTraceHead.MatchString(s) {
		t.start(false)
		return true
	}
	var m []string
	if hasPrefix(u, `File "`) {
		m = rePyFrame.FindStringSubmatch(s)
	}
	if m != nil && (t.active || m[3] == "") {
		if !t.active {
			t.start(false)
		}
		t.frames++
		f := &finding{file: own(m[1]), line: atoi(m[2]), base: p.base(), tool: "python"}
		p.noteFrame(m[1])
		t.final = f
		t.srcNext = false
		if _, res := p.res.resolve(f.file, f.base); res != resDrop {
			t.last, t.lastSrc, t.srcNext = f, "", true
		}
		return true
	}
	if hasPrefix(s, "During handling of the above exception") || hasPrefix(s, "The above exception was the direct cause") {
		t.chain, t.active = true, false
		p.ctx.pyChain = true // pytest's sections print chains too
		return true
	}
	if !t.active {
		if t.chain && strings.TrimSpace(s) != "" {
			t.chain = false
		}
		return false
	}
	if hasPrefix(s, " ") || hasPrefix(s, "\t") || isBlank(s) {
		if t.srcNext && strings.TrimSpace(s) != "" {
			t.lastSrc, t.srcNext = own(strings.TrimSpace(s)), false
		}
		return true
	}
	m = rePyExc.FindStringSubmatch(s)
	if m == nil {
		t.active = false
		return false
	}
	t.report(p, m[1], s)
	t.active, t.chain = false, false
	return true
}

func (t *pyTrace) report(p *parser, exc, msg string) {
	typ := pyExcType(exc, msg)
	loc := t.last
	conf := 0.75
	if typ == contract.ErrSyntax || typ == contract.ErrIndentation {
		loc, conf = t.final, 0.95
	} else if typ == contract.ErrImport {
		conf = 0.85
	}
	if loc == nil {
		return
	}
	if t.link && loc == t.last && (hasPrefix(t.lastSrc, "raise ") || t.lastSrc == "raise") {
		return // a wrapper raised on purpose; the cause was reported
	}
	f := *loc
	f.typ, f.msg, f.conf, f.row = typ, own(msg), conf, "python-traceback"
	if p.ctx.pyTest != "" {
		f.test = p.ctx.pyTest
	} else {
		f.test = t.test
	}
	if f.test != "" && typ == contract.ErrLogic {
		f.conf = 0.85
		f.tool = "unittest"
		if p.ctx.pyTest != "" {
			f.tool = "pytest"
		}
	}
	if t.head {
		if t.grp.fallback == nil {
			f.file, f.base, f.test = own(f.file), own(f.base), own(f.test)
			t.grp.fallback = &f
		}
		return
	}
	if t.grp.in {
		t.grp.reported = true
	}
	p.emit(f)
}

func (t *pyTrace) flush(p *parser) { t.endGroup(p) }

var (
	rePyArgs = lazyre.New(`positional argument|keyword argument|required (?:positional|keyword)|takes (?:no|\d+) arguments?|unsupported operand|not callable|not subscriptable|not iterable|must be \w+, not|can only concatenate|object cannot be interpreted`)
)

// pyExcType maps a Python exception to an error type; see the package doc.
func pyExcType(exc, msg string) contract.ErrorType {
	name := exc[strings.LastIndexByte(exc, '.')+1:]
	switch name {
	case "SyntaxError":
		return contract.ErrSyntax
	case "IndentationError", "TabError":
		return contract.ErrIndentation
	case "ImportError", "ModuleNotFoundError":
		return contract.ErrImport
	case "NameError", "UnboundLocalError":
		return contract.ErrTypeError
	case "TypeError":
		if rePyArgs.MatchString(msg) && !strings.Contains(msg, "NoneType") {
			return contract.ErrTypeError
		}
	case "AttributeError":
		if !strings.Contains(msg, "NoneType") {
			return contract.ErrTypeError
		}
	}
	return contract.ErrLogic
}

var (
	rePytestSection = lazyre.New(`^_{2,} (.+?) _{2,}$`)
	rePytestLoc     = lazyre.New(`^(\S+\.py):(\d+): (.+)$`)
)

// pytest reads pytest's failure sections.
type pytest struct {
	synLoc  *finding // File "x", line N quoted in E lines
	in      bool
	test    string
	elines  []string
	lastWs  *finding
	emitted bool
	gt      string // the last source line pytest marked with ">"
}

// pytestBanner returns the title of a pytest banner, "===… TITLE …===":
// three or more '=', a space, the title, a space, three or more '='.
func pytestBanner(s string) (string, bool) {
	t := strings.TrimLeft(s, "=")
	lead := len(s) - len(t)
	t = strings.TrimRight(t, "=")
	trail := len(s) - lead - len(t)
	if lead < 3 || trail < 3 || len(t) < 3 || t[0] != ' ' || t[len(t)-1] != ' ' {
		return "", false
	}
	return t[1 : len(t)-1], true
}

// pytestLeads start the lines pytest reads outside its failure sections:
// banners, section titles, and the FAILED and ERROR summary.
var pytestLeads = leads("=_FE")

func (t *pytest) line(p *parser, s string) bool {
	if !t.in && p.quiet(pytestLeads) {
		return false
	}
	if len(s) > 6 && s[0] == '=' && s[1] == '=' && s[2] == '=' && s[len(s)-1] == '=' {
		if title, ok := pytestBanner(s); ok {
			t.end(p)
			t.in = title == "FAILURES" || title == "ERRORS"
			return t.in
		}
	}
	if len(s) > 6 && s[0] == '_' && s[len(s)-1] == '_' {
		if m := rePytestSection.FindStringSubmatch(s); m != nil && (t.in || hasPrefix(m[1], "ERROR collecting")) {
			t.end(p)
			t.in = true
			t.test = own(m[1])
			if hasPrefix(t.test, "ERROR collecting") || hasPrefix(t.test, "ERROR at ") {
				t.test = ""
			}
			p.ctx.pyTest = t.test
			return true
		}
	}
	if (hasPrefix(s, "FAILED ") || hasPrefix(s, "ERROR ")) && strings.Contains(s, "::") {
		rel, _, _ := strings.Cut(strings.Fields(s)[1], "::")
		p.noteRel(rel)
		return false
	}
	if !t.in || t.test == "" && !hasPrefix(s, "E ") && !strings.Contains(s, ".py:") {
		return false
	}
	if hasPrefix(s, "E ") || s == "E" {
		e := strings.TrimSpace(s[1:])
		if m := rePyFrame.FindStringSubmatch(e); m != nil && hasPrefix(e, "File ") {
			// a SyntaxError's own location, quoted by pytest
			t.synLoc = &finding{file: own(m[1]), line: atoi(m[2]), base: p.base(), tool: "pytest", test: t.test}
		}
		if len(t.elines) < 12 {
			t.elines = append(t.elines, own(e))
		} else if rePyExc.MatchString(e) {
			t.elines[len(t.elines)-1] = own(e)
		}
		return true
	}
	if s != "" && s[0] == '>' {
		t.gt = own(strings.TrimSpace(s[1:]))
		return false
	}
	m := rePytestLoc.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	f := &finding{file: m[1], line: atoi(m[2]), base: p.base(), tool: "pytest", test: t.test}
	_, res := p.res.resolve(f.file, f.base)
	if hasPrefix(m[3], "in ") {
		if res != resDrop {
			t.lastWs = f
		}
		return true
	}
	if res == resDrop {
		f = t.lastWs
	}
	if p.ctx.pyChain && res != resDrop && (hasPrefix(t.gt, "raise ") || t.gt == "raise") {
		// A wrapper raised on purpose; the cause was reported.
		t.emitted = true
		t.elines = t.elines[:0]
		return true
	}
	t.report(p, f, m[3])
	p.ctx.pyChain = false
	return true
}

func (t *pytest) report(p *parser, f *finding, exc string) {
	t.emitted = true
	if f == nil {
		return
	}
	msg := strings.Join(t.elines, "\n")
	first := msg
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	if exc == "" {
		exc = first
		if i := strings.IndexByte(exc, ':'); i > 0 {
			exc = exc[:i]
		}
	}
	if msg == "" {
		msg = exc
	}
	r := *f
	r.typ, r.row = pyExcType(exc, first), "pytest"
	if r.typ == contract.ErrSyntax || r.typ == contract.ErrIndentation {
		msg = lastMatching(t.elines, rePyExc, msg)
	}
	r.msg = msg
	r.conf = 0.85
	if exc == "AssertionError" || hasPrefix(first, "assert") {
		r.conf = 0.9
	}
	p.emit(r)
	t.elines = t.elines[:0]
}

func (t *pytest) end(p *parser) {
	if t.in && !t.emitted && len(t.elines) > 0 {
		// No "file:line: Exception" line: the exception is the last E line
		// that names one, at the last workspace frame, or, for a syntax
		// error, where the quoted SyntaxError block says.
		exc := ""
		for _, e := range t.elines {
			if m := rePyExc.FindStringSubmatch(e); m != nil {
				exc = m[1]
			}
		}
		loc := t.lastWs
		if ty := pyExcType(exc, ""); (ty == contract.ErrSyntax || ty == contract.ErrIndentation) && t.synLoc != nil {
			loc = t.synLoc
		}
		if loc != nil {
			t.report(p, loc, exc)
		}
	}
	t.test, t.lastWs, t.emitted, t.synLoc, t.gt = "", nil, false, nil, ""
	p.ctx.pyChain = false
	t.elines = t.elines[:0]
	p.ctx.pyTest = ""
}

func (t *pytest) flush(p *parser) { t.end(p) }

// lastMatching returns the last of lines that re matches, or def.
func lastMatching(lines []string, re *lazyre.Regexp, def string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if re.MatchString(lines[i]) {
			return lines[i]
		}
	}
	return def
}

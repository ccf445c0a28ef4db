package logparse

import (
	"regexp"
	"strings"

	"github.com/salve-dev/salve/contract"
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
			Doc: "Python tracebacks and SyntaxError blocks: the deepest frame inside the workspace; unittest FAIL:/ERROR: names the test"},
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
	if strings.HasPrefix(msg, "Import ") && strings.Contains(msg, "could not be resolved") {
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
	reTraceHead = regexp.MustCompile(`^\s*Traceback \(most recent call last\):\s*$`)
	rePyFrame   = regexp.MustCompile(`^\s*File "(.+?)", line (\d+)(?:, in (.+))?$`)
	rePyExc     = regexp.MustCompile(`^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Failure|Warning|Iteration|Group)|[a-z_][\w.]*\.[A-Z]\w*)(?:\[[^\]]*\])?(?:: (.*))?$`)
	reUnitHead  = regexp.MustCompile(`^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)`)
)

// pyTrace reads tracebacks: it keeps the deepest frame inside the
// workspace and reports it when the exception line arrives.
type pyTrace struct {
	active bool
	frames int
	last   *finding // the deepest workspace frame so far
	final  *finding // the last frame, for SyntaxError blocks
	test   string   // from unittest's FAIL:/ERROR: header
}

func (t *pyTrace) line(p *parser, s string) bool {
	if strings.HasPrefix(s, "FAIL: ") || strings.HasPrefix(s, "ERROR: ") {
		if m := reUnitHead.FindStringSubmatch(s); m != nil {
			t.test = m[1]
			return true
		}
	}
	if strings.Contains(s, "Traceback (") && reTraceHead.MatchString(s) {
		*t = pyTrace{active: true, test: t.test}
		return true
	}
	if m := matchIf(s, `File "`, rePyFrame); m != nil && (t.active || m[3] == "") {
		if !t.active {
			*t = pyTrace{active: true, test: t.test}
		}
		t.frames++
		f := &finding{file: m[1], line: atoi(m[2]), base: p.base(), tool: "python"}
		p.noteFrame(m[1])
		t.final = f
		if _, res := p.res.resolve(f.file, f.base); res != resDrop {
			t.last = f
		}
		return true
	}
	if !t.active {
		return false
	}
	if strings.HasPrefix(s, " ") || strings.HasPrefix(s, "\t") || strings.TrimSpace(s) == "" {
		return true
	}
	if strings.HasPrefix(s, "During handling") || strings.HasPrefix(s, "The above exception") {
		return true
	}
	m := rePyExc.FindStringSubmatch(s)
	if m == nil {
		t.active = false
		return false
	}
	t.report(p, m[1], s)
	t.active = false
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
	f := *loc
	f.typ, f.msg, f.conf, f.row = typ, msg, conf, "python-traceback"
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
	p.emit(f)
}

func (t *pyTrace) flush(p *parser) {}

var (
	rePyArgs = regexp.MustCompile(`positional argument|keyword argument|required (?:positional|keyword)|takes (?:no|\d+) arguments?|unsupported operand|not callable|not subscriptable|not iterable|must be \w+, not|can only concatenate|object cannot be interpreted`)
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
	rePytestSection = regexp.MustCompile(`^_{2,} (.+?) _{2,}$`)
	rePytestBanner  = regexp.MustCompile(`^={3,} (.+?) ={3,}$`)
	rePytestLoc     = regexp.MustCompile(`^(\S+\.py):(\d+): (.+)$`)
)

// pytest reads pytest's failure sections.
type pytest struct {
	synLoc  *finding // File "x", line N quoted in E lines
	in      bool
	test    string
	elines  []string
	lastWs  *finding
	emitted bool
}

func (t *pytest) line(p *parser, s string) bool {
	if len(s) > 6 && s[0] == '=' && s[1] == '=' && s[2] == '=' && s[len(s)-1] == '=' {
		if m := rePytestBanner.FindStringSubmatch(s); m != nil {
			t.end(p)
			t.in = m[1] == "FAILURES" || m[1] == "ERRORS"
			return t.in
		}
	}
	if len(s) > 6 && s[0] == '_' && s[len(s)-1] == '_' {
		if m := rePytestSection.FindStringSubmatch(s); m != nil && (t.in || strings.HasPrefix(m[1], "ERROR collecting")) {
			t.end(p)
			t.in = true
			t.test = m[1]
			if strings.HasPrefix(t.test, "ERROR collecting") || strings.HasPrefix(t.test, "ERROR at ") {
				t.test = ""
			}
			p.ctx.pyTest = t.test
			return true
		}
	}
	if (strings.HasPrefix(s, "FAILED ") || strings.HasPrefix(s, "ERROR ")) && strings.Contains(s, "::") {
		rel, _, _ := strings.Cut(strings.Fields(s)[1], "::")
		p.noteRel(rel)
		return false
	}
	if !t.in || t.test == "" && !strings.HasPrefix(s, "E ") && !strings.Contains(s, ".py:") {
		return false
	}
	if strings.HasPrefix(s, "E ") || s == "E" {
		e := strings.TrimSpace(s[1:])
		if m := rePyFrame.FindStringSubmatch(e); m != nil && strings.HasPrefix(e, "File ") {
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
	m := rePytestLoc.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	f := &finding{file: m[1], line: atoi(m[2]), base: p.base(), tool: "pytest", test: t.test}
	_, res := p.res.resolve(f.file, f.base)
	if strings.HasPrefix(m[3], "in ") {
		if res != resDrop {
			t.lastWs = f
		}
		return true
	}
	if res == resDrop {
		f = t.lastWs
	}
	t.report(p, f, m[3])
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
	if exc == "AssertionError" || strings.HasPrefix(first, "assert") {
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
	t.test, t.lastWs, t.emitted, t.synLoc = "", nil, false, nil
	t.elines = t.elines[:0]
	p.ctx.pyTest = ""
}

func (t *pytest) flush(p *parser) { t.end(p) }

// lastMatching returns the last of lines that re matches, or def.
func lastMatching(lines []string, re *regexp.Regexp, def string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if re.MatchString(lines[i]) {
			return lines[i]
		}
	}
	return def
}

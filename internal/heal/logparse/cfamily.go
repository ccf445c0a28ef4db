package logparse

import (
	"strconv"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

func init() {
	register(
		&Row{Name: "shellcheck-gcc", Family: "shell", Tool: "shellcheck", Hint: "[SC",
			Pattern:  `^(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|note|info|style): (?P<msg>.*) \[(?P<code>SC\d+)\]$`,
			Classify: shellcheckClassify, Confidence: 0.9,
			Doc: "shellcheck -f gcc: file:line:col: severity: message [SCnnnn]"},
		&Row{Name: "mypy", Family: "python", Tool: "mypy", Hint: ".py",
			Pattern:  `^(?P<file>[^\s:]+\.pyi?):(?P<line>\d+):(?:(?P<col>\d+):)? (?P<sev>error|note|warning): (?P<msg>.*?)(?:  \[(?P<code>[\w-]+)\])?$`,
			Classify: mypyClassify, Confidence: 0.9,
			Doc: "mypy: file.py:line[:col]: error: message  [code]"},
		&Row{Name: "gnu", Family: "c", Tool: "cc", ErrWord: true,
			Pattern:  `^(?P<file>[^\s:][^:]*?):(?P<line>\d+):(?:(?P<col>\d+):)? (?P<sev>fatal error|error|warning|note|Error|Warning)(?:\[(?P<code>[A-Z]+\d+)\])?: (?P<msg>.*)$`,
			Classify: gnuClassify, Confidence: 0.95, Generic: true,
			Doc: "gcc, g++, clang and every GNU-style tool (rustc --message-format short too): file:line:col: error: message"},
		&Row{Name: "gcc-required-from", Family: "c", Tool: "g++", Hint: "required from",
			Pattern:  `^(?P<file>[^\s:][^:]*?):(?P<line>\d+):(?:(?P<col>\d+):)?\s+required from (?:here|.*)$`,
			Classify: rememberInstantiation, Confidence: 0.85,
			Doc: "g++ template instantiation context (file:line:col:   required from here): where an error inside a system header is reported"},
		&Row{Name: "ld-undefined", Family: "c", Tool: "ld", Hint: "undefined reference",
			Pattern: `^(?:\S*ld(?:\.\w+)?: )?(?P<file>[^\s:()]+\.(?:c|cc|cpp|cxx|c\+\+|m|mm|h|hpp|f90|f|s|S)):(?P<line>\d+)(?::\(\.[\w.]+\+0x[0-9a-f]+\))?: (?P<msg>undefined reference to .*)$`,
			Type:    contract.ErrTypeError, Confidence: 0.8,
			Doc: "GNU ld with debug info: file.c:line: undefined reference to `sym'"},
		&Row{Name: "ld-undefined-nodebug", Family: "c", Tool: "ld", Hint: "undefined reference",
			Pattern:  `^(?P<file>[^\s:()]+\.(?:c|cc|cpp|cxx|c\+\+|m|mm)):\(\.[\w.]+\+0x[0-9a-f]+\): (?P<msg>undefined reference to [` + "`'" + `](?P<sym>[^'` + "`" + `]+)')$`,
			Classify: undefinedCallSite, Confidence: 0.6,
			Doc: "GNU ld without debug info (file.c:(.text+0x1e): undefined reference to `sym'): the first call of sym in the workspace's file"},
		&Row{Name: "make", Family: "make", Tool: "make", Hint: "***",
			Pattern:  `^(?:g?make(?:\[\d+\])?: )?(?P<file>\S*(?:[Mm]akefile|\.mk|\.make)\S*?):(?P<line>\d+): \*\*\* (?P<msg>.*)$`,
			Classify: makeClassify, Confidence: 0.95,
			Doc: "make's own errors: Makefile:3: *** missing separator.  Stop."},
		&Row{Name: "cmake", Family: "make", Tool: "cmake",
			Doc: "CMake Error at CMakeLists.txt:3 (command): and the message on the next lines"},
	)
	addHandler(50, func() handler { return &cmakeBlock{} })
}

// gnuClassify keeps errors and warnings promoted to errors (-Werror),
// drops plain warnings and notes, and reads rustc codes when the short
// format is used.
func gnuClassify(m *match) (contract.ErrorType, bool) {
	msg := m.get("msg")
	sev := strings.ToLower(m.get("sev"))
	if strings.Contains(msg, "[-Werror") {
		return contract.ErrLinting, true
	}
	if sev != "error" && sev != "fatal error" {
		return "", false
	}
	if here := m.p.ctx.cxxHere; here != nil {
		if _, res := m.p.res.resolve(m.get("file"), m.p.base()); res == resDrop {
			m.relocate = here // an error inside a system header, instantiated from here
		}
		m.p.ctx.cxxHere = nil
	}
	if code := m.get("code"); code != "" {
		return rustCodeType(code, msg), true
	}
	if hasSuffix(m.get("file"), ".rs") {
		return rustUncoded(msg, ""), true
	}
	return classifyMessage(msg, contract.ErrTypeError), true
}

// rememberInstantiation keeps the last "required from" location inside
// the workspace; an error that g++ then reports inside a system header is
// reported there instead (see gnuClassify). It never reports by itself.
func rememberInstantiation(m *match) (contract.ErrorType, bool) {
	file := m.get("file")
	if _, res := m.p.res.resolve(file, m.p.base()); res != resDrop {
		m.p.ctx.cxxHere = &finding{file: own(file), line: m.num("line"), col: m.num("col"), base: m.p.base()}
	}
	return "", false
}

// undefinedCallSite places a line-less undefined reference at the first
// call of the symbol in the file, read from the workspace; without a
// workspace there is no line to give, and nothing is reported.
func undefinedCallSite(m *match) (contract.ErrorType, bool) {
	sym := m.get("sym")
	if i := strings.IndexByte(sym, '('); i >= 0 {
		sym = sym[:i]
	}
	if i := strings.LastIndex(sym, "::"); i >= 0 {
		sym = sym[i+2:]
	}
	line := m.p.findCall(m.get("file"), sym)
	if line < 1 {
		return "", false
	}
	m.relocate = &finding{file: own(m.get("file")), line: line, base: m.p.base(), row: m.row.Name, conf: m.row.Confidence}
	return contract.ErrTypeError, true
}

func makeClassify(m *match) (contract.ErrorType, bool) {
	return classifyMessage(m.get("msg"), contract.ErrSyntax), true
}

func shellcheckClassify(m *match) (contract.ErrorType, bool) {
	if hasPrefix(m.get("code"), "SC1") && m.get("sev") == "error" {
		return contract.ErrSyntax, true
	}
	return contract.ErrLinting, true
}

func mypyClassify(m *match) (contract.ErrorType, bool) {
	switch m.get("sev") {
	case "note":
		return "", false
	case "warning":
		return contract.ErrLinting, true
	}
	code := m.get("code")
	switch {
	case hasPrefix(code, "import"):
		return contract.ErrImport, true
	case code == "syntax":
		return classifyMessage(m.get("msg"), contract.ErrSyntax), true
	case code == "unused-ignore", code == "unused-coroutine", code == "redundant-cast":
		return contract.ErrLinting, true
	}
	if code == "" {
		if t := classifyMessage(m.get("msg"), contract.ErrTypeError); t == contract.ErrImport || t == contract.ErrSyntax || t == contract.ErrIndentation {
			return t, true
		}
	}
	return contract.ErrTypeError, true
}

var reCMake = lazyre.New(`^CMake (Error|Warning|Deprecation Warning)(?: \(dev\))? at (\S+?):(\d+)(?: \((\w+)\))?:?$`)

// cmakeBlock reads "CMake Error at file:line (command):" and takes the
// message from the indented lines after it.
type cmakeBlock struct {
	f    *finding
	seen bool
	last string // file:line of the last error, for its cascade
}

// cmakeLeads start CMake's messages.
var cmakeLeads = leads("C")

func (c *cmakeBlock) line(p *parser, s string) bool {
	if c.f == nil && p.quiet(cmakeLeads) {
		return false
	}
	if c.f != nil {
		t := strings.TrimSpace(s)
		if t == "" && !c.seen {
			return true
		}
		if t != "" && (s[0] == ' ' || s[0] == '\t') {
			if len(c.f.msg) < 1000 {
				c.f.msg += "\n" + t
			}
			c.seen = true
			return true
		}
		c.emit(p)
	}
	if hasPrefix(s, "CMake ") {
		if m := reCMake.FindStringSubmatch(s); m != nil {
			if m[1] != "Error" {
				return true
			}
			c.f = &finding{file: m[2], line: atoi(m[3]), msg: s, rule: m[4], tool: "cmake", sev: "error", conf: 0.85, base: p.base(), row: "cmake"}
			c.seen = false
			return true
		}
	}
	return false
}

func (c *cmakeBlock) emit(p *parser) {
	f := *c.f
	c.f = nil
	place := f.file + ":" + strconv.Itoa(f.line)
	if place == c.last && strings.Contains(f.msg, "No SOURCES given to target") {
		return // the cascade of the target's sources that could not be found, just reported
	}
	c.last = place
	f.typ = classifyMessage(f.msg, contract.ErrTypeError)
	if strings.Contains(f.msg, "Parse error") {
		f.typ = contract.ErrSyntax
	}
	if f.rule == "find_package" || f.rule == "include" || f.rule == "add_subdirectory" {
		f.typ = contract.ErrImport
	}
	p.emit(f)
}

func (c *cmakeBlock) flush(p *parser) {
	if c.f != nil {
		c.emit(p)
	}
}

package logparse

import (
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

// PHP: php -l and the interpreter's errors ("PHP Parse error: ... in F on
// line N"), uncaught exceptions with their stack traces, and PHPUnit.

const phpExt = `(?:php|phtml|inc|module|phpt)`

func init() {
	register(
		&Row{Name: "php-error", Family: "php", Tool: "php", Pre: phpErrorStart,
			Pattern:  `^(?:PHP )?(?P<sev>Parse error|Fatal error|Recoverable fatal error|Catchable fatal error|Compile error|Core error):\s+(?P<msg>.*) in (?P<file>\S+?\.` + phpExt + `)(?: on line[ ](?P<line>\d+)|:(?P<line2>\d+))$`,
			Classify: phpClassify, Confidence: 0.95,
			Doc: "php -l and PHP's own errors: PHP Parse error:  message in file.php on line N (Fatal error too; warnings and notices do not fail)"},
		&Row{Name: "php-uncaught", Family: "php", Tool: "php",
			Doc: "PHP Fatal error:  Uncaught Class: message in file.php:N, Stack trace: #0 file.php(N): ..., thrown in: the deepest workspace frame"},
		&Row{Name: "phpunit", Family: "php", Tool: "phpunit",
			Doc: "PHPUnit: There was 1 failure: / error:, N) Class::test, the message, then file.php:N frames (the deepest workspace frame)"},
	)
	addHandler(36, func() handler { return &phpTrace{} })
}

// phpErrorStart is a cheap test for the start of PHP's error lines.
func phpErrorStart(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case 'P', 'F', 'R', 'C':
		return hasPrefix(s, "PHP ") || strings.Contains(s[:min(len(s), 40)], "error:")
	}
	return false
}

func phpClassify(m *match) (contract.ErrorType, bool) {
	if m.get("line") == "" {
		m.set("line", m.get("line2"))
	}
	if hasPrefix(m.get("sev"), "Parse") {
		return classifyMessage(m.get("msg"), contract.ErrSyntax), true
	}
	return phpMsgType("", m.get("msg")), true
}

var (
	rePHPUncaught = lazyre.New(`^(?:PHP )?Fatal error:\s+Uncaught ([\w\\]+)(?::\s*(.*?))? in (\S+?):(\d+)$`)
	rePHPFrame    = lazyre.New(`^#\d+ (\S+?)\((\d+)\): `)
	rePHPThrown   = lazyre.New(`^\s*thrown in \S+ on line \d+$`)
	rePHPUnitSec  = lazyre.New(`^There (?:was|were) \d+ (failure|error|warning|risky test|incomplete test|skipped test|deprecation|notice)s?:$`)
	rePHPUnitTest = lazyre.New(`^\d+\) (\S+::\S+?)(?: with data set .*)?$`)
	rePHPUnitLoc  = lazyre.New(`^(\S+?\.` + phpExt + `):(\d+)$`)
	rePHPExcClass = lazyre.New(`^([A-Z][\w\\]*(?:Error|Exception)): (.*)$`)
)

// phpTrace reads an uncaught exception's stack trace and PHPUnit's
// failure sections.
type phpTrace struct {
	mode   string // "", "uncaught", "unit"
	kind   string // the PHPUnit section: failure or error
	test   string
	exc    string
	msg    string
	found  *finding
	frames int
	n      int
}

// phpLeads start the lines phpTrace reads between blocks: PHPUnit's
// "There was", and PHP's uncaught errors.
var phpLeads = leads("TPF")

func (t *phpTrace) line(p *parser, s string) bool {
	if t.mode == "" && p.quiet(phpLeads) {
		return false
	}
	switch t.mode {
	case "uncaught":
		t.n++
		if m := rePHPFrame.FindStringSubmatch(s); m != nil {
			t.frame(p, m[1], m[2])
			return true
		}
		if s == "Stack trace:" || hasPrefix(s, "#") && hasSuffix(s, "{main}") {
			return true
		}
		if rePHPThrown.MatchString(s) {
			t.end(p)
			return true
		}
		if t.n > 200 || !hasPrefix(s, "#") {
			t.end(p)
		}
	case "unit":
		if t.test != "" {
			t.n++
			tr := strings.TrimSpace(s)
			if m := rePHPUnitLoc.FindStringSubmatch(tr); m != nil {
				t.frame(p, m[1], m[2])
				return true
			}
			if tr == "" && t.frames > 0 || tr == "--" || t.n > 300 || t.frames == 0 && t.n > 60 {
				t.end(p)
				if tr == "--" || tr == "" {
					return true
				}
			} else if tr != "" && t.frames == 0 {
				if t.msg == "" {
					t.msg = own(tr)
					if m := rePHPExcClass.FindStringSubmatch(tr); m != nil {
						t.exc = own(m[1])
					}
				} else if len(t.msg) < 600 {
					t.msg += "\n" + own(tr)
				}
				return true
			} else if tr == "" {
				return true
			}
		}
		if m := rePHPUnitTest.FindStringSubmatch(s); m != nil {
			t.end(p)
			t.test, t.n = own(m[1]), 0
			return true
		}
		if m := rePHPUnitSec.FindStringSubmatch(s); m != nil {
			t.end(p)
			t.kind = m[1]
			return true
		}
		if s == "FAILURES!" || s == "ERRORS!" || hasPrefix(s, "Tests: ") || hasPrefix(s, "OK (") {
			t.end(p)
			t.mode = ""
			return false
		}
		return t.test != "" || isBlank(s)
	}
	if len(s) < 10 {
		return false
	}
	if hasPrefix(s, "There w") {
		if m := rePHPUnitSec.FindStringSubmatch(s); m != nil {
			*t = phpTrace{mode: "unit", kind: m[1]}
			return true
		}
	}
	if (s[0] == 'P' || s[0] == 'F') && strings.Contains(s, "Uncaught ") {
		if m := rePHPUncaught.FindStringSubmatch(s); m != nil {
			*t = phpTrace{mode: "uncaught", exc: own(m[1]), msg: own(strings.TrimSpace(s[strings.Index(s, "Uncaught "):]))}
			t.frame(p, m[3], m[4])
			return true
		}
	}
	return false
}

// frame keeps the first workspace frame: PHP and PHPUnit print the
// deepest first.
func (t *phpTrace) frame(p *parser, file, line string) {
	t.frames++
	if t.found != nil {
		return
	}
	if _, res := p.res.resolve(file, p.base()); res == resDrop || strings.Contains(file, "/vendor/") {
		return
	}
	p.noteFrame(file)
	t.found = &finding{file: own(file), line: atoi(line), base: own(p.base()), tool: "php", conf: 0.75, row: "php-uncaught"}
}

func (t *phpTrace) end(p *parser) {
	f := t.found
	mode, kind := t.mode, t.kind
	test, exc, msg := t.test, t.exc, t.msg
	t.found, t.test, t.exc, t.msg, t.frames, t.n = nil, "", "", "", 0, 0
	if mode == "uncaught" {
		t.mode = ""
	}
	if f == nil {
		return
	}
	f.msg, f.test = msg, test
	f.typ = phpMsgType(exc, msg)
	if mode == "unit" {
		f.tool, f.row, f.conf = "phpunit", "phpunit", 0.85
		if kind == "failure" {
			f.typ, f.conf = contract.ErrLogic, 0.9
		}
	}
	p.emit(*f)
}

func (t *phpTrace) flush(p *parser) { t.end(p) }

var rePHPTypeMsg = lazyre.New(`Unsupported operand types|must be of type|Argument #\d+|Too few arguments|Cannot assign \S+ to property|on (?:string|int|float|bool|array)\b|Call to undefined|Call to (?:private|protected) method|Undefined constant|Class "[^"]+" not found|Interface "[^"]+" not found|Cannot redeclare|Cannot instantiate|not found in`)

// phpMsgType maps a PHP error to an error type: a failed require is
// IMPORT, what a compiler would have caught (undefined functions,
// methods and classes, wrong argument types and counts) is TYPE_ERROR,
// the rest LOGIC.
func phpMsgType(exc, msg string) contract.ErrorType {
	name := exc[strings.LastIndexByte(exc, '\\')+1:]
	switch {
	case name == "ParseError" || hasPrefix(msg, "syntax error"):
		return contract.ErrSyntax
	case strings.Contains(msg, "Failed opening required") || strings.Contains(msg, "Failed to open stream") && strings.Contains(msg, "require"):
		return contract.ErrImport
	case strings.Contains(msg, " on null") || strings.Contains(msg, "null given"):
		return contract.ErrLogic
	case name == "ArgumentCountError" || rePHPTypeMsg.MatchString(msg):
		return contract.ErrTypeError
	}
	return contract.ErrLogic
}

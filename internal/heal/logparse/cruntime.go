package logparse

import (
	"strconv"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

// C and C++ at run time: assert(), the sanitizers, the test frameworks'
// own failure lines, and ctest wrapping the test binaries.

func init() {
	register(
		&Row{Name: "c-assert", Family: "c", Tool: "assert", Hint: "Assertion",
			Pattern:  `^(?:\S+: )?(?P<file>[^\s:][^:]*?):(?P<line>\d+): (?P<func>.+?): Assertion [` + "`'" + `](?P<msg>.*)' failed\.?$`,
			Classify: cRuntime, Confidence: 0.9,
			Doc: "glibc assert(): prog: file.c:line: function: Assertion `expr' failed."},
		&Row{Name: "c-assert-portable", Family: "c", Tool: "assert", Pre: func(s string) bool { return hasPrefix(s, "Assertion failed: ") },
			Pattern:  `^Assertion failed: (?P<msg>.+?)(?: \((?P<file>[^\s:()]+): [^:()]+: (?P<line>\d+)\)|, file (?P<file2>.+?), line (?P<line2>\d+))$`,
			Classify: cAssertPortable, Confidence: 0.9,
			Doc: "musl assert() (Assertion failed: expr (file.c: func: line)) and the MSVC runtime's (Assertion failed: expr, file F, line N)"},
		&Row{Name: "ubsan", Family: "c", Tool: "ubsan", Hint: "runtime error: ", ErrWord: true,
			Pattern:  `^(?P<file>[^\s:][^:]*?):(?P<line>\d+):(?:(?P<col>\d+):)? runtime error: (?P<msg>.*)$`,
			Classify: cRuntime, Confidence: 0.9,
			Doc: "UndefinedBehaviorSanitizer (gcc, clang): file.c:line:col: runtime error: message"},
		&Row{Name: "gtest", Family: "c", Tool: "googletest", Pre: func(s string) bool {
			return cSourceLoc(s) && (strings.Contains(s, ": Failure") || strings.Contains(s, "): error: "))
		},
			Pattern:  `^(?P<file>[^\s:(][^:(]*?\.(?:c|cc|cpp|cxx|c\+\+|h|hpp|hh|hxx|ipp|m|mm))(?::(?P<line>\d+):|\((?P<line2>\d+)\): error:) (?P<msg>Failure|Expected.*|Value of.*|Actual.*)$`,
			Classify: cTestFailure, Confidence: 0.9,
			Doc: "GoogleTest assertions: file.cc:line: Failure (file.cc(line): error: ... on Windows), named by [ RUN ] Suite.Test"},
		&Row{Name: "catch2", Family: "c", Tool: "catch2", Pre: func(s string) bool { return strings.Contains(s, ": FAILED:") && cSourceLoc(s) },
			Pattern:  `^(?P<file>[^\s:(][^:(]*?\.(?:c|cc|cpp|cxx|c\+\+|h|hpp|hh|hxx|ipp|m|mm))(?::(?P<line>\d+)|\((?P<line2>\d+)\)): (?P<msg>FAILED:.*)$`,
			Classify: cTestFailure, Confidence: 0.9,
			Doc: "Catch2: file.cpp:line: FAILED: and the expression on the next lines"},
		&Row{Name: "c-test-line", Family: "c", Tool: "unity", Pre: cTestShape,
			Pattern:  `^(?P<file>[^\s:][^:]*?\.(?:c|cc|cpp|cxx|c\+\+|h|hpp|hh|hxx|m|mm)):(?P<line>\d+):(?:(?P<test>\w+):(?P<sev>FAIL|ERROR):?| (?P<sev2>FAIL|FAILED|ERROR)\b:?|(?P<sev3>F|E):[^:]*:(?P<test2>\w+):-?\d+:) ?(?P<msg>.*)$`,
			Classify: cTestLine, Confidence: 0.9,
			Doc: "C test frameworks' failure lines: Unity (file.c:line:test:FAIL: msg), Check (file.c:line:F:tcase:test:0: msg), and a test binary's own file.c:line: FAIL: message; under ctest (and its -V output), named by the failed test"},
		&Row{Name: "sanitizer", Family: "c", Tool: "asan",
			Doc: "AddressSanitizer, LeakSanitizer, ThreadSanitizer and MemorySanitizer reports: the first workspace frame of the faulting stack (each direct leak, both racing accesses)"},
	)
	addHandler(45, func() handler { return &sanitizer{} })
	addHandler(46, func() handler { return &cTestDriver{} })
}

// cSourceLoc is a cheap test for a line that starts with a C or C++
// source file's location: "file.c:12" or "file.cpp(12)".
func cSourceLoc(s string) bool {
	end := strings.IndexAny(s, ":(")
	if end < 2 || strings.IndexByte(s[:end], ' ') >= 0 {
		return false
	}
	dot := strings.LastIndexByte(s[:end], '.')
	if dot < 0 {
		return false
	}
	switch s[dot+1 : end] {
	case "c", "cc", "cpp", "cxx", "c++", "h", "hpp", "hh", "hxx", "ipp", "m", "mm":
		return end+1 < len(s) && isDigit(s[end+1])
	}
	return false
}

// cTestShape is a cheap test for a C test framework's failure line.
func cTestShape(s string) bool {
	return cSourceLoc(s) && (strings.Contains(s, "FAIL") || strings.Contains(s, "ERROR") || strings.Contains(s, ":F:") || strings.Contains(s, ":E:"))
}

// cRuntime is a run-time failure in C or C++: LOGIC, named by the running
// test when a test driver says which.
func cRuntime(m *match) (contract.ErrorType, bool) {
	return contract.ErrLogic, true
}

func cAssertPortable(m *match) (contract.ErrorType, bool) {
	if m.get("file") == "" {
		m.set("file", m.get("file2"))
		m.set("line", m.get("line2"))
	}
	return contract.ErrLogic, true
}

func cTestFailure(m *match) (contract.ErrorType, bool) {
	if m.get("line") == "" {
		m.set("line", m.get("line2"))
	}
	return contract.ErrLogic, true
}

// cTestLine reads a C test framework's failure line; the bare form
// ("file.c:12: FAIL: ...") names the failure in capitals, as test
// harnesses print it.
func cTestLine(m *match) (contract.ErrorType, bool) {
	if m.get("test") == "" {
		m.set("test", m.get("test2"))
	}
	return contract.ErrLogic, true
}

var (
	reSanHead = lazyre.New(`^(?:==\d+==)?(ERROR|WARNING): (AddressSanitizer|LeakSanitizer|ThreadSanitizer|MemorySanitizer|HWAddressSanitizer): (.*)$`)

	reSanLeak = lazyre.New(`^(Direct|Indirect) leak of `)
)

// sanitizer reads a sanitizer report from its ERROR (or WARNING) line to
// its SUMMARY. ASan and MSan report the first workspace frame of the
// faulting stack (the first stack printed); LSan the first workspace frame
// of each direct leak (indirect leaks only when there is no direct one);
// TSan the first workspace frame of each of the two racing accesses.
type sanitizer struct {
	kind     string // "" when not inside a report
	lines    int    // lines read in the report
	msg      string
	stack    int  // stacks seen (a "#0" frame starts one)
	took     bool // the current stack gave its frame
	leak     string
	direct   bool // a direct leak was reported
	indirect []finding
	found    []finding
}

// sanitizerLeads start a sanitizer's report: ==pid==, WARNING: or ERROR:.
var sanitizerLeads = leads("=WE")

func (z *sanitizer) line(p *parser, s string) bool {
	if z.kind == "" && p.quiet(sanitizerLeads) {
		return false
	}
	if z.kind == "" {
		if (hasPrefix(s, "==") || hasPrefix(s, "WARNING: ") || hasPrefix(s, "ERROR: ")) && strings.Contains(s, "Sanitizer: ") {
			if m := reSanHead.FindStringSubmatch(s); m != nil {
				*z = sanitizer{kind: m[2], msg: own(m[2] + ": " + m[3])}
				return true
			}
		}
		return false
	}
	t := strings.TrimSpace(s)
	if z.lines++; z.lines > 1000 {
		z.end(p) // a report cut short: give the log back to the other readers
		return false
	}
	switch {
	case hasPrefix(t, "SUMMARY: "):
		z.end(p)
		return true
	case hasPrefix(t, "==") && hasSuffix(t, "==ABORTING"):
		z.end(p)
		return true
	case hasPrefix(t, "#"):
		m := sanFrame(t)
		if m == nil {
			return true
		}
		if m[1] == "0" {
			z.stack++
			z.took = false
		}
		if z.took {
			return true
		}
		f := finding{file: own(m[3]), line: atoi(m[4]), col: atoi(m[5]), typ: contract.ErrLogic, msg: z.msg,
			tool: sanTool(z.kind), conf: 0.8, base: p.base(), row: "sanitizer", test: p.ctx.cTest}
		if _, res := p.res.resolve(f.file, f.base); res == resDrop {
			return true
		}
		p.noteFrame(f.file)
		z.took = true
		switch z.kind {
		case "LeakSanitizer":
			if z.leak == "Direct" {
				z.direct = true
				z.add(f)
			} else if len(z.indirect) < 16 {
				z.indirect = append(z.indirect, f)
			}
		case "ThreadSanitizer":
			if z.stack <= 2 {
				z.add(f)
			}
		default:
			if z.stack == 1 || len(z.found) == 0 {
				z.add(f)
			}
		}
		return true
	case reSanLeak.MatchString(t):
		z.leak = t[:strings.IndexByte(t, ' ')]
		z.msg = own("LeakSanitizer: " + strings.TrimSuffix(t, ":"))
		return true
	}
	if z.kind == "ThreadSanitizer" && hasPrefix(t, "==================") && len(z.found) > 0 {
		z.end(p)
		return true
	}
	return true
}

// sanFrame reads a sanitizer stack frame, "#1 0x55d4 in main /src/main.c:12:3"
// or TSan's "#0 incr /w/counter.c:5 (app+0x1234)", without a regular
// expression: the location is the last field of the form file:line[:col].
// It returns the frame's number, function, file, line and column.
func sanFrame(t string) []string {
	sp := strings.IndexByte(t, ' ')
	if sp < 2 || !allDigits(t[1:sp]) {
		return nil
	}
	fields := strings.Fields(t[sp+1:])
	for i := len(fields) - 1; i >= 1; i-- {
		file, line := splitLoc(fields[i])
		if line == 0 || file == "" {
			continue
		}
		col := ""
		if j := strings.LastIndexByte(fields[i], ':'); j > 0 {
			if k := strings.LastIndexByte(fields[i][:j], ':'); k > 0 && allDigits(fields[i][k+1:j]) {
				col = fields[i][j+1:]
			}
		}
		return []string{t, t[1:sp], strings.Join(fields[:i], " "), file, strconv.Itoa(line), col}
	}
	return nil
}

func (z *sanitizer) add(f finding) {
	if len(z.found) < 64 {
		f.msg = own(f.msg)
		z.found = append(z.found, f)
	}
}

func sanTool(kind string) string {
	switch kind {
	case "LeakSanitizer":
		return "lsan"
	case "ThreadSanitizer":
		return "tsan"
	case "MemorySanitizer":
		return "msan"
	}
	return "asan"
}

func (z *sanitizer) end(p *parser) {
	found := z.found
	if z.kind == "LeakSanitizer" && !z.direct {
		found = append(found, z.indirect...)
	}
	for _, f := range found {
		p.emit(f)
	}
	*z = sanitizer{}
}

func (z *sanitizer) flush(p *parser) {
	if z.kind != "" {
		z.end(p)
	}
}

var (
	reCTestResult = lazyre.New(`^\s*\d+/\d+ Test\s+#\d+: (\S+) \.*\s*(.*?)(?:\s+[\d.]+ sec)?$`)
	reCTestVerb   = lazyre.New(`^(\d+): (.*)$`)
	reGTestRun    = lazyre.New(`^\[ RUN      \] (\S+)$`)
)

// cTestDriver follows ctest and GoogleTest: which test's output is being
// read (p.ctx.cTest), so that the test binary's own lines name it. ctest
// prints a test's output after its result line (--output-on-failure); with
// -V it prefixes every output line with the test's number.
type cTestDriver struct {
	catch   int // Catch2's test case header; see line
	verbose bool
	names   map[string]string // ctest -V: test number -> name
	inner   bool
}

// cTestLeads start the lines cTestDriver reads unless a Catch2 test
// case's name is due: rules, GoogleTest's [ tags, banners, ctest's Test
// project, Start, test and numbered lines.
var cTestLeads = leads("-[=TtS0123456789")

func (c *cTestDriver) line(p *parser, s string) bool {
	if c.catch != 1 && p.quiet(cTestLeads) {
		return false
	}
	if c.inner || len(s) < 4 {
		return false
	}
	switch s[0] {
	case '-', '[', ' ', '=', 'T', 't':
	default:
		if !isDigit(s[0]) && c.catch != 1 {
			return false // the cheap way out for most lines
		}
	}
	t := s
	if s[0] == ' ' {
		t = strings.TrimLeft(s, " ")
		if !hasPrefix(t, "Start ") && (t == "" || !isDigit(t[0])) {
			return false
		}
	}
	if s[0] == '-' && hasPrefix(s, "-----------------------------------") && strings.Trim(s, "-") == "" {
		// Catch2 frames a failed test case's name between two rules:
		// 1 after the opening rule, 3 once the name is read, 2 in the body.
		if c.catch == 3 {
			c.catch = 2
		} else {
			c.catch = 1
		}
		return false
	}
	if c.catch == 1 {
		c.catch = 3
		if f, l := splitLoc(s); l == 0 || strings.ContainsAny(f, " ") {
			p.ctx.cTest = own(strings.TrimSpace(s))
		}
	}
	if c.catch != 0 && s[0] == '=' && hasPrefix(s, "=====") {
		p.ctx.cTest, c.catch = "", 0
	}
	switch {
	case hasPrefix(s, "[ RUN      ] "):
		if m := reGTestRun.FindStringSubmatch(s); m != nil {
			p.ctx.cTest = own(m[1])
		}
		return true
	case hasPrefix(s, "[       OK ] ") || hasPrefix(s, "[  FAILED  ] ") && strings.Contains(s, " ms)"):
		p.ctx.cTest = ""
		return true
	case hasPrefix(t, "Start ") && strings.Contains(t, ": "):
		num, name, _ := strings.Cut(t[len("Start "):], ": ")
		if c.names == nil {
			c.names = map[string]string{}
		}
		if len(c.names) < 1024 && allDigits(num) {
			c.names[own(num)] = own(strings.TrimSpace(name))
		}
		p.ctx.cTest = ""
		return true
	case t != "" && isDigit(t[0]) && strings.Contains(s, " Test #"):
		if m := reCTestResult.FindStringSubmatch(s); m != nil {
			if strings.Contains(m[2], "Passed") {
				p.ctx.cTest = ""
			} else {
				p.ctx.cTest = own(m[1])
			}
			return true
		}
	case hasPrefix(s, "Test project "):
		p.ctx.cTest = ""
		return true
	}
	if isDigit(s[0]) && (c.verbose || strings.Contains(s, ": Test command: ")) {
		m := reCTestVerb.FindStringSubmatch(s)
		if m == nil {
			return false
		}
		if hasPrefix(m[2], "Test command: ") {
			c.verbose = true
		}
		if !c.verbose {
			return false
		}
		if hasPrefix(m[2], "Test timeout computed") || hasPrefix(m[2], "Test command: ") ||
			hasPrefix(m[2], "Working Directory: ") || hasPrefix(m[2], "Environment variables:") {
			return true
		}
		if name, ok := c.names[m[1]]; ok {
			p.ctx.cTest = name
		}
		c.inner = true
		p.process(m[2])
		c.inner = false
		return true
	}
	if hasPrefix(s, "test ") && c.verbose {
		// ctest -V: "test 1" then "    Start 1: name"
		return true
	}
	return false
}

func (c *cTestDriver) flush(p *parser) {}

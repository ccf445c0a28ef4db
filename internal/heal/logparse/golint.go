package logparse

import (
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

// goDiagPattern is a Go tool's one-line diagnostic: file.go:line:col: message.
const goDiagPattern = `^(?P<file>[^\s:]+\.go):(?P<line>\d+):(?P<col>\d+): (?P<msg>.+)$`

// goLintRows are the rows of Go's checkers: go vet's analyzers (alone or
// inside go test), the test loader's signature check, staticcheck and
// golangci-lint. golang.go registers them before go-build, which reads the
// same shape and would otherwise take their lines.
func goLintRows() []*Row {
	return []*Row{
		{Name: "go-vet", Family: "go", Tool: "go vet", Pattern: goDiagPattern, Pre: isVetLine,
			Classify: vetClassify, Confidence: 0.9,
			Doc: "go vet's analyzers (also run by go test): file.go:line:col: message, the analyzer read from the message's wording (printf, tests, copylocks, structtag, ...)"},
		{Name: "go-test-signature", Family: "go", Tool: "go test", Hint: "wrong signature for ",
			Pattern:    `^(?P<file>[^\s:]+\.go):(?P<line>\d+):(?P<col>\d+): (?P<msg>wrong signature for \S+, .+)$`,
			Classify:   func(m *match) (contract.ErrorType, bool) { m.rule = "tests"; return contract.ErrLinting, true },
			Confidence: 0.9,
			Doc:        "go test's loader: file_test.go:line:col: wrong signature for TestX, must be: func TestX(t *testing.T)"},
		{Name: "staticcheck", Family: "go", Tool: "staticcheck", Pattern: goDiagPattern,
			Pre:      func(s string) bool { return hasSuffix(s, ")") && reStaticcheckCode.MatchString(s) },
			Classify: goLinterClassify(reStaticcheckCode), Confidence: 0.9,
			Doc: "staticcheck: file.go:line:col: message (SA1000), the check's code as the rule"},
		{Name: "golangci-lint", Family: "go", Tool: "golangci-lint", Pattern: goDiagPattern,
			Pre:      goLintTagged,
			Classify: goLinterClassify(reGolangciLinter), Confidence: 0.9,
			Doc: "golangci-lint's text output: file.go:line:col: message (linter), the linter as the rule"},
	}
}

var (
	reStaticcheckCode = lazyre.New(`\.go:\d+:\d+: .* \(((?:SA|S|ST|QF)\d{4}|U1000)\)$`)
	reGolangciLinter  = lazyre.New(`\.go:\d+:\d+: .* \(([a-z][a-z0-9]+)\)$`)
)

// goLinterClassify takes the rule from the line's trailing tag; a message
// that names a missing or unused import stays IMPORT.
func goLinterClassify(re *lazyre.Regexp) func(m *match) (contract.ErrorType, bool) {
	return func(m *match) (contract.ErrorType, bool) {
		if g := re.FindStringSubmatch(m.line); g != nil {
			m.rule = g[1]
		}
		if t := classifyMessage(m.get("msg"), contract.ErrLinting); t == contract.ErrImport {
			return t, true
		}
		return contract.ErrLinting, true
	}
}

// vetAnalyzer is one analyzer of go vet's default set, recognised by the
// wording of its messages (x/tools' go/analysis/passes): plain lower-case
// phrases, then a regular expression over the message.
type vetAnalyzer struct {
	name  string
	words []string
	re    *lazyre.Regexp
}

// vetAnalyzers are the analyzers of go vet's default set, in the order
// they are tried; an analyzer may take more than one row.
var vetAnalyzers = []vetAnalyzer{
	{name: "printf", words: []string{" format %", "call has arguments but no formatting directives", "possible printf formatting directive",
		"arg list ends with redundant newline", "does not support error-wrapping directive", "non-constant format string in call to",
		"in args forwarded to", "does not take io.writer but has first arg", "is a func value, not called"},
		re: lazyre.New(` call needs \d+ args? but has \d+ args?$`)},
	// printf's other wording, in a row of its own: apart, each expression
	// starts with a word the search finds at once.
	{name: "printf", re: lazyre.New(`arg \S+ causes recursive call to \S+ method$`)},
	{name: "tests", words: []string{"has malformed name: first letter after", "refers to unknown identifier: ", "refers to unknown field or method: ",
		"has malformed example suffix: ", "fuzz target", "(*testing.f).add", "argument to fuzz must be a function"},
		re: lazyre.New(`^\w+ (?:should be niladic|should return nothing|should not have type params)$`)},
	{name: "copylocks", words: []string{"passes lock by value: ", "copies lock value", " copies lock: "}},
	{name: "structtag", words: []string{"struct field tag "}, re: lazyre.New(`^struct field \S+ (?:has \S+ tag but is not exported|repeats \S+ tag )`)},
	{name: "unusedresult", re: lazyre.New(`^result of \S+ call not used$`)},
	{name: "assign", re: lazyre.New(`^self-assignment of `)},
	{name: "atomic", words: []string{"direct assignment to atomic value"}},
	{name: "bools", re: lazyre.New(`^(?:redundant|suspect) (?:or|and): `)},
	{name: "buildtag", words: []string{"//go:build", "+build", "build constraint"}},
	{name: "composites", words: []string{"struct literal uses unkeyed fields"}},
	{name: "errorsas", words: []string{"second argument to errors.as must be"}},
	{name: "httpresponse", re: lazyre.New(`^using \S+ before checking for errors$`)},
	{name: "ifaceassert", words: []string{"impossible type assertion: no type can implement both"}},
	{name: "loopclosure", words: []string{"captured by func literal"}},
	{name: "lostcancel", words: []string{"is not used on all paths (possible context leak)", "may be reached without using the "}},
	{name: "nilfunc", re: lazyre.New(`^comparison of function \S+ [=!]= nil is always (?:true|false)$`)},
	{name: "shift", words: []string{"too small for shift of"}},
	{name: "stdmethods", re: lazyre.New(`^method \S+ should have signature `)},
	{name: "stringintconv", words: []string{"yields a string of one rune, not a string of digits"}},
	{name: "unmarshal", re: lazyre.New(`^call of \S+ passes non-pointer`)},
	{name: "unreachable", re: lazyre.New(`^unreachable code$`)},
	{name: "unsafeptr", re: lazyre.New(`^possible misuse of (?:unsafe\.Pointer|reflect\.\w+)$`)},
	{name: "directive", words: []string{"directive only valid"}, re: lazyre.New(`^invalid space .* in //go:\w+ directive$`)},
	{name: "slog", words: []string{"should be a string or a slog.attr", "should probably be a string or a slog.attr", "has a missing or misplaced value"},
		re: lazyre.New(`^call to \S+ missing a final value$`)},
	{name: "timeformat", words: []string{"2006-02-01 should be 2006-01-02"}},
	{name: "defers", words: []string{"call to time.since is not deferred"}},
	{name: "appends", re: lazyre.New(`^append with no values$`)},
	{name: "waitgroup", words: []string{"waitgroup.add called from inside new goroutine"}},
	{name: "testinggoroutine", words: []string{"from a non-test goroutine", "defined outside of the subtest"}},
	{name: "hostport", words: []string{"does not work with ipv6"}},
	{name: "sigchanyzer", words: []string{"misuse of unbuffered os.signal channel"}},
	{name: "stdversion", re: lazyre.New(`requires go1\.\d+(?:\.\d+)? or later \(`)},
	{name: "cgocall", words: []string{"possibly passing go type with embedded pointer to c"}},
}

// VetAnalyzer returns the go vet analyzer whose wording msg has, or "".
func VetAnalyzer(msg string) string {
	low := strings.ToLower(msg)
	for _, a := range vetAnalyzers {
		for _, w := range a.words {
			if strings.Contains(low, w) {
				return a.name
			}
		}
		if a.re != nil && a.re.MatchString(msg) {
			return a.name
		}
	}
	return ""
}

// isVetLine is the go-vet row's prefilter: a Go diagnostic (not vet's
// echo of a type error, "vet: file.go:...", nor a linter's tagged line)
// whose message is an analyzer's.
func isVetLine(s string) bool {
	if !strings.Contains(s, ".go:") || hasPrefix(s, "vet: ") {
		return false
	}
	if goLintTagged(s) {
		return false
	}
	msg, ok := goDiagMessage(s)
	return ok && VetAnalyzer(msg) != ""
}

// goDiagMessage cuts the message out of "file.go:line:col: message".
func goDiagMessage(s string) (string, bool) {
	i := strings.Index(s, ".go:")
	if i < 0 {
		return "", false
	}
	rest := s[i+4:]
	for k := 0; k < 2; k++ {
		j := strings.IndexByte(rest, ':')
		if j <= 0 || atoi(rest[:j]) == 0 && rest[:j] != "0" {
			return "", false
		}
		rest = rest[j+1:]
	}
	return strings.TrimPrefix(rest, " "), true
}

func vetClassify(m *match) (contract.ErrorType, bool) {
	m.rule = VetAnalyzer(m.get("msg"))
	return contract.ErrLinting, true
}

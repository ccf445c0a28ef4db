package rules

import (
	"context"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// VetAnalyzer is one analyzer of go vet that go test runs, and what the
// deterministic tiers do with its findings.
type VetAnalyzer struct {
	// Name is the analyzer's name, as `go help test` lists it.
	Name string
	// Fix names the tier and row that fix its findings ("rules
	// go-vet-printf", "suggest go vet"), "" when none does.
	Fix string
	// Why says what is fixed, or why a finding is left to a person or
	// the llm tier: its message does not determine the fix.
	Why string
}

// VetInGoTest is every analyzer go test runs on a package and its tests
// ("a high-confidence subset of the default go vet checks", `go help
// test`), with the tier that fixes its findings or the reason none does.
// A test holds it to the list the machine's `go help test` prints.
var VetInGoTest = []VetAnalyzer{
	{Name: "atomic", Fix: "rules go-vet-atomic",
		Why: "`x = atomic.AddInt64(&x, 1)`: the assignment is dropped, the atomic call kept; it already stored the value the assignment wrote"},
	{Name: "bool", Why: "a suspect `x != a || x != b` is a logic slip whose intended operator the message does not give; a redundant `e || e` is harmless to drop but rare, and left with it to the llm tier"},
	{Name: "buildtags", Why: "a misplaced or malformed build constraint: which files the author meant to build is not in the message"},
	{Name: "directive", Why: "a misplaced or unknown //go:debug directive: where it belongs, or whether it is a typo, is the author's choice"},
	{Name: "errorsas", Why: "the second argument of errors.As must be a pointer to an error type or interface: which target variable was meant is not in the message"},
	{Name: "ifaceassert", Why: "an impossible interface assertion is a logic error: the type meant is not in the message"},
	{Name: "nilfunc", Why: "`f == nil` on a function is always false: whether a call `f()` or another value was meant is not in the message"},
	{Name: "printf", Fix: "rules go-vet-printf; suggest go vet",
		Why: "a verb of the wrong type, a redundant newline, a directive in a Print call (rules); a non-constant format gets vet's own `\"%s\"` (suggest). An argument-count finding does not say which argument is missing or extra"},
	{Name: "stringintconv", Fix: "suggest go vet",
		Why: "vet's suggested fix: `string(rune(x))`, which keeps what the conversion did"},
	{Name: "tests", Fix: "rules go-test-signature; history",
		Why: "a wrong test signature (rules); an example named after a renamed identifier (history, from the breaking commit's rename). A malformed test name is a rename the message does not give"},
}

// reVetAtomic is the atomic analyzer's finding.
var reVetAtomic = lazyre.New(`^direct assignment to atomic value$`)

// reAtomicAssign is `x = atomic.AddT(&x, ` at the start of the text
// it is matched on: the assigned operand (group 1) named again as the
// call's first argument (group 3).
var reAtomicAssign = lazyre.New(`^([\w.\[\]]+)\s*=\s*(atomic\.Add\w+\(\s*&\s*([\w.\[\]]+)\s*,)`)

// fixGoVetAtomic drops the assignment of go vet's "direct assignment to
// atomic value", at the reported column (vet's position of the assigned
// operand), else at the line's first non-blank: `x = atomic.AddInt64(&x,
// 1)` becomes `atomic.AddInt64(&x, 1)`. The add already stored the value
// the assignment wrote, so only the racy store goes.
func fixGoVetAtomic(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	ls := splitContent(in.content)
	var reasons []string
	for _, r := range in.reports {
		if !reVetAtomic.MatchString(strings.TrimSpace(r.Message)) || r.LineNumber < 1 || r.LineNumber > len(ls.l) {
			continue
		}
		line := ls.l[r.LineNumber-1]
		at := len(line) - len(strings.TrimLeft(line, " \t"))
		if r.Column > 0 && r.Column <= len(line) {
			at = r.Column - 1
		}
		m := reAtomicAssign.FindStringSubmatchIndex(line[at:])
		if m == nil || line[at+m[2]:at+m[3]] != line[at+m[6]:at+m[7]] {
			continue
		}
		ls.l[r.LineNumber-1] = line[:at] + line[at+m[4]:]
		reasons = append(reasons, fmt.Sprintf("the assignment of %s dropped, its atomic add kept (line %d)", line[at+m[2]:at+m[3]], r.LineNumber))
	}
	if len(reasons) == 0 {
		return edit{}, false, nil
	}
	return edit{content: ls.String(), reason: "go vet atomic: " + strings.Join(reasons, "; "), confidence: 0.9}, true, nil
}

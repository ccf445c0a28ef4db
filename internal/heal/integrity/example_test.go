package integrity_test

import (
	"fmt"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/integrity"
)

// A fix that makes a failing Rust test pass by changing its expected
// value to what the code produces is refused, even with test edits
// allowed; the fix of the code itself passes.
func ExampleCheck() {
	const lib = `pub fn add(a: i32, b: i32) -> i32 {
    a - b
}

#[cfg(test)]
mod tests {
    #[test]
    fn adds() {
        assert_eq!(super::add(1, 2), 3);
    }
}
`
	report := contract.BugReport{FilePath: "src/lib.rs", LineNumber: 9, Message: "assertion `left == right` failed\n  left: -1\n right: 3"}
	cheat := integrity.Input{Path: "src/lib.rs", Original: lib, Patched: strings.Replace(lib, "), 3);", "), -1);", 1), Reports: []contract.BugReport{report}, AllowTestEdits: true}
	for _, v := range integrity.Check(cheat) {
		fmt.Println(v.Rule, v.Line)
	}
	fix := integrity.Input{Path: "src/lib.rs", Original: lib, Patched: strings.Replace(lib, "a - b", "a + b", 1), Reports: []contract.BugReport{report}}
	fmt.Println(len(integrity.Check(fix)), "violations")
	// Output:
	// expected-value-changed 9
	// 0 violations
}

// Each violation renders as "rule-id: detail (line N)".
func ExampleViolation_String() {
	v := integrity.Violation{Rule: integrity.RuleTestSkipped, Line: 12, Detail: "adds a Skip call: `t.Skip()`"}
	fmt.Println(v)
	// Output:
	// test-skipped: adds a Skip call: `t.Skip()` (line 12)
}

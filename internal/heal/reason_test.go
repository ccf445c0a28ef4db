package heal

import (
	"testing"

	"github.com/salve-dev/salve/contract"
)

// TestReasonFor: each bug a shared fix fixed shows the part of the reason
// that speaks of it; a reason with one part, or none that matches, shows
// whole.
func TestReasonFor(t *testing.T) {
	bug := func(msg string) contract.BugReport { return contract.BugReport{Message: msg} }
	both := `remove unused import "os" and add missing import "strings"`
	for _, tc := range []struct {
		bug          contract.BugReport
		reason, want string
	}{
		{bug(`undefined: os`), `add import "os"; remove unused variable count`, `add import "os"`},
		{bug(`declared and not used: count`), `add import "os"; remove unused variable count`, `remove unused variable count`},
		{bug(`undefined: os`), `add import "os"`, `add import "os"`},
		{bug(`syntax error`), `add import "os"; remove unused variable count`, `add import "os"; remove unused variable count`},
		{bug(`"os" imported and not used`), both, `remove unused import "os"`},
		{bug(`undefined: strings`), both, `add missing import "strings"`},
		{bug(`x`), `add the missing ',' and keep going`, `add the missing ',' and keep going`},
		{bug(`cannot find type Rc in this scope`), `add the missing use std::collections::HashMap; use std::rc::Rc;`, `add the missing use std::collections::HashMap; use std::rc::Rc;`},
		{bug(`undefined: hello`), "replace `hello` with `Hello`; replace `fmt.Prinln` with `fmt.Println`", "replace `hello` with `Hello`; replace `fmt.Prinln` with `fmt.Println`"},
	} {
		group := []contract.BugReport{bug(`undefined: os`), bug(`declared and not used: count`), bug(`"os" imported and not used`), bug(`undefined: strings`), tc.bug}
		if got := reasonFor(tc.bug, group, tc.reason); got != tc.want {
			t.Errorf("reasonFor(%q, %q) = %q, want %q", tc.bug.Message, tc.reason, got, tc.want)
		}
	}
}

package heal

import (
	"testing"

	"github.com/salve-dev/salve/contract"
)

func TestReasonFor(t *testing.T) {
	bug := func(msg string) contract.BugReport { return contract.BugReport{Message: msg} }
	for _, tc := range []struct {
		bug          contract.BugReport
		reason, want string
	}{
		{bug(`undefined: os`), `add import "os"; remove unused variable count`, `add import "os"`},
		{bug(`declared and not used: count`), `add import "os"; remove unused variable count`, `remove unused variable count`},
		{bug(`undefined: os`), `add import "os"`, `add import "os"`},
		{bug(`syntax error`), `add import "os"; remove unused variable count`, `add import "os"; remove unused variable count`},
	} {
		if got := reasonFor(tc.bug, tc.reason); got != tc.want {
			t.Errorf("reasonFor(%q, %q) = %q, want %q", tc.bug.Message, tc.reason, got, tc.want)
		}
	}
}

package missingtest

import (
	"regexp"
	"testing"
)

// TestHoldFails: Hold fails for a wording package missing does not know,
// for a name it reads differently and for a message the pattern misses;
// it passes for a wording the table knows.
func TestHoldFails(t *testing.T) {
	undefined := regexp.MustCompile(`undefined: (\w+)`)
	for _, tc := range []struct {
		c    Case
		fail bool
	}{
		{Case{Name: "known", Re: undefined, Group: 1, Msgs: []string{"undefined: totl"}}, false},
		{Case{Name: "unknown wording", Re: regexp.MustCompile(`nowhere to be seen: (\w+)`), Group: 1, Msgs: []string{"nowhere to be seen: totl"}}, true},
		{Case{Name: "other name", Re: regexp.MustCompile(`undefined: (\w)`), Group: 1, Msgs: []string{"undefined: totl"}}, true},
		{Case{Name: "missed", Re: undefined, Group: 1, Msgs: []string{"defined: totl"}}, true},
		{Case{Name: "no messages", Re: undefined, Group: 1}, true},
		{Case{Name: "no name read", Re: regexp.MustCompile(`undefined`), Msgs: []string{"undefined: totl"}}, false},
	} {
		rec := &recorder{TB: t}
		Hold(rec, []Case{tc.c})
		if rec.failed != tc.fail {
			t.Errorf("%s: failed = %v, want %v", tc.c.Name, rec.failed, tc.fail)
		}
	}
}

// recorder notes a failure instead of failing the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }

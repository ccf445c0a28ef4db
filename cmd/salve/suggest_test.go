package main

import "testing"

func TestClosest(t *testing.T) {
	flags := []string{"workspace", "cmd", "timeout", "ci-timeout", "fixers", "models", "allow-test-edits", "push"}
	for _, tc := range []struct{ in, want string }{
		{"worspace", "workspace"},
		{"workpsace", "workspace"},
		{"fixer", "fixers"},
		{"timout", "timeout"},
		{"allow-tests-edits", "allow-test-edits"},
		{"cmdd", "cmd"},
		{"zzz", ""},
		{"verbose", ""},
	} {
		if got := closest(tc.in, flags); got != tc.want {
			t.Errorf("closest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

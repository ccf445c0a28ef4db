package history

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
)

var reOneArgOpen = regexp.MustCompile(`Open\(\w+\)`)

// fakeCheck is a Checker that reports, in content, the lines holding a
// call of Open with one argument, and the lines holding one of undefined.
func fakeCheck(undefined ...string) Checker {
	return func(_ context.Context, _, _, content string) (map[int]bool, error) {
		errs := map[int]bool{}
		for i, l := range strings.Split(content, "\n") {
			if reOneArgOpen.MatchString(l) {
				errs[i+1] = true
			}
			for _, u := range undefined {
				if strings.Contains(l, u) {
					errs[i+1] = true
				}
			}
		}
		return errs, nil
	}
}

// TestChoose: when the commit's calls insert different arguments, the
// one that alone type-checks at the missed calls is used; when several
// or none do, when the check cannot see the calls, or when there is no
// check, the tier declines.
func TestChoose(t *testing.T) {
	content := "package main\n\nfunc f(p string) {\n\tdb, err := Open(p)\n\t_, _ = db, err\n}\n"
	tests := []struct {
		name  string
		check Checker
		want  string
		why   string
	}{
		{name: "only the literal exists here", check: fakeCheck("&Options"),
			want: "package main\n\nfunc f(p string) {\n\tdb, err := Open(p, nil)\n\t_, _ = db, err\n}\n"},
		{name: "only the composite literal type-checks", check: fakeCheck("nil"),
			want: "package main\n\nfunc f(p string) {\n\tdb, err := Open(p, &Options{Temp: true})\n\t_, _ = db, err\n}\n"},
		{name: "both type-check", check: fakeCheck(), why: "2 of them type-check"},
		{name: "neither type-checks", check: fakeCheck("nil", "&Options"), why: "0 of them type-check"},
		{name: "no type check", why: "no type check can choose"},
		{name: "the check does not see the call", check: func(context.Context, string, string, string) (map[int]bool, error) { return map[int]bool{}, nil },
			why: "does not report the call on line 4"},
		{name: "the check has no verdict", check: func(context.Context, string, string, string) (map[int]bool, error) { return nil, ErrNoChecker },
			why: "gave no verdict"},
	}
	files, err := ParseDiff(goDisagreeDiff)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := heal.FixInput{Path: "x.go", Content: content, Request: contract.FixRequest{BugReport: report("x.go", 4, "not enough arguments in call to Open")}}
			res, err := PlanChecked(context.Background(), in, Analyze(files, "x.go"), tt.check)
			if !wantPlan(t, res, err, tt.want, tt.why) {
				return
			}
			if !strings.Contains(res.FixReason, "type-checks here") {
				t.Errorf("reason %q does not say the value was chosen by the type check", res.FixReason)
			}
		})
	}
}

// TestCandidates: the commit's calls agree on the place of the argument
// and the declaration's change, or there is no candidate at all.
func TestCandidates(t *testing.T) {
	ev := &Evidence{Signatures: map[string]*Signature{
		"Open": {Deltas: []int{1}, Sites: []ArgChange{{Delta: 1, Index: 1, Before: 1, Text: "nil", norm: "nil"}, {Delta: 1, Index: 1, Before: 1, Text: "o", norm: "o"}},
			Others: []ArgChange{{Delta: 1, Index: 1, Before: 1, Text: "nil", norm: "nil"}, {Delta: 1, Index: 1, Before: 1, Text: "cfg.O", norm: "cfg . O"}}},
		"Close": {Deltas: []int{1}, Sites: []ArgChange{{Delta: 1, Index: 0, Before: 1, Text: "nil", norm: "nil"}, {Delta: 1, Index: 1, Before: 1, Text: "o", norm: "o"}}},
		"Drop":  {Deltas: []int{-1}, Sites: []ArgChange{{Delta: -1, Index: 0, Before: 2, Text: "a", norm: "a"}, {Delta: -1, Index: 0, Before: 2, Text: "b", norm: "b"}}},
		"Grow":  {Deltas: []int{2}, Sites: []ArgChange{{Delta: 1, Index: 1, Before: 1, Text: "nil", norm: "nil"}, {Delta: 1, Index: 1, Before: 1, Text: "o", norm: "o"}}},
	}}
	tests := []struct {
		fn   string
		want []string
	}{
		{fn: "Open", want: []string{"nil", "o", "cfg.O"}},
		{fn: "Close"},                     // the calls insert at different places
		{fn: "Drop", want: []string{"a"}}, // a removal: the place alone says it
		{fn: "Grow"},                      // the declaration grew by two
		{fn: "Missing"},
	}
	for _, tt := range tests {
		cs, err := ev.candidates(tt.fn)
		var got []string
		for _, c := range cs {
			got = append(got, c.Text)
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || (err == nil) != (tt.want != nil) {
			t.Errorf("%s: candidates %q, %v; want %q", tt.fn, got, err, tt.want)
		}
	}
}

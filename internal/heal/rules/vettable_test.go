package rules

import (
	"context"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/sandbox"
)

// reGoTestVet reads the analyzers `go help test` says go test runs:
// "That subset is: atomic, bool, ..., and tests."
var reGoTestVet = regexp.MustCompile(`That subset is:\s+([^.]+)\.`)

// TestVetInGoTestCoversGoHelpTest holds VetInGoTest to the analyzers this
// machine's go test runs, as `go help test` lists them: every one has a
// row, and no row names another.
func TestVetInGoTestCoversGoHelpTest(t *testing.T) {
	env := sandbox.AllowedEnv()
	goBin := sandbox.LookPath("go", env)
	if goBin == "" {
		t.Skip("go is not on the PATH: cannot read go help test")
	}
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: goBin, Args: []string{"help", "test"}, Env: env, Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("go help test: %v, exit %d: %s", err, res.ExitCode, res.Stderr)
	}
	m := reGoTestVet.FindStringSubmatch(strings.Join(strings.Fields(string(res.Stdout)), " "))
	if m == nil {
		t.Fatalf("go help test lists no vet subset:\n%s", res.Stdout)
	}
	var want []string
	for _, f := range strings.Split(m[1], ",") {
		if f = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(f), "and ")); f != "" {
			want = append(want, f)
		}
	}
	var got []string
	for _, a := range VetInGoTest {
		got = append(got, a.Name)
	}
	sort.Strings(want)
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("VetInGoTest has %v, go help test lists %v", got, want)
	}
}

// TestVetInGoTestRows checks that every row says why, and that a row's
// fix names a row of the rules table or another deterministic tier.
func TestVetInGoTestRows(t *testing.T) {
	rows := map[string]bool{}
	for _, r := range table {
		rows[r.name] = true
	}
	for _, a := range VetInGoTest {
		if a.Why == "" {
			t.Errorf("%s: no reason", a.Name)
		}
		for _, f := range strings.Split(a.Fix, ";") {
			tier, row, _ := strings.Cut(strings.TrimSpace(f), " ")
			switch {
			case f == "":
			case tier == Name && rows[row]:
			case tier == "suggest" && row == "go vet", tier == "history" && row == "":
			default:
				t.Errorf("%s: fix %q names no rule or tier", a.Name, f)
			}
		}
	}
}

package suggest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"

	"golang.org/x/tools/txtar"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// replay is an Executor that answers every structured re-run with a log
// recorded from the real tool, and remembers the commands it was given.
type replay struct {
	log  string
	cmds []string
}

func (r *replay) Run(_ context.Context, in contract.ExecutorInput) (contract.ExecutorOutput, error) {
	r.cmds = append(r.cmds, in.ResolvedBuildCommand)
	return contract.ExecutorOutput{ExitCode: 1, BuildLog: strings.ReplaceAll(r.log, "$WORK", in.WorkspacePath)}, nil
}

var reReport = regexp.MustCompile(`^(.+?):(\d+)(?::(\d+))?: \[(go vet|\S+)(?: (\S+))?\] (.*)$`)

// TestGolden runs the tier over each testdata/*.txtar case. The archive's
// comment holds the bug reports ("file:line[:col]: [tool rule] message"),
// its files the workspace, and "rerun.log" (when present) the output the
// real tool gave for the tier's structured re-run, recorded from that
// tool (paths under the recorded root read $WORK). The golden file holds
// the re-run commands, the reason, the confidence and the patched file,
// or "no fix". Every fix must pass the fix gate.
func TestGolden(t *testing.T) {
	cases, _ := filepath.Glob("testdata/*.txtar")
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".txtar")
		t.Run(name, func(t *testing.T) {
			in, ex := loadCase(t, c)
			file := in.Path
			fx := &Fixer{Executor: ex}
			res, err := fx.Fix(context.Background(), in)
			var got strings.Builder
			for _, c := range ex.cmds {
				fmt.Fprintf(&got, "rerun: %s\n", c)
			}
			switch {
			case errors.Is(err, results.ErrNoFix):
				got.WriteString("no fix\n")
			case err != nil:
				t.Fatal(err)
			default:
				fmt.Fprintf(&got, "reason: %s\nconfidence: %.2f\n----\n%s", res.FixReason, res.ConfidenceScore, res.PatchedContent)
				d := heal.Gate(heal.GateInput{Path: file, Original: in.Content, Patched: res.PatchedContent, Reports: in.Reports(), Confidence: res.ConfidenceScore, MinConfidence: heal.DefaultMinConfidence})
				if !d.Accepted {
					t.Errorf("the gate rejects the fix: %s\n%s", d.Reason(), d.Diff)
				}
				// A second call for the same content reuses the re-run.
				n := len(ex.cmds)
				if _, err := fx.Fix(context.Background(), in); err != nil || len(ex.cmds) != n {
					t.Errorf("second call: err %v, re-runs %d then %d", err, n, len(ex.cmds))
				}
			}
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if got.String() != string(want) {
				t.Errorf("mismatch with %s:\n%s", golden, heal.UnifiedDiff(golden, heal.LineDiff(string(want), got.String())))
			}
		})
	}
}

// loadCase writes the workspace of the testdata case c to a new folder and
// returns the fix input of its first bug report (the others related) and
// the executor that replays its recorded re-run.
func loadCase(t testing.TB, c string) (heal.FixInput, *replay) {
	t.Helper()
	ar, err := txtar.ParseFile(c)
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	ex := &replay{}
	for _, f := range ar.Files {
		if f.Name == "rerun.log" {
			ex.log = string(f.Data)
			continue
		}
		p := filepath.Join(ws, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reports := parseReports(t, string(ar.Comment))
	content, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(reports[0].FilePath)))
	if err != nil {
		t.Fatal(err)
	}
	return heal.FixInput{Workspace: ws, Path: reports[0].FilePath, Content: string(content),
		Request: contract.FixRequest{BugReport: reports[0], Related: reports[1:]}}, ex
}

func parseReports(t testing.TB, s string) []contract.BugReport {
	t.Helper()
	var out []contract.BugReport
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		m := reReport.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("bad report line %q", l)
		}
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		out = append(out, contract.BugReport{FilePath: m[1], LineNumber: line, Column: col, Tool: m[4], Rule: m[5], Message: m[6], ErrorType: contract.ErrTypeError})
	}
	return out
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"totl", "total", 1}, {"total", "total", 0}, {"ab", "ba", 1}, {"kitten", "sitting", 3}, {"", "abc", 3}, {"a", "abcdefgh", 4},
	} {
		if got := distance(c.a, c.b); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestStaleSuggestion checks that a suggestion whose span no longer holds
// the text it was made for is not applied.
func TestStaleSuggestion(t *testing.T) {
	ws := t.TempDir()
	src := "x = 1\nprint(y)\n"
	r := contract.BugReport{FilePath: "a.py", LineNumber: 2, Message: "NameError: name 'z' is not defined. Did you mean: 'x'?"}
	_, err := (&Fixer{}).Fix(context.Background(), heal.FixInput{Workspace: ws, Path: "a.py", Content: src, Request: contract.FixRequest{BugReport: r}})
	if !errors.Is(err, results.ErrNoFix) {
		t.Fatalf("want no fix, got %v", err)
	}
}

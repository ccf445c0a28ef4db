package rules

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"

	"golang.org/x/tools/txtar"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/rules/deadvar"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// reTag reads a report's optional "[tool rule] " before its message.
var reTag = regexp.MustCompile(`^\[(go vet|go test|\S+) (\S+)\] (.*)$`)

// TestGolden runs the rules tier over each testdata/*.txtar case: the
// archive comment holds "file:line: message" reports, the file "input.EXT"
// the source, and any other file of the archive is written to the
// workspace at its path (the modules an import may name). The golden file holds the reason, the confidence and the
// patched content, or "no fix". Every fix must also pass the fix gate.
func TestGolden(t *testing.T) {
	cases, _ := filepath.Glob("testdata/*.txtar")
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(c)
			if err != nil {
				t.Fatal(err)
			}
			reports := parseReports(t, string(ar.Comment))
			ws := t.TempDir()
			file := reports[0].FilePath
			var input []byte
			for _, f := range ar.Files {
				dst := f.Name
				if strings.HasPrefix(f.Name, "input.") {
					if input != nil || path.Ext(file) != path.Ext(f.Name) {
						t.Fatalf("want one input.EXT file with the extension of %s", file)
					}
					input, dst = f.Data, file
				}
				p := filepath.Join(ws, filepath.FromSlash(dst))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if input == nil {
				t.Fatal("no input.EXT file")
			}
			in := heal.FixInput{Workspace: ws, Path: file, Content: string(input),
				Request: contract.FixRequest{BugReport: reports[0], Related: reports[1:]}}
			res, err := (&Fixer{External: []External{}}).Fix(context.Background(), in)
			var got string
			switch {
			case errors.Is(err, results.ErrNoFix):
				got = "no fix\n"
			case err != nil:
				t.Fatal(err)
			default:
				got = fmt.Sprintf("reason: %s\nconfidence: %.2f\n----\n%s", res.FixReason, res.ConfidenceScore, res.PatchedContent)
				gi := heal.GateInput{Path: file, Original: in.Content, Patched: res.PatchedContent, Reports: in.Reports(), Confidence: res.ConfidenceScore, MinConfidence: heal.DefaultMinConfidence,
					Windows: deadWindows(in)}
				if d := heal.Gate(gi); !d.Accepted {
					// A fix of a test file passes only where the repository
					// allows test edits: the golden says so.
					gi.AllowTestEdits = true
					if d2 := heal.Gate(gi); !d2.Accepted || !slices.Equal(d.Rules, []string{"test-file"}) {
						t.Errorf("the gate rejects the rules' fix: %s\n%s", d.Reason(), d.Diff)
					}
					got = "gate: " + strings.Join(d.Rules, ", ") + " unless the repository allows test edits\n" + got
				}
			}
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if got != string(want) {
				t.Errorf("mismatch with %s:\n%s", golden, heal.UnifiedDiff(golden, heal.LineDiff(string(want), got)))
			}
		})
	}
}

func parseReports(t *testing.T, s string) []contract.BugReport {
	t.Helper()
	var out []contract.BugReport
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		parts := strings.SplitN(l, ":", 3)
		if len(parts) != 3 {
			t.Fatalf("bad report line %q", l)
		}
		n, err := strconv.Atoi(parts[1])
		if err != nil {
			t.Fatalf("bad line number in %q", l)
		}
		r := contract.BugReport{FilePath: parts[0], LineNumber: n, ErrorType: contract.ErrSyntax}
		// Optional: a column, then "[tool rule]" before the message.
		msg := strings.TrimSpace(parts[2])
		if c, rest, ok := strings.Cut(msg, ":"); ok {
			if col, err := strconv.Atoi(c); err == nil {
				r.Column, msg = col, strings.TrimSpace(rest)
			}
		}
		if m := reTag.FindStringSubmatch(msg); m != nil {
			r.Tool, r.Rule, msg = m[1], m[2], m[3]
		}
		r.Message = strings.ReplaceAll(msg, `\n`, "\n")
		out = append(out, r)
	}
	return out
}

// deadWindows gives the gate the lines removing an unused Go variable
// changes (its declaration and dead assignments), as the fix gate is to
// read them from deadvar.Spans.
func deadWindows(in heal.FixInput) []heal.LineRange {
	if path.Ext(in.Path) != ".go" {
		return nil
	}
	var ws []heal.LineRange
	for _, s := range deadvar.Spans(in.Content, in.Reports()) {
		ws = append(ws, heal.LineRange{Start: s.Start, End: s.End})
	}
	return ws
}

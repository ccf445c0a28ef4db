package rules_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/logparse"
	"github.com/salve-dev/salve/internal/heal/rules"
	"github.com/salve-dev/salve/internal/sandbox"
)

// compileCase is a broken project healed by the rules tier alone, the way
// heal's loop drives it: build with the real toolchain, parse the log,
// give each file's reports to the tier, write its fix, build again. want
// holds the files as they must read once the build passes.
type compileCase struct {
	name  string
	tools []string
	cmd   string
	files map[string]string
	want  map[string]string
	// iterations is how many fix rounds the heal may take (one per error
	// the compiler shows at a time).
	iterations int
}

// TestRulesCompile runs the cases of compileCases with the real
// compilers: the build fails before, passes after, and every changed file
// reads as its idiomatic fix.
func TestRulesCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real toolchains")
	}
	for _, c := range compileCases {
		t.Run(c.name, func(t *testing.T) {
			for _, tool := range c.tools {
				if _, err := exec.LookPath(tool); err != nil {
					t.Skipf("%s is not installed: this test needs it", tool)
				}
			}
			runCompileCase(t, c)
		})
	}
}

func runCompileCase(t *testing.T, c compileCase) {
	ws := t.TempDir()
	for p, body := range c.files {
		writeFile(t, filepath.Join(ws, filepath.FromSlash(p)), body)
	}
	ctx := context.Background()
	f := &rules.Fixer{External: []rules.External{}}
	for i := 0; ; i++ {
		log, ok := build(t, ctx, ws, c.cmd)
		if ok {
			if i == 0 {
				t.Fatal("the project builds before any fix")
			}
			break
		}
		if i == c.iterations {
			t.Fatalf("still failing after %d fix rounds:\n%s", i, log)
		}
		reports := logparse.ParseString(log, logparse.Options{Root: ws, Workspace: ws})
		if len(reports) == 0 {
			t.Fatalf("round %d: the parser finds no report in:\n%s", i+1, log)
		}
		for _, group := range byFile(reports) {
			p := group[0].FilePath
			abs := filepath.Join(ws, filepath.FromSlash(p))
			b, err := os.ReadFile(abs)
			if err != nil {
				t.Fatal(err)
			}
			in := heal.FixInput{Workspace: ws, Path: p, Content: string(b), Request: contract.FixRequest{BugReport: group[0], Related: group[1:]}}
			res, err := f.Fix(ctx, in)
			if errors.Is(err, results.ErrNoFix) {
				t.Fatalf("round %d: no rule fixes %s: %v\nlog:\n%s\nfile:\n%s", i+1, p, err, log, b)
			}
			if err != nil {
				t.Fatal(err)
			}
			d := heal.Gate(heal.GateInput{Path: p, Original: in.Content, Patched: res.PatchedContent, Reports: in.Reports(), Confidence: res.ConfidenceScore, MinConfidence: heal.DefaultMinConfidence})
			if !d.Accepted {
				t.Fatalf("round %d: the gate rejects %q: %s\n%s", i+1, res.FixReason, d.Reason(), d.Diff)
			}
			writeFile(t, abs, res.PatchedContent)
		}
	}
	for p, want := range c.want {
		b, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		if want = strings.TrimPrefix(want, "\n"); string(b) != want {
			t.Errorf("%s after the heal:\n%s", p, heal.UnifiedDiff(p, heal.LineDiff(want, string(b))))
		}
	}
}

// build runs cmd in ws and returns its combined output and whether it
// passed.
func build(t *testing.T, ctx context.Context, ws, cmd string) (string, bool) {
	t.Helper()
	env := sandbox.MergeEnv(sandbox.AllowedEnv(), map[string]string{"CARGO_TARGET_DIR": filepath.Join(ws, "target"), "GOFLAGS": "-mod=mod"})
	res, err := sandbox.Run(ctx, sandbox.Cmd{Path: "sh", Args: []string{"-c", cmd}, Dir: ws, Env: env, Combined: true, Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatalf("run %s: %v", cmd, err)
	}
	return string(res.Stdout), res.ExitCode == 0
}

// byFile groups reports by file, in order of first appearance.
func byFile(reports []contract.BugReport) [][]contract.BugReport {
	idx := map[string]int{}
	var out [][]contract.BugReport
	for _, r := range reports {
		i, ok := idx[r.FilePath]
		if !ok {
			i = len(out)
			idx[r.FilePath] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], r)
	}
	return out
}

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.TrimPrefix(body, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

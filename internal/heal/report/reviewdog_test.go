package report_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/report"
)

// TestReviewdogReadsRDJSON pipes salve's rdjson and rdjsonl into the real
// reviewdog (installed by scripts/report/setup.sh) in a local repository:
// reviewdog must read every diagnostic and fail the check on errors.
func TestReviewdogReadsRDJSON(t *testing.T) {
	bin, err := filepath.Abs(filepath.Join("..", "..", "..", ".deps", "bin", "reviewdog"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("reviewdog is not installed (run scripts/report/setup.sh): %v", err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	reports := corpusReports(t, "c/gcc-undeclared")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for _, f := range []report.Format{report.RDJSON, report.RDJSONL} {
		in, _ := write(t, f, reports)
		cmd := exec.CommandContext(ctx, bin, "-f="+string(f), "-reporter=local", "-filter-mode=nofilter", "-fail-on-error")
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(in)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("%s: reviewdog passed a log with errors:\n%s", f, out)
		}
		for _, r := range reports {
			if !strings.Contains(string(out), r.Message) {
				t.Errorf("%s: reviewdog did not report %q:\n%s", f, r.Message, out)
			}
		}
		// No diagnostics: reviewdog passes.
		empty, _ := write(t, f, nil)
		cmd = exec.CommandContext(ctx, bin, "-f="+string(f), "-reporter=local", "-filter-mode=nofilter", "-fail-on-error")
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(empty)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: reviewdog failed on no diagnostics: %v\n%s", f, err, out)
		}
	}
}

package buildinfo_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestBinariesPrintOneVersion builds the four binaries stamped as a
// release would be and checks that each prints exactly the stamped
// version, one line, on stdout.
func TestBinariesPrintOneVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	const want = "v9.8.7-test"
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-ldflags", "-X main.version="+want, "-o", dir+string(filepath.Separator), "./cmd/...")
	build.Dir = filepath.Join("..", "..")
	build.Env = append(build.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, c := range [][]string{{"salve", "--version"}, {"ai-agent", "--version"}, {"ai-agent", "-V"}, {"git_agent", "--version"}, {"ai-agent-telemetry", "--version"}} {
		cmd := exec.CommandContext(ctx, filepath.Join(dir, c[0]), c[1:]...)
		cmd.Env = []string{"HOME=" + dir, "SALVE_REGISTRY_DB=" + filepath.Join(dir, "reg.db")}
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%v: %v", c, err)
			continue
		}
		if line := c[0] + " " + want + "\n"; string(out) != line {
			t.Errorf("%v printed %q, want %q", c, out, line)
		}
	}
}

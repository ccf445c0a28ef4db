package housetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// crossTarget is one program the install guide promises on one platform.
type crossTarget struct {
	goos, goarch, cmd string
}

// crossTargets lists every promised pair: the four programs on linux and
// darwin, amd64 and arm64; on windows/amd64 only ai-agent, its telemetry
// helper and git_agent (salve's sandbox needs unix). scripts/dist.sh packs the same set. The
// rows are ordered so that the two builds running at once are for
// different platforms, and do not both compile the same packages on a
// cold cache: program by program, the two windows builds far apart.
var crossTargets = []crossTarget{
	{"windows", "amd64", "ai-agent"},
	{"linux", "amd64", "salve"}, {"linux", "arm64", "salve"}, {"darwin", "amd64", "salve"}, {"darwin", "arm64", "salve"},
	{"linux", "amd64", "ai-agent"}, {"linux", "arm64", "ai-agent"}, {"darwin", "amd64", "ai-agent"}, {"darwin", "arm64", "ai-agent"},
	{"linux", "amd64", "git_agent"}, {"linux", "arm64", "git_agent"}, {"darwin", "amd64", "git_agent"}, {"darwin", "arm64", "git_agent"},
	{"windows", "amd64", "git_agent"},
	{"linux", "amd64", "ai-agent-telemetry"}, {"linux", "arm64", "ai-agent-telemetry"}, {"darwin", "amd64", "ai-agent-telemetry"},
	{"darwin", "arm64", "ai-agent-telemetry"}, {"windows", "amd64", "ai-agent-telemetry"},
}

// crossBuilds bounds the builds run at once: each go build is itself
// parallel, and the machines that run the suite are small.
const crossBuilds = 2

// crossBuildTimeout bounds one build; a cold build cache for a new platform
// is the slow case.
const crossBuildTimeout = 10 * time.Minute

// TestCrossBuild builds every promised program for every promised
// platform, static (CGO_ENABLED=0), as a release does, so that code
// reaching for a system call one platform lacks fails here rather than at
// release time. The flags match `make build` and scripts/dist.sh
// (-trimpath), so the three share the build cache and a repeat run only
// links.
func TestCrossBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-builds skipped with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command in PATH: %v", err)
	}
	seen := map[crossTarget]bool{}
	for _, tc := range crossTargets {
		if seen[tc] {
			t.Fatalf("duplicate cross target %v", tc)
		}
		seen[tc] = true
	}
	out := t.TempDir()
	sem := make(chan struct{}, crossBuilds)
	var wg sync.WaitGroup
	errs := make([]error, len(crossTargets))
	for i, tc := range crossTargets {
		sem <- struct{}{} // in table order, at most crossBuilds at once
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			start := time.Now()
			errs[i] = crossBuild(t.Context(), goBin, out, tc)
			t.Logf("%s/%s %s: %.1fs", tc.goos, tc.goarch, tc.cmd, time.Since(start).Seconds())
		}()
	}
	wg.Wait()
	for i, tc := range crossTargets {
		if errs[i] != nil {
			t.Errorf("%s/%s %s: %v", tc.goos, tc.goarch, tc.cmd, errs[i])
		}
	}
}

// crossBuild runs go build for one target into dir, removes the program
// it wrote, and returns an error holding the compiler's output when it
// fails.
func crossBuild(ctx context.Context, goBin, dir string, tc crossTarget) error {
	ctx, cancel := context.WithTimeout(ctx, crossBuildTimeout)
	defer cancel()
	exe := filepath.Join(dir, fmt.Sprintf("%s_%s_%s", tc.cmd, tc.goos, tc.goarch))
	cmd := exec.CommandContext(ctx, goBin, "build", "-trimpath", "-o", exe, "./cmd/"+tc.cmd)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+tc.goos, "GOARCH="+tc.goarch)
	b, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build ./cmd/%s: %w\n%s", tc.cmd, err, tail(b, 4096))
	}
	st, err := os.Stat(exe)
	if err != nil || st.Size() == 0 {
		return fmt.Errorf("go build ./cmd/%s wrote no program: %v", tc.cmd, err)
	}
	return os.Remove(exe) // tens of megabytes each: keep the temporary folder small

}

// tail returns the last max bytes of b as text, marked when cut.
func tail(b []byte, max int) string {
	s := strings.TrimSpace(string(b))
	if len(s) > max {
		return "…" + s[len(s)-max:]
	}
	return s
}

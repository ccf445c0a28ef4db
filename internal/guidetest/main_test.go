package guidetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/testbin"
)

// repoRoot is the checkout's root, from this package's folder.
var repoRoot = filepath.Join("..", "..")

// binDir holds the programs built for the tests.
var binDir string

func TestMain(m *testing.M) {
	testbin.Main(m, "guidetest-bin-", &binDir)
}

// programs are built once: the four programs of the guide, and the test
// stand-ins for aider and for an MCP server.
var programs = []string{
	"./cmd/salve", "./cmd/ai-agent", "./cmd/ai-agent-telemetry", "./cmd/git_agent",
	"./internal/toolrun/internal/fakeaider/cmd/aider", "./internal/agent/tools/mcp/mcptest/cmd/mcptest",
}

var (
	buildOnce sync.Once
	buildErr  error
)

// binaries builds the programs into binDir once and returns binDir.
func binaries(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the three programs; not in -short")
	}
	for _, tool := range []string{"go", "git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	buildOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		args := append([]string{"build", "-o", binDir + string(filepath.Separator)}, programs...)
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = repoRoot
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

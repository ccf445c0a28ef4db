package sandbox_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/sandbox"
)

// TestRunMasksOutput prints a secret from a file and from the environment
// through a real process: neither the capture nor the live writer sees it.
func TestRunMasksOutput(t *testing.T) {
	dir := t.TempDir()
	const fileSecret, envSecret = "file-secret-0123456789", "env-secret-9876543210"
	if err := os.WriteFile(dir+"/key", []byte(fileSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "DEPLOY_TOKEN=" + envSecret}
	var live bytes.Buffer
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "sh", Dir: dir, Env: env, Combined: true, Stdout: &live,
		Args: []string{"-c", `cat key; printf 'tok=%s' "$DEPLOY_TOKEN" >&2`},
		Mask: sandbox.MaskerFromEnv([][]string{env}, fileSecret)})
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"capture": string(res.Stdout), "live": live.String()} {
		if strings.Contains(got, "secret") || !strings.Contains(got, "[masked DEPLOY_TOKEN]") || !strings.Contains(got, "[masked]\n") {
			t.Errorf("%s: %q", name, got)
		}
	}
}

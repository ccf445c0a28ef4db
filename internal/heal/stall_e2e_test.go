package heal_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/sandbox"
)

// pytestFailure is what pytest prints for one failing test.
const pytestFailure = `============================= test session starts ==============================
collected 1 item

tests/test_ops.py F                                                      [100%]

=================================== FAILURES ===================================
___________________________________ test_add ___________________________________

    def test_add():
>       assert add(1, 2) == 3
E       assert -1 == 3
E        +  where -1 = add(1, 2)

tests/test_ops.py:5: AssertionError
=========================== short test summary info ============================
FAILED tests/test_ops.py::test_add - assert -1 == 3
============================== 1 failed in 0.01s ===============================
`

// TestHealWithStalledHelper heals a Python repository on a machine whose
// python3 runs tests but never answers salve's outline helper: the heal
// waits out the helper once, reads Python lexically after that, kills
// every helper it started, and ends well inside --timeout with its own
// verdict, not the time limit's.
func TestHealWithStalledHelper(t *testing.T) {
	gitIdentity(t)
	repo := t.TempDir()
	files := map[string]string{
		"calc/__init__.py":  "",
		"calc/ops.py":       "def add(a, b):\n    return a - b\n",
		"tests/test_ops.py": "from calc.ops import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
		"check.sh":          "cat <<'LOG'\n" + pytestFailure + "LOG\nexit 1\n",
	}
	for name, content := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, repo, "git", "init", "-q", "-b", "main")
	run(t, repo, "git", "add", "-A")
	run(t, repo, "git", "commit", "-qm", "init")

	// python3 -m pytest prints the failure; anything else (the helper)
	// writes its pid and sleeps.
	bin := t.TempDir()
	pids := filepath.Join(bin, "pids")
	script := "#!/bin/sh\ncase \"$1\" in\n-m) exec sh '" + filepath.Join(repo, "check.sh") + "' ;;\nesac\necho $$ >> '" + pids + "'\nexec sleep 600\n"
	if err := os.WriteFile(filepath.Join(bin, "python3"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := healEnv(t.TempDir())
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + bin + ":" + strings.TrimPrefix(kv, "PATH=")
		}
	}
	const limit = 45 * time.Second
	_, salve := heal.Binaries()
	start := time.Now()
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Env: env, Timeout: 3 * time.Minute, Args: []string{
		"heal", "--workspace", repo, "--no-store", "--isolation", "none", "--cmd", "sh check.sh",
		"--timeout", limit.String(), "--results", filepath.Join(t.TempDir(), "results.json")}})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("heal took %s, exit %d", took.Round(time.Millisecond), res.ExitCode)
	if res.ExitCode != 1 || !strings.Contains(string(res.Stderr), "red after 1 iteration(s)") {
		t.Fatalf("exit %d, want a red heal of its own (1):\n%s", res.ExitCode, res.Stderr)
	}
	// One wait for the helper (its parse timeout), not one per question.
	if took >= limit {
		t.Errorf("the heal took %s, past its --timeout of %s", took, limit)
	}
	b, _ := os.ReadFile(pids)
	started := strings.Fields(string(b))
	if len(started) != 1 {
		t.Errorf("the stalled helper was started %d times, want once", len(started))
	}
	for _, p := range started {
		pid, _ := strconv.Atoi(p)
		if alive(pid) {
			t.Errorf("helper %d still runs after the heal", pid)
		}
	}
}

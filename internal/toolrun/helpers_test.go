package toolrun_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/toolrun"
	"github.com/salve-dev/salve/internal/toolrun/internal/fakeaider"
)

// fakeDir holds a link named aider to this test binary; TestMain makes it.
var fakeDir string

func TestMain(m *testing.M) {
	if fakeaider.Invoked() {
		os.Exit(fakeaider.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "fake-aider-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	if err := os.Symlink(exe, filepath.Join(dir, fakeaider.Name)); err != nil {
		panic(err)
	}
	fakeDir = dir
	return m.Run()
}

// git runs git in dir through the sandbox and fails the test on error.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{
		Path: "git", Args: append([]string{"-C", dir}, args...), Env: gitEnv(t), Timeout: time.Minute,
	})
	if errors.Is(err, sandbox.ErrNotFound) {
		t.Skipf("git is not available: %v", err)
	}
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("git %v: exit %d: %s%s", args, res.ExitCode, res.Stdout, res.Stderr)
	}
	return string(res.Stdout)
}

// gitStatus runs git and returns its exit code and combined output.
func gitStatus(t testing.TB, dir string, stdin string, args ...string) (int, string) {
	t.Helper()
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{
		Path: "git", Args: append([]string{"-C", dir}, args...), Env: gitEnv(t),
		Stdin: strings.NewReader(stdin), Timeout: time.Minute, Combined: true,
	})
	if errors.Is(err, sandbox.ErrNotFound) {
		t.Skipf("git is not available: %v", err)
	}
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return res.ExitCode, string(res.Stdout)
}

func gitEnv(t testing.TB) []string {
	home := t.TempDir()
	return sandbox.MergeEnv(sandbox.AllowedEnv(), map[string]string{
		"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull,
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
		"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
	})
}

// baseTree is the work tree every test starts from.
var baseTree = map[string]string{
	"src/app.py":  "def main():\n    return 1\n",
	"src/util.py": "def helper():\n    pass\n",
	"README.md":   "# demo\n",
	"docs/x.md":   "docs\n",
}

// newWorkTree makes a committed git work tree holding baseTree.
func newWorkTree(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, baseTree)
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")
	return dir
}

func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writeMessage writes a message file outside any work tree.
func writeMessage(t testing.TB, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "prompt.txt")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakePATH returns a PATH whose first folder holds the fake aider.
func fakePATH(testing.TB) string {
	return fakeDir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// newAdapter returns an Adapter whose child finds the fake aider first.
func newAdapter(t testing.TB) *toolrun.Adapter {
	return &toolrun.Adapter{Env: sandbox.MergeEnv(sandbox.AllowedEnv(), map[string]string{"PATH": fakePATH(t)})}
}

// aiderRequest builds a request for the fake with the given message lines.
func aiderRequest(t testing.TB, root string, scope []string, lines ...string) contract.ToolRunRequestV1 {
	t.Helper()
	req, err := toolrun.BuildAiderToolRequest(toolrun.AiderOptions{
		Model: "gpt-4", PromptFile: writeMessage(t, lines...), FileScope: scope,
		Workspace: contract.GitWorkspaceRefV1{WsID: "ws-1", RootPath: root}, TimeoutSeconds: 60,
		Context: map[string]any{"task_id": "task-1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func readDump(t testing.TB, path string) fakeaider.Dump {
	t.Helper()
	var d fakeaider.Dump
	if err := json.Unmarshal([]byte(readFile(t, path)), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// processGone reports whether pid has exited (absent or a zombie).
func processGone(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true
	}
	// The state follows the command name in parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// killPID kills a process a test left behind, if it is still there.
func killPID(pid string) {
	if n, err := strconv.Atoi(pid); err == nil && n > 1 {
		_ = syscall.Kill(n, syscall.SIGKILL)
	}
}

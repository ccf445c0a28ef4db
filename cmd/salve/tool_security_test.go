package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/toolrun"
)

// buildSalve builds the salve binary into a temporary folder.
func buildSalve(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "salve")
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{
		Path: "go", Args: []string{"build", "-o", bin, "github.com/salve-dev/salve/cmd/salve"},
		Env: sandbox.AllowedEnv(), Combined: true, Timeout: 5 * time.Minute,
	})
	if errors.Is(err, sandbox.ErrNotFound) {
		t.Skipf("go is not available: %v", err)
	}
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("build salve: %v %s", err, res.Stdout)
	}
	return bin
}

// treeState fingerprints a folder (links by target, files by mode and
// content), skipping git's object store, logs and index (which git
// rewrites on its own and which run nothing) and the paths in skip.
func treeState(t *testing.T, root string, skip ...string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		for _, s := range skip {
			if rel == s || strings.HasPrefix(rel, s+"/") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		if d.IsDir() && (rel == ".git/objects" || rel == ".git/logs") {
			return filepath.SkipDir
		}
		if rel == ".git/index" {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			lines = append(lines, rel+" -> "+target)
		case fi.IsDir():
			lines = append(lines, fmt.Sprintf("%s/ %v", rel, fi.Mode().Perm()))
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			lines = append(lines, fmt.Sprintf("%s %v %x", rel, fi.Mode(), sha256.Sum256(b)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func pidGone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// TestToolRunHostileTool runs the real salve binary on a tool that plants
// a git hook, an fsmonitor command and a core.pager, writes through a link
// out of the tree, starts a setsid daemon and prints its API key. The
// user's checkout (git directory included) ends byte-identical but for the
// in-scope edit, nothing planted runs on the user's next git commands, the
// daemon is gone and the key is in nothing salve printed or stored.
func TestToolRunHostileTool(t *testing.T) {
	salve := buildSalve(t)
	installFakeAider(t)
	root, _ := workTree(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "victim.txt"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "victim.txt"), filepath.Join(root, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	pre := treeState(t, root, "src/app.py", ".aider.chat.history.md")
	marker := filepath.Join(t.TempDir(), "PLANTED-RAN")
	touch := strings.ReplaceAll("touch "+marker, " ", `\s`)
	pidFile := filepath.Join(t.TempDir(), "daemon.pid")
	const secret = "sk-hostile-test-0123456789abcdef"
	msg := message(t,
		"write src/app.py x = 2",
		"write .git/hooks/pre-commit #!/bin/sh\\n"+touch,
		"chmod .git/hooks/pre-commit 755",
		"git config core.fsmonitor "+touch+";\\sfalse",
		"git config core.pager "+touch+";\\scat",
		"write notes.txt overwritten through the link",
		"daemon "+pidFile+" 300",
		"print-env OPENAI_API_KEY")
	dbPath := filepath.Join(t.TempDir(), "runs.db")
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{
		Path: salve,
		Args: []string{"tool", "run", "aider", "--store", dbPath, "--cwd", root, "--model", "gpt-4", "--message-file", msg, "--", "src/app.py"},
		Env: sandbox.MergeEnv(os.Environ(), map[string]string{
			"HOME": home, "OPENAI_API_KEY": secret, "GIT_CONFIG_NOSYSTEM": "1",
		}),
		Timeout: 2 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(pidFile); err == nil {
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		t.Cleanup(func() {
			if pid > 1 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		})
		deadline := time.Now().Add(5 * time.Second)
		for !pidGone(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if !pidGone(pid) {
			t.Errorf("the tool's setsid daemon %d outlived salve", pid)
		}
	} else {
		t.Errorf("the fake did not start its daemon: %v", err)
	}
	var out map[string]any
	if err := json.Unmarshal(res.Stdout, &out); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s\n%s", err, res.Stdout, res.Stderr)
	}
	if res.ExitCode != exitFailure || out["exit_code"] != float64(toolrun.ExitUnsafeChange) || out["success"] != false {
		t.Errorf("exit %d, result %v\nstderr: %s", res.ExitCode, out, res.Stderr)
	}
	if !strings.Contains(string(res.Stderr), "unsafe changes") {
		t.Errorf("stderr does not say why: %s", res.Stderr)
	}
	if strings.Contains(string(res.Stdout)+string(res.Stderr), secret) {
		t.Errorf("salve printed the API key")
	}
	if got := treeState(t, root, "src/app.py", ".aider.chat.history.md"); got != pre {
		t.Errorf("the checkout changed beyond the scope:\nbefore:\n%s\nafter:\n%s", pre, got)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "victim.txt")); string(b) != "outside\n" {
		t.Errorf("file outside the tree = %q", b)
	}
	for _, args := range [][]string{{"status"}, {"diff"}, {"log", "-1"}, {"commit", "-q", "-am", "user commit"}} {
		shStatus(t, root, "", "git", args...)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a command the tool planted ran on the user's next git command")
	}
	// The run's trail holds ERROR events and no secret.
	code, show, _ := runSalve(t, "runs", "show", "latest", "--json", "--store", dbPath)
	if code != exitOK || !strings.Contains(show, "which git could use to run a program; reverted") || strings.Contains(show, secret) {
		t.Errorf("runs show: %d\n%s", code, show)
	}
	for _, suffix := range []string{"", "-wal"} {
		if b, err := os.ReadFile(dbPath + suffix); err == nil && strings.Contains(string(b), secret) {
			t.Errorf("the run store holds the API key")
		}
	}
}

// TestToolRunScrubEnvFlag: --scrub-env keeps unrelated variables from the
// tool; without it the tool gets salve's environment
// (docs/contracts/tool-adapter.md §4.2).
func TestToolRunScrubEnvFlag(t *testing.T) {
	installFakeAider(t)
	root, _ := workTree(t)
	t.Setenv("SALVE_TEST_CORP_PROXY", "http://proxy.example.invalid")
	for _, tc := range []struct {
		flag string
		want bool
	}{{"", true}, {"--scrub-env", false}} {
		dump := filepath.Join(t.TempDir(), "env")
		args := []string{"tool", "run", "aider", "--store", filepath.Join(t.TempDir(), "r.db"), "--cwd", root,
			"--model", "gpt-4", "--message-file", message(t, "dump-env "+dump)}
		if tc.flag != "" {
			args = append(args, tc.flag)
		}
		code, out, errOut := runSalve(t, append(args, "--", "src/app.py")...)
		if code != exitOK {
			t.Fatalf("%s: %d %s %s", tc.flag, code, out, errOut)
		}
		b, err := os.ReadFile(dump)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), "SALVE_TEST_CORP_PROXY=http://proxy.example.invalid\n"); got != tc.want {
			t.Errorf("%q: tool saw the variable: %v, want %v", tc.flag, got, tc.want)
		}
		if !strings.Contains(string(b), "AIDER_NO_AUTO_COMMITS=1\n") {
			t.Errorf("%q: AIDER_NO_AUTO_COMMITS not forced", tc.flag)
		}
	}
}

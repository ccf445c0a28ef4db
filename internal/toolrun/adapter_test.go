package toolrun_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/toolrun"
)

func TestBuildAiderToolRequest(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		name    string
		opts    toolrun.AiderOptions
		wantCmd []string
		wantEnv map[string]string
		wantErr string
	}{
		{
			name: "template",
			opts: toolrun.AiderOptions{Model: "gpt-4", PromptFile: "/tmp/prompt_abc123.txt", FileScope: []string{"src/module.py", "tests/test_module.py"}},
			wantCmd: []string{"aider", "--no-auto-commits", "--yes", "--no-dirty-commits", "--no-gitignore",
				"--model", "gpt-4", "--message-file", "/tmp/prompt_abc123.txt", "src/module.py", "tests/test_module.py"},
			wantEnv: map[string]string{"AIDER_NO_AUTO_COMMITS": "1", "AIDER_MODEL": "gpt-4"},
		},
		{
			name: "optional flags, default model, relative prompt, scope cleaned",
			opts: toolrun.AiderOptions{PromptFile: "prompts/p.txt", EditFormat: "whole", Read: []string{"CONVENTIONS.md", "docs/api.md"},
				FileScope: []string{"./b.py", "a.py", "b.py"}},
			wantCmd: []string{"aider", "--no-auto-commits", "--yes", "--no-dirty-commits", "--no-gitignore",
				"--model", "gpt-4", "--message-file", filepath.Join(root, "prompts/p.txt"),
				"--edit-format", "whole", "--read", "CONVENTIONS.md", "--read", "docs/api.md", "a.py", "b.py"},
			wantEnv: map[string]string{"AIDER_NO_AUTO_COMMITS": "1", "AIDER_MODEL": "gpt-4"},
		},
		{name: "no prompt", opts: toolrun.AiderOptions{Model: "m"}, wantErr: "missing value for {prompt_file}"},
		{name: "file like a flag", opts: toolrun.AiderOptions{PromptFile: "/p", FileScope: []string{"--auto-commits"}}, wantErr: "looks like a flag"},
		{name: "scope escapes", opts: toolrun.AiderOptions{PromptFile: "/p", FileScope: []string{"../etc/passwd"}}, wantErr: "not a relative path"},
		{name: "absolute scope", opts: toolrun.AiderOptions{PromptFile: "/p", FileScope: []string{"/etc/passwd"}}, wantErr: "not a relative path"},
		{name: "scope in .git", opts: toolrun.AiderOptions{PromptFile: "/p", FileScope: []string{"./.git/hooks/pre-commit"}}, wantErr: "inside a .git directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Workspace = contract.GitWorkspaceRefV1{WsID: "ws-1", RootPath: root}
			req, err := toolrun.BuildAiderToolRequest(tc.opts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(req.Cmd, tc.wantCmd) {
				t.Errorf("cmd\n got %q\nwant %q", req.Cmd, tc.wantCmd)
			}
			if !reflect.DeepEqual(req.Env, tc.wantEnv) {
				t.Errorf("env %v want %v", req.Env, tc.wantEnv)
			}
			if req.ToolID != "aider" || req.Cwd != root || req.TimeoutSeconds != contract.DefaultToolTimeoutSeconds || req.Context["ws_id"] != "ws-1" {
				t.Errorf("request %+v", req)
			}
		})
	}
	if _, err := toolrun.BuildAiderToolRequest(toolrun.AiderOptions{PromptFile: "/p"}); err == nil {
		t.Error("empty workspace root accepted")
	}
}

func TestRunAiderSuccess(t *testing.T) {
	root := newWorkTree(t)
	dump := filepath.Join(t.TempDir(), "dump.json")
	req := aiderRequest(t, root, []string{"src/app.py"},
		"Please make main return 2.",
		"write src/app.py def main():\\n    return 2",
		"stdout Applied edit to src/app.py",
		"dump-args "+dump)
	req.Env["OPENAI_API_KEY"] = "sk-test"
	a := newAdapter(t)
	out := a.RunAider(context.Background(), req, toolrun.RunOptions{})
	res := out.Result
	if res.ExitCode != 0 || !res.Succeeded() || res.TimedOut || res.ToolID != "aider" {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(res.Stdout, "Applied edit to src/app.py") || !strings.Contains(res.Stdout, "auto-commits disabled") {
		t.Errorf("stdout %q", res.Stdout)
	}
	if res.StartedAt == "" || res.CompletedAt < res.StartedAt || res.DurationSeconds <= 0 {
		t.Errorf("times %q %q %v", res.StartedAt, res.CompletedAt, res.DurationSeconds)
	}
	js, _ := json.Marshal(res)
	if !strings.Contains(string(js), `"success":true`) {
		t.Errorf("JSON lacks derived success: %s", js)
	}
	if got := readFile(t, filepath.Join(root, "src/app.py")); got != "def main():\n    return 2\n" {
		t.Errorf("edit not kept: %q", got)
	}
	// The fake parsed the real flags: --yes is --yes-always, and commits,
	// dirty commits and .gitignore edits are off.
	d := readDump(t, dump)
	for flag, want := range map[string]bool{"yes_always": true, "auto_commits": false, "dirty_commits": false, "gitignore": false} {
		if d.Args.Flags[flag] != want {
			t.Errorf("aider saw %s=%v, want %v", flag, d.Args.Flags[flag], want)
		}
	}
	if d.Args.Values["model"] != "gpt-4" || d.Args.Values["message_file"] != req.Cmd[8] || !reflect.DeepEqual(d.Args.Files, []string{"src/app.py"}) {
		t.Errorf("aider args %+v", d.Args)
	}
	if d.Env["AIDER_NO_AUTO_COMMITS"] != "1" || d.Env["AIDER_MODEL"] != "gpt-4" || d.Env["OPENAI_API_KEY"] != "sk-test" || d.Cwd != root {
		t.Errorf("aider env %v cwd %s", d.Env, d.Cwd)
	}
	rec := out.Record
	if rec.Status != contract.RunSucceeded || len(rec.Patches) != 1 || rec.RunID != out.RunID || len(rec.ScopeViolations) != 0 {
		t.Fatalf("record %+v", rec)
	}
	p := rec.Patches[0]
	if p.FilePath != "src/app.py" || p.Operation != contract.PatchEdit || !p.InScope || p.Reverted || p.ToolID != "aider" ||
		!strings.Contains(p.Diff, "-    return 1\n+    return 2\n") {
		t.Errorf("patch %+v", p)
	}
	// aider's own history file is ignored, not a scope violation.
	if _, err := os.Stat(filepath.Join(root, ".aider.chat.history.md")); err != nil {
		t.Errorf("history file removed: %v", err)
	}
	if len(rec.Events) < 2 || !strings.HasPrefix(rec.Events[0].Message, "Running aider: aider --no-auto-commits --yes") ||
		rec.Events[0].Level != contract.LevelInfo || rec.Events[0].Context["tool_id"] != "aider" {
		t.Errorf("events %+v", rec.Events)
	}
	// The package-level RunAider gives the same result shape.
	req2 := aiderRequest(t, root, []string{"src/app.py"}, "exit 0")
	req2.Env["PATH"] = fakePATH(t)
	if r2 := toolrun.RunAider(context.Background(), req2); r2.ExitCode != 0 {
		t.Errorf("RunAider: %+v", r2)
	}
}

func TestRunAiderTimeout(t *testing.T) {
	root := newWorkTree(t)
	pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
	req := aiderRequest(t, root, []string{"src/app.py"},
		"stdout partial output before the hang",
		"grandchild "+pidFile+" 120",
		"write src/app.py changed before timeout",
		"sleep 120")
	// The fake must start its grandchild and print before the kill; 2 s
	// leaves room for a loaded machine.
	req.TimeoutSeconds = 2
	out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
	res := out.Result
	if res.ExitCode != contract.ExitTimeout || !res.TimedOut || res.Succeeded() {
		t.Fatalf("result %+v", res)
	}
	if res.Stderr != "Process timed out after 2 seconds" {
		t.Errorf("stderr %q", res.Stderr)
	}
	if !strings.Contains(res.Stdout, "partial output before the hang") {
		t.Errorf("partial stdout lost: %q", res.Stdout)
	}
	pid := strings.TrimSpace(readFile(t, pidFile))
	deadline := time.Now().Add(5 * time.Second)
	for !processGone(pid) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !processGone(pid) {
		t.Errorf("grandchild %s survived the timeout", pid)
	}
	// The edit made before the timeout is still recorded.
	if len(out.Record.Patches) != 1 || out.Record.Status != contract.RunFailed {
		t.Errorf("record status %s patches %+v", out.Record.Status, out.Record.Patches)
	}
}

func TestRunAiderNotFound(t *testing.T) {
	root := newWorkTree(t)
	req := aiderRequest(t, root, nil, "exit 0")
	a := &toolrun.Adapter{Env: sandbox.MergeEnv(sandbox.AllowedEnv(), map[string]string{"PATH": t.TempDir()})}
	out := a.RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Result.ExitCode != contract.ExitNotFound || out.Result.Succeeded() || out.Result.Stderr == "" {
		t.Fatalf("result %+v", out.Result)
	}
	if out.Record.Status != contract.RunFailed {
		t.Errorf("status %s", out.Record.Status)
	}
}

func TestRunAiderExecError(t *testing.T) {
	root := newWorkTree(t)
	dir := t.TempDir()
	// An executable file that the kernel cannot run.
	if err := os.WriteFile(filepath.Join(dir, "aider"), []byte{0x7f, 'E', 'L', 'F', 0, 0, 0}, 0o755); err != nil {
		t.Fatal(err)
	}
	req := aiderRequest(t, root, nil, "exit 0")
	a := &toolrun.Adapter{Env: sandbox.MergeEnv(sandbox.AllowedEnv(), map[string]string{"PATH": dir})}
	out := a.RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Result.ExitCode != contract.ExitExecError || !strings.Contains(out.Result.Stderr, "exec format error") {
		t.Fatalf("result %+v", out.Result)
	}
}

func TestRunAiderToolExitCodes(t *testing.T) {
	root := newWorkTree(t)
	for _, code := range []int{1, 2, 3, 255} {
		req := aiderRequest(t, root, []string{"src/app.py"}, "stderr model failed", "exit "+strconv.Itoa(code))
		out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
		if out.Result.ExitCode != code || out.Result.Succeeded() || !strings.Contains(out.Result.Stderr, "model failed") ||
			out.Record.Status != contract.RunFailed {
			t.Errorf("exit %d: %+v / %s", code, out.Result, out.Record.Status)
		}
	}
	// aider's own usage error (an unknown flag) exits 2 with argparse's text.
	req := aiderRequest(t, root, nil, "exit 0")
	req.Cmd = append(req.Cmd, "--no-such-flag")
	out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Result.ExitCode != 2 || !strings.Contains(out.Result.Stderr, "unrecognized arguments: --no-such-flag") {
		t.Errorf("usage error: %+v", out.Result)
	}
}

func TestRunAiderStdinAndCancel(t *testing.T) {
	root := newWorkTree(t)
	// Cancel once the tool is running (it writes a marker outside the
	// tree), not after a fixed delay that could fire before it starts.
	marker := filepath.Join(t.TempDir(), "started")
	req := aiderRequest(t, root, nil, "write "+marker+" up", "sleep 60")
	in := "ignored"
	req.StdinData = &in
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(marker); err == nil {
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	out := newAdapter(t).RunAider(ctx, req, toolrun.RunOptions{})
	if out.Result.ExitCode != contract.ExitExecError || out.Result.TimedOut || !strings.Contains(out.Result.Stderr, "cancelled") {
		t.Fatalf("cancelled run: %+v", out.Result)
	}
}

func TestOutputCappedHeadAndTail(t *testing.T) {
	root := newWorkTree(t)
	req := aiderRequest(t, root, nil, "flood 3000000", "stdout THE-END")
	a := newAdapter(t)
	a.MaxOutput = 64 << 10
	out := a.RunAider(context.Background(), req, toolrun.RunOptions{})
	res := out.Result
	if res.ExitCode != 0 {
		t.Fatalf("result %+v", res)
	}
	if len(res.Stdout) > 70<<10 || !strings.Contains(res.Stdout, "bytes omitted") ||
		!strings.HasPrefix(res.Stdout, "Aider v") || !strings.HasSuffix(res.Stdout, "THE-END\n") {
		t.Errorf("stdout of %d bytes not capped to head and tail: %q … %q", len(res.Stdout), res.Stdout[:80], res.Stdout[len(res.Stdout)-80:])
	}
	found := false
	for _, ev := range out.Record.Events {
		found = found || (ev.Level == contract.LevelWarn && strings.Contains(ev.Message, "capped"))
	}
	if !found {
		t.Error("no WARN event for the capped output")
	}
}

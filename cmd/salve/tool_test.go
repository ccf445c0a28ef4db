package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/toolrun"
	"github.com/salve-dev/salve/internal/toolrun/pattern"
)

// sh runs a program through the sandbox and fails the test unless it
// exits 0. A missing program skips the test.
func sh(t *testing.T, dir, prog string, args ...string) string {
	t.Helper()
	code, out := shStatus(t, dir, "", prog, args...)
	if code != 0 {
		t.Fatalf("%s %v: exit %d: %s", prog, args, code, out)
	}
	return out
}

func shStatus(t *testing.T, dir, stdin, prog string, args ...string) (int, string) {
	t.Helper()
	home := t.TempDir()
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{
		Path: prog, Args: args, Dir: dir, Stdin: strings.NewReader(stdin), Combined: true, Timeout: 5 * time.Minute,
		Env: sandbox.MergeEnv(sandbox.AllowedEnv(), map[string]string{
			"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull,
			"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
			"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
		}),
	})
	if errors.Is(err, sandbox.ErrNotFound) {
		t.Skipf("%s is not available: %v", prog, err)
	}
	if err != nil {
		t.Fatalf("%s: %v", prog, err)
	}
	return res.ExitCode, string(res.Stdout)
}

// installFakeAider builds the fake aider into a folder and puts it first in
// PATH for the rest of the test.
func installFakeAider(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	// The go command keeps the caller's HOME, so its build cache is warm.
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{
		Path: "go", Args: []string{"build", "-o", filepath.Join(dir, "aider"), "github.com/salve-dev/salve/internal/toolrun/internal/fakeaider/cmd/aider"},
		Env: sandbox.AllowedEnv(), Combined: true, Timeout: 5 * time.Minute,
	})
	if errors.Is(err, sandbox.ErrNotFound) {
		t.Skipf("go is not available: %v", err)
	}
	if err != nil {
		t.Fatalf("build the fake aider: %v", err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("build the fake aider: %s", res.Stdout)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// workTree makes a committed git work tree, and a clone of it as it was.
func workTree(t *testing.T) (root, pristine string) {
	t.Helper()
	root = t.TempDir()
	files := map[string]string{
		"src/app.py": "def main():\n    return 1\n", "src/util.py": "X = 1\n", "README.md": "# demo\n",
		pattern.DefaultIndexFile: `aider_refactor:
  enabled: true
  spec_path: "patterns/aider_refactor.spec.yaml"
  executor: "MINI_PIPE_executor.execute_aider_refactor"
  category: "code_modification"
  guardrails:
    allowed_tools: [aider]
    path_scope:
      include: ["**/*.py"]
      exclude: ["**/venv/**"]
`,
		"patterns/aider_refactor.spec.yaml": "operation_kind: EXEC-AIDER-EDIT\n",
	}
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sh(t, root, "git", "init", "-q", "-b", "main")
	sh(t, root, "git", "add", "-A")
	sh(t, root, "git", "commit", "-q", "-m", "base")
	pristine = filepath.Join(t.TempDir(), "clone")
	sh(t, ".", "git", "clone", "-q", root, pristine)
	return root, pristine
}

func message(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "prompt.txt")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPatternTaskAndReadBack is the end-to-end path of the tool adapter
// (docs/contracts/tool-adapter.md §5): an aider edit under a pattern of
// PATTERN_INDEX.yaml runs the fake aider on a real git work tree, and the
// records come back through "salve runs".
func TestPatternTaskAndReadBack(t *testing.T) {
	installFakeAider(t)
	root, pristine := workTree(t)
	dbPath := filepath.Join(t.TempDir(), "runs.db")
	st := openStore(t, dbPath)
	ix, err := pattern.Load(filepath.Join(root, pattern.DefaultIndexFile), toolrun.ExecutorNames(toolrun.DefaultExecutors()))
	if err != nil {
		t.Fatal(err)
	}
	res := runPatternTask(t, &toolrun.Adapter{Store: st}, ix, "", root, []string{"src/app.py", "src/new_mod.py"}, message(t,
		"Refactor main.",
		"write src/app.py def main():\\n    return 2",
		"write src/new_mod.py VALUE = 3",
		"append README.md not in scope"))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if res.Record.Status != contract.RunScopeViolated || !reflect.DeepEqual(res.Record.ScopeViolations, []string{"README.md"}) ||
		!reflect.DeepEqual(toolrun.FilesChanged(res.Record.Patches), []string{"src/app.py", "src/new_mod.py"}) {
		t.Fatalf("result %+v, record %+v", res.Result, res.Record)
	}

	code, out, errOut := runSalve(t, "runs", "list", "--store", dbPath)
	if code != exitOK || !strings.Contains(out, res.RunID) || !strings.Contains(out, "scope_violation") {
		t.Errorf("runs list: %d %q %q", code, out, errOut)
	}
	code, out, _ = runSalve(t, "runs", "show", res.RunID[:8], "--json", "--store", dbPath)
	var v store.RunView
	if code != exitOK || json.Unmarshal([]byte(out), &v) != nil {
		t.Fatalf("runs show --json: %d %q", code, out)
	}
	if v.Record == nil || v.Record.PatternID != "aider_refactor" || v.Record.Status != contract.RunScopeViolated ||
		len(v.Patches) != 3 || len(v.ToolRuns) != 1 || v.ToolRuns[0].Result.ExitCode != 0 {
		t.Errorf("runs show: %+v", v)
	}
	code, out, _ = runSalve(t, "runs", "show", "latest", "--store", dbPath)
	for _, want := range []string{"status:    scope_violation", "edit   README.md (OUT OF SCOPE, reverted)", "create src/new_mod.py (kept)", "ERROR"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("runs show text lacks %q:\n%s", want, out)
		}
	}
	code, patch, _ := runSalve(t, "runs", "patch", res.RunID, "--store", dbPath)
	if code != exitOK || strings.Contains(patch, "README.md") {
		t.Fatalf("runs patch: %d\n%s", code, patch)
	}
	if c, msg := shStatus(t, pristine, patch, "git", "apply", "--check", "-"); c != 0 {
		t.Fatalf("git apply --check rejects salve runs patch: %s\n%s", msg, patch)
	}
	if c, msg := shStatus(t, pristine, patch, "git", "apply", "-"); c != 0 {
		t.Fatalf("git apply: %s", msg)
	}
	got, err := os.ReadFile(filepath.Join(pristine, "src/new_mod.py"))
	if err != nil || string(got) != "VALUE = 3\n" {
		t.Errorf("patched clone: %q %v", got, err)
	}
}

func TestToolRunCommand(t *testing.T) {
	installFakeAider(t)
	root, _ := workTree(t)
	dbPath := filepath.Join(t.TempDir(), "runs.db")
	base := []string{"tool", "run", "aider", "--store", dbPath, "--cwd", root, "--model", "gpt-4"}
	run := func(msg []string, extra ...string) (int, map[string]any, string) {
		t.Helper()
		args := append(append(append([]string(nil), base...), "--message-file", message(t, msg...)), extra...)
		code, out, errOut := runSalve(t, args...)
		var m map[string]any
		if out != "" {
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatalf("stdout is not JSON: %q", out)
			}
		}
		return code, m, errOut
	}
	code, m, errOut := run([]string{"write src/app.py x = 2"}, "--", "src/app.py")
	if code != exitOK || m["success"] != true || m["exit_code"] != 0.0 || m["run_id"] == "" || m["tool_id"] != "aider" {
		t.Fatalf("success: %d %v %s", code, m, errOut)
	}
	for _, k := range []string{"tool_id", "exit_code", "stdout", "stderr", "duration_seconds", "timed_out", "started_at", "completed_at", "success", "run_id"} {
		if _, ok := m[k]; !ok {
			t.Errorf("output lacks %q", k)
		}
	}
	code, m, _ = run([]string{"exit 3"}, "--", "src/app.py")
	if code != exitFailure || m["exit_code"] != 3.0 || m["success"] != false {
		t.Errorf("tool failure: %d %v", code, m)
	}
	code, m, _ = run([]string{"sleep 30"}, "--timeout", "1", "--", "src/app.py")
	if code != exitFailure || m["exit_code"] != -1.0 || m["timed_out"] != true || m["stderr"] != "Process timed out after 1 seconds" {
		t.Errorf("timeout: %d %v", code, m)
	}
	code, m, _ = run([]string{"write README.md x"}, "--pattern", "aider_refactor", "--", "README.md")
	if code != exitFailure || m["exit_code"] != -4.0 || !strings.Contains(m["stderr"].(string), "outside path_scope") {
		t.Errorf("guardrail: %d %v", code, m)
	}
	code, m, errOut = run([]string{"append README.md y"}, "--pattern", "aider_refactor", "--", "src/app.py")
	if code != exitOK || !strings.Contains(errOut, "reverted") {
		t.Errorf("scope violation: %d %v %s", code, m, errOut)
	}
	code, _, errOut = run(nil, "--pattern", "nope", "--", "src/app.py")
	if code != exitBadInput || !strings.Contains(errOut, "unknown pattern") {
		t.Errorf("unknown pattern: %d %s", code, errOut)
	}
	code, _, _ = runSalve(t, "runs", "list", "--store", dbPath, "--json")
	if code != exitOK {
		t.Errorf("runs list --json: %d", code)
	}
	// Five runs reached the store, the rejected one too; the unknown
	// pattern never ran.
	st := openStore(t, dbPath)
	defer st.Close()
	runs, err := st.ListRuns(context.Background(), store.RunFilter{Kind: store.KindTool})
	if err != nil || len(runs) != 5 {
		t.Errorf("%d runs stored, want 5: %v", len(runs), err)
	}
}

func TestToolRunUsage(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tool", "run", "aider", "--", "a.py"}, "--model and --message-file are required"},
		{[]string{"tool", "run", "codex", "--model", "m", "--message-file", "f", "--store", db}, `unknown tool "codex"`},
		{[]string{"tool", "run", "aider", "--model", "m", "--message-file", "/no/such/prompt", "--store", db}, "message file"},
		{[]string{"tool", "run", "aider", "--model", "m", "--message-file", "f", "--timeout", "0", "--store", db}, "--timeout must be positive"},
		{[]string{"tool", "run", "aider", "--model", "m", "--message-file", "tool_test.go", "--store", db, "--", "../x.py"}, "not a relative path"},
		{[]string{"tool", "run"}, "requires at least 1 arg"},
		{[]string{"runs", "show", "nope", "--store", db}, "not found"},
		{[]string{"runs", "patch", "nope", "--store", db}, "not found"},
	} {
		code, out, errOut := runSalve(t, tc.args...)
		if code != exitBadInput || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: code %d stdout %q stderr %q, want %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

func TestNewToolRunCmdFlags(t *testing.T) {
	var got *toolRunOptions
	s := &streams{Getenv: func(string) string { return "" }}
	cmd := newToolRunCmd(s, func(o *toolRunOptions) int { got = o; return exitOK })
	cmd.SetArgs([]string{"aider", "--model", "m", "--message-file", "p.txt", "--edit-format", "whole",
		"--read", "A.md", "--read", "B.md", "--timeout", "60", "--pattern", "pid", "--cwd", "/w", "--", "a.py", "b.py"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	want := toolRunOptions{Tool: "aider", Model: "m", MessageFile: "p.txt", EditFormat: "whole", Read: []string{"A.md", "B.md"},
		Timeout: 60, Pattern: "pid", Cwd: "/w", Files: []string{"a.py", "b.py"}}
	got.Ctx, got.Stdout, got.Stderr, got.Getenv = nil, nil, nil, nil
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("options %+v\nwant    %+v", *got, want)
	}
}

func TestRunsPatchWithoutChanges(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	st := openStore(t, db)
	r, err := st.CreateRun(context.Background(), store.Run{Kind: store.KindExec, Title: "go build ./..."})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.PutArtifact(context.Background(), r.RunID, "build.log", []byte("ok\n")); err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, _, errOut := runSalve(t, "runs", "patch", r.RunID, "--store", db)
	if code != exitFailure || !strings.Contains(errOut, "kept no changes") {
		t.Errorf("patch of an exec run: %d %q", code, errOut)
	}
	code, out, _ := runSalve(t, "runs", "show", r.RunID, "--store", db)
	if code != exitOK || !strings.Contains(out, "build.log (text/plain, 3 bytes, stored)") || !strings.Contains(out, "kind:      exec") {
		t.Errorf("show exec run: %d\n%s", code, out)
	}
	code, out, _ = runSalve(t, "runs", "artifact", r.RunID, "build.log", "--store", db)
	if code != exitOK || out != "ok\n" {
		t.Errorf("runs artifact: %d %q", code, out)
	}
	code, _, errOut = runSalve(t, "runs", "artifact", r.RunID, "nope.json", "--store", db)
	if code != exitBadInput || !strings.Contains(errOut, "not found") {
		t.Errorf("missing artifact: %d %q", code, errOut)
	}
	// SALVE_STORE picks the store when --store is absent.
	t.Setenv("SALVE_STORE", db)
	code, out, _ = runSalve(t, "runs", "list")
	if code != exitOK || !strings.Contains(out, r.RunID) {
		t.Errorf("list through SALVE_STORE: %d %q", code, out)
	}
}

func TestValidateCommand(t *testing.T) {
	code, out, errOut := runSalve(t, "validate", "-C", "../../internal/aidercall", "./testdata/validate/bad")
	if code != exitFailure || strings.Count(out, "\n") != 4 || !strings.Contains(out, "bad.go:16:12: aider started with exec.CommandContext") {
		t.Errorf("validate bad: %d %q %q", code, out, errOut)
	}
	code, out, _ = runSalve(t, "validate", "-C", "../..", "./internal/store/...", "./internal/toolrun/...")
	if code != exitOK || out != "" {
		t.Errorf("validate salve: %d %q", code, out)
	}
	code, _, _ = runSalve(t, "validate", "./no/such/dir")
	if code != exitBadInput {
		t.Errorf("validate missing: %d", code)
	}
}

func TestToolList(t *testing.T) {
	code, out, _ := runSalve(t, "tool", "list")
	want := regexp.MustCompile(`(?m)^aider +` + regexp.QuoteMeta("aider --no-auto-commits --yes --no-dirty-commits --no-gitignore --model {model} --message-file {prompt_file} [--edit-format EDIT_FORMAT] [--read READ]... FILE...") + ` +AIDER_NO_AUTO_COMMITS=1$`)
	claude := regexp.MustCompile(`(?m)^claude +claude -p --bare --restricted --strict-mcp-config --no-session-persistence --tools Read,Edit --permission-mode acceptEdits \[--model MODEL\] < PROMPT +CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 `)
	if code != exitOK || !want.MatchString(out) || !claude.MatchString(out) {
		t.Errorf("tool list: %d\n%s", code, out)
	}
}

// TestWorkstreamOfAiderTasks runs several EXEC-AIDER-EDIT tasks under one
// parent run (docs/contracts/tool-adapter.md §7.2): a failing task is
// followed by one that recovers, two tasks edit the same file in turn, and
// "salve runs patch PARENT" gives one patch of everything kept, which git
// applies to the original tree.
// runPatternTask runs aider through the adapter the way a task of the
// aider_refactor pattern does: the pattern's guardrails, the file scope, a
// parent run.
func runPatternTask(t *testing.T, a *toolrun.Adapter, ix *pattern.Index, parent, root string, scope []string, prompt string) toolrun.Outcome {
	t.Helper()
	p, err := ix.Get("aider_refactor")
	if err != nil {
		t.Fatal(err)
	}
	req, err := toolrun.BuildAiderToolRequest(toolrun.AiderOptions{
		Model: "gpt-4", PromptFile: prompt, FileScope: scope,
		Workspace: contract.GitWorkspaceRefV1{WsID: "ws-acms-001", RootPath: root},
	})
	if err != nil {
		t.Fatal(err)
	}
	return a.RunAider(context.Background(), req, toolrun.RunOptions{Pattern: p, ParentRunID: parent})
}

func TestWorkstreamOfAiderTasks(t *testing.T) {
	installFakeAider(t)
	root, pristine := workTree(t)
	dbPath := filepath.Join(t.TempDir(), "runs.db")
	st := openStore(t, dbPath)
	ctx := context.Background()
	ws, err := st.CreateRun(ctx, store.Run{Kind: "workstream", Title: "ws-acms-001"})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := pattern.Load(filepath.Join(root, pattern.DefaultIndexFile), toolrun.ExecutorNames(toolrun.DefaultExecutors()))
	if err != nil {
		t.Fatal(err)
	}
	a := &toolrun.Adapter{Store: st}
	steps := []struct {
		msg  []string
		want string
	}{
		{[]string{"write src/app.py half done", "stderr model error", "exit 1"}, contract.RunFailed},
		{[]string{"write src/app.py def main():\\n    return 2"}, contract.RunSucceeded},
		{[]string{"append src/app.py print(main())", "write src/util.py X = 2"}, contract.RunSucceeded},
	}
	for i, s := range steps {
		res := runPatternTask(t, a, ix, ws.RunID, root, []string{"src/app.py", "src/util.py"}, message(t, s.msg...))
		if res.Record.Status != s.want {
			t.Fatalf("task %d: %+v", i, res.Record)
		}
		if s.want == contract.RunFailed && !strings.Contains(res.Result.Stderr, "model error") {
			t.Errorf("task %d stderr %q", i, res.Result.Stderr)
		}
	}
	if err := st.FinishRun(ctx, ws.RunID, "completed", nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, out, _ := runSalve(t, "runs", "show", ws.RunID, "--store", dbPath)
	if code != exitOK || strings.Count(out, " tool failed ")+strings.Count(out, " tool succeeded ") != 3 {
		t.Errorf("children of the workstream:\n%s", out)
	}
	code, patch, _ := runSalve(t, "runs", "patch", ws.RunID, "--store", dbPath)
	if code != exitOK {
		t.Fatalf("runs patch: %d", code)
	}
	if c, msg := shStatus(t, pristine, patch, "git", "apply", "-"); c != 0 {
		t.Fatalf("git apply: %s\n%s", msg, patch)
	}
	for _, f := range []string{"src/app.py", "src/util.py"} {
		want, _ := os.ReadFile(filepath.Join(root, f))
		got, _ := os.ReadFile(filepath.Join(pristine, f))
		if string(got) != string(want) {
			t.Errorf("%s after the workstream patch: %q, want %q", f, got, want)
		}
	}
}

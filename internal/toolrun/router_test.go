package toolrun_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/toolrun"
	"github.com/salve-dev/salve/internal/toolrun/pattern"
)

const indexYAML = `aider_refactor:
  enabled: true
  spec_path: "patterns/aider_refactor.spec.yaml"
  executor: "MINI_PIPE_executor.execute_aider_refactor"
  category: "code_modification"
  guardrails:
    allowed_tools:
      - aider
    path_scope:
      include:
        - "**/*.py"
      exclude:
        - "**/__pycache__/**"
        - "**/venv/**"
no_aider:
  enabled: true
  spec_path: "patterns/aider_refactor.spec.yaml"
  executor: toolrun.aider_edit
  guardrails:
    allowed_tools: [codex]
off:
  enabled: false
  spec_path: "patterns/aider_refactor.spec.yaml"
  executor: toolrun.aider_edit
`

// loadIndex writes PATTERN_INDEX.yaml and its spec in a folder of its own.
func loadIndex(t *testing.T) *pattern.Index {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		pattern.DefaultIndexFile:            indexYAML,
		"patterns/aider_refactor.spec.yaml": "operation_kind: EXEC-AIDER-EDIT\n",
	})
	ix, err := pattern.Load(filepath.Join(dir, pattern.DefaultIndexFile), toolrun.ExecutorNames(toolrun.DefaultExecutors()))
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func aiderTask(root, prompt string, scope ...string) contract.ExecutionRequestV1 {
	return contract.ExecutionRequestV1{
		TaskID: "task-003", OperationKind: contract.OperationAiderEdit, PatternID: "aider_refactor",
		FileScope: scope,
		Inputs:    map[string]any{"model": "gpt-4", "prompt_file": prompt, "edit_format": "diff", "read": []any{"README.md"}, "timeout_seconds": float64(60)},
		Workspace: contract.GitWorkspaceRefV1{WsID: "ws-acms-001", RootPath: root},
		Context:   map[string]any{"run_id": "run-001"},
	}
}

func TestRouterAiderEdit(t *testing.T) {
	root := newWorkTree(t)
	st, err := store.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	parent, err := st.CreateRun(context.Background(), store.Run{Kind: store.KindHeal})
	if err != nil {
		t.Fatal(err)
	}
	a := newAdapter(t)
	a.Store = st
	r := &toolrun.Router{Adapter: a, Index: loadIndex(t), ParentRunID: parent.RunID}
	dump := filepath.Join(t.TempDir(), "dump.json")
	prompt := writeMessage(t, "write src/app.py def main():\\n    return 3", "dump-args "+dump)
	res := r.Route(context.Background(), aiderTask(root, prompt, "src/app.py"))
	if !res.Success || res.Status != toolrun.ExecCompleted || res.ExitCode != 0 || res.TaskID != "task-003" || res.RunID == "" {
		t.Fatalf("result %+v", res)
	}
	if !reflect.DeepEqual(res.FilesChanged, []string{"src/app.py"}) || len(res.Patches) != 1 || !res.ToolResult.Succeeded() {
		t.Errorf("files %v patches %+v", res.FilesChanged, res.Patches)
	}
	d := readDump(t, dump)
	if d.Args.Values["edit_format"] != "diff" || !reflect.DeepEqual(d.Args.Lists["read"], []string{"README.md"}) {
		t.Errorf("aider args %+v", d.Args)
	}
	rec, err := st.RunRecord(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.PatternID != "aider_refactor" || rec.Request.Context["task_id"] != "task-003" || rec.Status != contract.RunSucceeded {
		t.Errorf("record %+v", rec)
	}
	children, err := st.ListRuns(context.Background(), store.RunFilter{ParentID: parent.RunID})
	if err != nil || len(children) != 1 || children[0].RunID != res.RunID {
		t.Errorf("children %+v %v", children, err)
	}
}

func TestRouterRejections(t *testing.T) {
	root := newWorkTree(t)
	prompt := writeMessage(t, "write src/app.py x")
	r := &toolrun.Router{Adapter: newAdapter(t), Index: loadIndex(t)}
	for _, tc := range []struct {
		name   string
		mutate func(*contract.ExecutionRequestV1)
		want   string
	}{
		{"unknown operation", func(t *contract.ExecutionRequestV1) { t.OperationKind = "EXEC-SHELL" }, `no executor for operation_kind "EXEC-SHELL"`},
		{"unknown pattern", func(t *contract.ExecutionRequestV1) { t.PatternID = "nope" }, "unknown pattern"},
		{"disabled pattern", func(t *contract.ExecutionRequestV1) { t.PatternID = "off" }, "disabled"},
		{"tool not allowed", func(t *contract.ExecutionRequestV1) { t.PatternID = "no_aider" }, `tool "aider" is not in allowed_tools`},
		{"file outside path_scope", func(t *contract.ExecutionRequestV1) { t.FileScope = []string{"README.md"} }, "outside path_scope"},
		{"excluded file", func(t *contract.ExecutionRequestV1) { t.FileScope = []string{"venv/x.py"} }, "outside path_scope"},
		{"no prompt", func(t *contract.ExecutionRequestV1) { delete(t.Inputs, "prompt_file") }, "inputs.prompt_file is required"},
		{"bad read", func(t *contract.ExecutionRequestV1) { t.Inputs["read"] = "x" }, "inputs.read must be a list"},
		{"bad model", func(t *contract.ExecutionRequestV1) { t.Inputs["model"] = 4 }, "inputs.model must be a string"},
		{"relative root", func(t *contract.ExecutionRequestV1) { t.Workspace.RootPath = "rel" }, "not an absolute path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task := aiderTask(root, prompt, "src/app.py")
			tc.mutate(&task)
			res := r.Route(context.Background(), task)
			if res.Success || res.Status != toolrun.ExecRejected || res.ExitCode != contract.ExitRejected || !strings.Contains(res.Error, tc.want) {
				t.Fatalf("result %+v, want rejection %q", res, tc.want)
			}
			if res.ToolResult.ExitCode != contract.ExitRejected || res.FilesChanged == nil || res.Patches == nil {
				t.Errorf("tool result %+v", res.ToolResult)
			}
		})
	}
	if got := readFile(t, filepath.Join(root, "src/app.py")); got != baseTree["src/app.py"] {
		t.Errorf("a rejected task changed the tree: %q", got)
	}
	// Without an index, a task that names a pattern is refused; one that
	// names none runs.
	bare := &toolrun.Router{Adapter: newAdapter(t)}
	if res := bare.Route(context.Background(), aiderTask(root, prompt, "src/app.py")); res.Status != toolrun.ExecRejected {
		t.Errorf("pattern without index: %+v", res)
	}
	task := aiderTask(root, prompt, "src/app.py")
	task.PatternID = ""
	if res := bare.Route(context.Background(), task); res.Status != toolrun.ExecCompleted {
		t.Errorf("task without pattern: %+v", res)
	}
}

func TestMapToolResult(t *testing.T) {
	for _, tc := range []struct {
		name       string
		res        contract.ToolRunResultV1
		status     string
		violations []string
		want       string
	}{
		{"completed", contract.ToolRunResultV1{ExitCode: 0}, contract.RunSucceeded, nil, toolrun.ExecCompleted},
		{"tool failed", contract.ToolRunResultV1{ExitCode: 1, Stderr: "boom"}, contract.RunFailed, nil, toolrun.ExecFailed},
		{"timeout", contract.ToolRunResultV1{ExitCode: -1, TimedOut: true}, contract.RunFailed, nil, toolrun.ExecTimedOut},
		{"rejected", contract.ToolRunResultV1{ExitCode: -4}, contract.RunRejected, nil, toolrun.ExecRejected},
		{"scope violation", contract.ToolRunResultV1{ExitCode: 0}, contract.RunScopeViolated, []string{"x"}, toolrun.ExecFailed},
		{"unsafe change", contract.ToolRunResultV1{ExitCode: toolrun.ExitUnsafeChange, Stderr: "tool noise\nsalve: unsafe"}, contract.RunScopeViolated, []string{".git/hooks/pre-commit"}, toolrun.ExecFailed},
	} {
		out := toolrun.Outcome{RunID: "r", Result: tc.res, Record: contract.RunRecordV1{Status: tc.status, ScopeViolations: tc.violations}}
		er := toolrun.MapToolResult("t", out)
		if er.Status != tc.want || er.Success != (tc.want == toolrun.ExecCompleted) || (er.Error == "") != er.Success {
			t.Errorf("%s: %+v", tc.name, er)
		}
		if tc.violations != nil && !strings.Contains(er.Error, "scope violation") {
			t.Errorf("%s: error %q", tc.name, er.Error)
		}
	}
}

func TestExecutorTable(t *testing.T) {
	names := toolrun.ExecutorNames(toolrun.DefaultExecutors())
	sort.Strings(names)
	want := []string{"MINI_PIPE_executor.execute_aider_edit", "MINI_PIPE_executor.execute_aider_refactor", toolrun.ExecutorAiderEdit}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("executor names %v (update toolrun/pattern's test list too)", names)
	}
	seen := map[string]bool{}
	for _, row := range toolrun.DefaultExecutors() {
		for _, op := range row.Operations {
			if seen[op] {
				t.Errorf("operation %s served twice", op)
			}
			seen[op] = true
		}
		if row.Run == nil {
			t.Errorf("executor %s has no Run", row.Name)
		}
	}
	for _, p := range toolrun.DefaultProfiles() {
		if p.ToolID == "" || p.Binary == "" || seen[p.ToolID] {
			t.Errorf("profile row %+v", p)
		}
		seen[p.ToolID] = true
	}
}

func TestRunsAreStored(t *testing.T) {
	root := newWorkTree(t)
	st, err := store.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := newAdapter(t)
	a.Store = st
	req := aiderRequest(t, root, []string{"src/app.py"}, "write src/app.py x = 1", "append README.md oops")
	req.Env["ANTHROPIC_API_KEY"] = "sk-ant-secret"
	req.Cmd = append(req.Cmd, "--openai-api-key", "sk-cmd-secret")
	out := a.RunAider(context.Background(), req, toolrun.RunOptions{})
	ctx := context.Background()
	v, err := st.View(ctx, out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Run.Kind != store.KindTool || v.Run.Status != contract.RunScopeViolated || v.Run.CompletedAt == "" {
		t.Errorf("run %+v", v.Run)
	}
	var sum toolrun.Summary
	if err := json.Unmarshal(v.Run.Summary, &sum); err != nil || !reflect.DeepEqual(sum.FilesChanged, []string{"src/app.py"}) ||
		!reflect.DeepEqual(sum.ScopeViolations, []string{"README.md"}) || !sum.Success {
		t.Errorf("summary %s (%v)", v.Run.Summary, err)
	}
	if len(v.Events) != len(out.Record.Events) || len(v.Patches) != 2 || len(v.ToolRuns) != 1 || v.Record == nil {
		t.Fatalf("view: %d events, %d patches, %d tool runs, record %v", len(v.Events), len(v.Patches), len(v.ToolRuns), v.Record != nil)
	}
	if v.ToolRuns[0].Request.Env["ANTHROPIC_API_KEY"] != store.Redacted || v.Record.Request.Env["ANTHROPIC_API_KEY"] != store.Redacted {
		t.Error("API key stored in clear")
	}
	if v.ToolRuns[0].Result.Stdout != out.Result.Stdout || v.Record.Status != contract.RunScopeViolated {
		t.Errorf("stored result differs")
	}
	for _, f := range []string{st.Path(), st.Path() + "-wal"} {
		raw, _ := os.ReadFile(f)
		for _, secret := range []string{"sk-ant-secret", "sk-cmd-secret"} {
			if strings.Contains(string(raw), secret) {
				t.Errorf("the secret %s is in %s", secret, f)
			}
		}
	}
}

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
)

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
		if len(row.Operations) == 0 {
			t.Errorf("executor %s serves no operation", row.Name)
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

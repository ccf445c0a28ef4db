package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/store"
)

func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func newRun(t *testing.T, s *store.Store, id string) {
	t.Helper()
	if _, err := s.CreateRun(context.Background(), store.Run{RunID: id, Kind: store.KindTool}); err != nil {
		t.Fatal(err)
	}
}

func TestEvents(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	newRun(t, s, "r1")
	ev, err := s.AddEvent(ctx, contract.LogEventV1{RunID: "r1", Message: "Running aider",
		Context: map[string]any{"tool_id": "aider", "OPENAI_API_KEY": "sk-123", "nested": map[string]any{"token": "t"}}})
	if err != nil {
		t.Fatal(err)
	}
	if ev.EventID != "id-001" || ev.Level != contract.LevelInfo || ev.TS != "2025-12-07T01:00:02.000Z" {
		t.Errorf("defaults not filled: %+v", ev)
	}
	if _, err := s.AddEvent(ctx, contract.LogEventV1{RunID: "r1", Level: contract.LevelError, Message: "reverted x"}); err != nil {
		t.Fatal(err)
	}
	evs, err := s.Events(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Message != "Running aider" || evs[1].Level != contract.LevelError {
		t.Fatalf("events %+v", evs)
	}
	ctxJS, _ := json.Marshal(evs[0].Context)
	if strings.Contains(string(ctxJS), "sk-123") || strings.Contains(string(ctxJS), `"t"`) || !strings.Contains(string(ctxJS), "aider") {
		t.Errorf("context not redacted as expected: %s", ctxJS)
	}
	if evs[1].Context == nil {
		t.Error("empty context read back as nil, want {}")
	}
	if _, err := s.AddEvent(ctx, contract.LogEventV1{RunID: "no-such-run", Message: "x"}); err == nil {
		t.Error("event for a missing run accepted (foreign keys off?)")
	}
	if _, err := s.AddEvent(ctx, contract.LogEventV1{Message: "x"}); err == nil {
		t.Error("event without run id accepted")
	}
}

func TestToolRunsRedactSecrets(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	newRun(t, s, "r1")
	req := contract.ToolRunRequestV1{
		ToolID: "aider",
		Cmd:    []string{"aider", "--yes", "--api-key", "openai=sk-abc", "--openai-api-key=sk-def", "--model", "gpt-4", "a.py"},
		Cwd:    "/w",
		Env:    map[string]string{"AIDER_NO_AUTO_COMMITS": "1", "ANTHROPIC_API_KEY": "sk-ant", "GITHUB_TOKEN": "ghp"},
	}
	res := contract.ToolRunResultV1{ToolID: "aider", ExitCode: 3, Stdout: "out"}
	if err := s.AddToolRun(ctx, "r1", "req-1", req, res); err != nil {
		t.Fatal(err)
	}
	trs, err := s.ToolRuns(ctx, "r1")
	if err != nil || len(trs) != 1 {
		t.Fatalf("tool runs %v err %v", trs, err)
	}
	got := trs[0]
	wantCmd := []string{"aider", "--yes", "--api-key", store.Redacted, "--openai-api-key=" + store.Redacted, "--model", "gpt-4", "a.py"}
	if !reflect.DeepEqual(got.Request.Cmd, wantCmd) {
		t.Errorf("cmd %q\nwant %q", got.Request.Cmd, wantCmd)
	}
	wantEnv := map[string]string{"AIDER_NO_AUTO_COMMITS": "1", "ANTHROPIC_API_KEY": store.Redacted, "GITHUB_TOKEN": store.Redacted}
	if !reflect.DeepEqual(got.Request.Env, wantEnv) {
		t.Errorf("env %v want %v", got.Request.Env, wantEnv)
	}
	if got.Result.ExitCode != 3 || got.Result.Succeeded() || got.Result.Success || got.RequestID != "req-1" {
		t.Errorf("result %+v", got)
	}
	if req.Env["ANTHROPIC_API_KEY"] != "sk-ant" || req.Cmd[3] != "openai=sk-abc" {
		t.Error("redaction modified the caller's request")
	}
}

func TestPatchesAndRecord(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	newRun(t, s, "r1")
	p, err := s.AddPatch(ctx, contract.PatchRecordV1{RunID: "r1", FilePath: "a.py", Operation: contract.PatchEdit, Diff: "--- a/a.py\n", ToolID: "aider", InScope: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.PatchID != "patch-id-001" {
		t.Errorf("patch id %q", p.PatchID)
	}
	if _, err := s.AddPatch(ctx, contract.PatchRecordV1{RunID: "r1", FilePath: "b", Operation: "rename"}); err == nil {
		t.Error("unknown operation accepted")
	}
	ps, err := s.Patches(ctx, "r1")
	if err != nil || len(ps) != 1 || !reflect.DeepEqual(ps[0], p) {
		t.Errorf("patches %+v err %v", ps, err)
	}
	if _, err := s.RunRecord(ctx, "r1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing record err %v", err)
	}
	rec := contract.RunRecordV1{RunID: "r1", ToolID: "aider", Status: contract.RunSucceeded,
		Request: contract.ToolRunRequestV1{Env: map[string]string{"MY_SECRET": "s"}}, Patches: ps}
	if err := s.PutRunRecord(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec.Status = contract.RunScopeViolated
	if err := s.PutRunRecord(ctx, rec); err != nil {
		t.Fatal(err)
	}
	got, err := s.RunRecord(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != contract.RunScopeViolated || got.Request.Env["MY_SECRET"] != store.Redacted || len(got.Patches) != 1 {
		t.Errorf("record %+v", got)
	}
}

func TestArtifacts(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	newRun(t, s, "r1")
	a, err := s.PutArtifact(ctx, "r1", "results.json", []byte(`{"ok":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if a.MediaType != "application/json" || a.Size != 11 || len(a.SHA256) != 64 {
		t.Errorf("artifact %+v", a)
	}
	// Replacing keeps one artifact of that name.
	if _, err := s.PutArtifact(ctx, "r1", "results.json", []byte(`{"ok":false}`)); err != nil {
		t.Fatal(err)
	}
	_, data, err := s.ArtifactData(ctx, "r1", "results.json")
	if err != nil || string(data) != `{"ok":false}` {
		t.Errorf("data %q err %v", data, err)
	}
	if _, err := s.PutArtifact(ctx, "r1", "empty.txt", nil); err != nil {
		t.Fatal(err)
	}
	_, data, err = s.ArtifactData(ctx, "r1", "empty.txt")
	if err != nil || len(data) != 0 {
		t.Errorf("empty artifact %q err %v", data, err)
	}

	logPath := filepath.Join(t.TempDir(), "build.log")
	if err := os.WriteFile(logPath, []byte("line 1\nline 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fa, err := s.PutArtifactFile(ctx, "r1", "build.log", logPath)
	if err != nil {
		t.Fatal(err)
	}
	if fa.Path != logPath || fa.Size != 14 || fa.MediaType != "text/plain" {
		t.Errorf("file artifact %+v", fa)
	}
	_, data, err = s.ArtifactData(ctx, "r1", "build.log")
	if err != nil || string(data) != "line 1\nline 2\n" {
		t.Errorf("file data %q err %v", data, err)
	}
	if err := os.WriteFile(logPath, []byte("changed"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.ArtifactData(ctx, "r1", "build.log"); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("changed file not reported: %v", err)
	}
	list, err := s.Artifacts(ctx, "r1")
	if err != nil || len(list) != 3 || list[0].Name != "build.log" {
		t.Errorf("list %+v err %v", list, err)
	}

	s.MaxArtifactBytes = 4
	if _, err := s.PutArtifact(ctx, "r1", "big.bin", []byte("12345")); !errors.Is(err, store.ErrTooLarge) {
		t.Errorf("big artifact err %v", err)
	}
	for _, tc := range []struct{ run, name, path string }{
		{"r1", "dir", t.TempDir()},
		{"r1", "missing", filepath.Join(t.TempDir(), "nope")},
		{"no-run", "x.log", logPath},
		{"r1", "", logPath},
	} {
		if _, err := s.PutArtifactFile(ctx, tc.run, tc.name, tc.path); err == nil {
			t.Errorf("PutArtifactFile(%q, %q, %q) succeeded", tc.run, tc.name, tc.path)
		}
	}
	if _, _, err := s.ArtifactData(ctx, "r1", "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing artifact err %v", err)
	}
}

func TestStagesAccountingAndView(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	newRun(t, s, "heal-1")
	start := time.Date(2025, 12, 7, 2, 0, 0, 0, time.UTC)
	if err := s.AddStage(ctx, "heal-1", "build", "failed", start, 1500*time.Millisecond, map[string]int{"exit_code": 2}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddStage(ctx, "heal-1", "parse", "ok", start.Add(2*time.Second), 20*time.Millisecond, nil); err != nil {
		t.Fatal(err)
	}
	cost := 0.25
	if err := s.AddAccounting(ctx, "heal-1", contract.AccountingEntry{Type: "llm", Status: "ok", Model: "m", CostUSD: &cost}); err != nil {
		t.Fatal(err)
	}
	v, err := s.View(ctx, "heal-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Stages) != 2 || v.Stages[0].DurationSeconds != 1.5 || string(v.Stages[0].Detail) != `{"exit_code":2}` ||
		v.Stages[1].StartedAt != "2025-12-07T02:00:02.000Z" || string(v.Stages[1].Detail) != "{}" {
		t.Errorf("stages %+v", v.Stages)
	}
	if len(v.Accounting) != 1 || *v.Accounting[0].CostUSD != 0.25 {
		t.Errorf("accounting %+v", v.Accounting)
	}
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{`"events":[]`, `"patches":[]`, `"tool_runs":[]`, `"artifacts":[]`, `"children":[]`} {
		if !strings.Contains(string(js), part) {
			t.Errorf("view JSON lacks %s: %s", part, js)
		}
	}
	if strings.Contains(string(js), `"record"`) {
		t.Errorf("view of a run without record has one: %s", js)
	}
	if _, err := s.View(ctx, "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("view of missing run: %v", err)
	}
}

func TestInTx(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	boom := errors.New("boom")
	err := s.InTx(ctx, func(tx *store.Store) error {
		if _, err := tx.CreateRun(ctx, store.Run{RunID: "rolled-back", Kind: store.KindTool}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InTx err %v", err)
	}
	if _, err := s.GetRun(ctx, "rolled-back"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("rolled-back run exists: %v", err)
	}
	err = s.InTx(ctx, func(tx *store.Store) error {
		if _, err := tx.CreateRun(ctx, store.Run{RunID: "kept", Kind: store.KindTool}); err != nil {
			return err
		}
		if err := tx.Close(); err == nil {
			t.Error("Close inside InTx succeeded")
		}
		// Nested InTx joins the enclosing transaction.
		return tx.InTx(ctx, func(tx2 *store.Store) error {
			_, err := tx2.AddEvent(ctx, contract.LogEventV1{RunID: "kept", Message: "inside"})
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := s.Events(ctx, "kept")
	if err != nil || len(evs) != 1 {
		t.Errorf("events after commit %v err %v", evs, err)
	}
}

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "--anthropic-api-key": true, "GITHUB_TOKEN": true, "db_password": true,
		"AWS_SECRET_ACCESS_KEY": true, "Authorization": true, "AIDER_MODEL": false, "PATH": false, "--message-file": false,
	} {
		if got := store.IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v", name, got)
		}
	}
}

package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/store"
)

// crashEnv makes the test binary act as a process that commits a run and
// then dies by SIGKILL without closing the store.
const crashEnv = "STORE_TEST_CRASH_DB"

func TestMain(m *testing.M) {
	if path := os.Getenv(crashEnv); path != "" {
		crashHelper(path)
		return
	}
	os.Exit(m.Run())
}

func crashHelper(path string) {
	s, err := store.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	ctx := context.Background()
	if _, err := s.CreateRun(ctx, store.Run{RunID: "crash-run", Kind: store.KindExec}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	if _, err := s.AddEvent(ctx, contract.LogEventV1{RunID: "crash-run", Message: "before the crash"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	fmt.Println("committed")
	p, _ := os.FindProcess(os.Getpid())
	_ = p.Kill()
	time.Sleep(time.Minute)
}

// fixedClock returns a clock that starts at a fixed instant and moves one
// second per reading.
func fixedClock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2025, 12, 7, 1, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

func openTest(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(filepath.Join(t.TempDir(), "state", "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	s.Now = fixedClock()
	n := 0
	s.NewID = func() string { n++; return fmt.Sprintf("id-%03d", n) }
	return s
}

func TestOpenAppliesMigrationsAndWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "runs.db")
	s, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v, err := s.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v != store.LatestSchemaVersion() || v < 1 {
		t.Errorf("schema version %d, latest %d", v, store.LatestSchemaVersion())
	}
	if _, err := s.CreateRun(ctx, store.Run{Kind: store.KindTool}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Errorf("no WAL file next to the database: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopening applies nothing twice and keeps the data.
	s2, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	runs, err := s2.ListRuns(ctx, store.RunFilter{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("after reopen: %v runs, err %v", len(runs), err)
	}
	if v2, _ := s2.SchemaVersion(ctx); v2 != v {
		t.Errorf("version changed on reopen: %d -> %d", v, v2)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	s, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// A later salve recorded a migration this one does not know. Write the
	// row through a second handle of the real driver.
	raw := openRaw(t, path)
	if _, err := raw.Exec("INSERT INTO schema_migrations(version, name, applied_at) VALUES (9999, '9999_future', 'x')"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	_, err = store.Open(path)
	if !errors.Is(err, store.ErrSchemaTooNew) {
		t.Fatalf("err = %v, want ErrSchemaTooNew", err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a database ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"", filepath.Join(notDir, "runs.db"), garbage} {
		if s, err := store.Open(path); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", path)
		}
	}
}

func TestRunLifecycle(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	r, err := s.CreateRun(ctx, store.Run{Kind: store.KindHeal, Title: "heal demo"})
	if err != nil {
		t.Fatal(err)
	}
	want := store.Run{RunID: "id-001", Kind: store.KindHeal, Status: store.StatusRunning, Title: "heal demo",
		StartedAt: "2025-12-07T01:00:01.000Z", Summary: []byte("{}")}
	if fmt.Sprint(r) != fmt.Sprint(want) {
		t.Errorf("created %+v\nwant    %+v", r, want)
	}
	child, err := s.CreateRun(ctx, store.Run{Kind: store.KindTool, ParentID: r.RunID})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, r.RunID, "succeeded", map[string]int{"bugs": 2}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetRun(ctx, r.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "succeeded" || got.CompletedAt != "2025-12-07T01:00:03.000Z" || string(got.Summary) != `{"bugs":2}` {
		t.Errorf("finished run %+v", got)
	}
	if err := s.SetSummary(ctx, child.RunID, []byte(`{"exit_code":0}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSummary(ctx, child.RunID, []byte(`{bad`)); err == nil {
		t.Error("SetSummary accepted invalid JSON")
	}
	for _, tc := range []struct {
		name string
		f    store.RunFilter
		want []string
	}{
		{"all newest first", store.RunFilter{}, []string{"id-002", "id-001"}},
		{"by kind", store.RunFilter{Kind: store.KindTool}, []string{"id-002"}},
		{"by status", store.RunFilter{Status: "succeeded"}, []string{"id-001"}},
		{"by parent", store.RunFilter{ParentID: "id-001"}, []string{"id-002"}},
		{"limit", store.RunFilter{Limit: 1}, []string{"id-002"}},
		{"no match", store.RunFilter{Kind: "nope"}, nil},
	} {
		runs, err := s.ListRuns(ctx, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range runs {
			ids = append(ids, r.RunID)
		}
		if fmt.Sprint(ids) != fmt.Sprint(tc.want) {
			t.Errorf("%s: got %v want %v", tc.name, ids, tc.want)
		}
	}
	for _, id := range []string{"missing"} {
		if _, err := s.GetRun(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("GetRun(%q) err %v", id, err)
		}
		if err := s.FinishRun(ctx, id, "failed", nil); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("FinishRun(%q) err %v", id, err)
		}
	}
	if _, err := s.CreateRun(ctx, store.Run{Kind: store.KindTool, RunID: "id-001"}); err == nil {
		t.Error("duplicate run id accepted")
	}
	if _, err := s.CreateRun(ctx, store.Run{}); err == nil {
		t.Error("run without kind accepted")
	}
	// Deleting the parent keeps the child, unlinked.
	if err := s.DeleteRun(ctx, r.RunID); err != nil {
		t.Fatal(err)
	}
	c, err := s.GetRun(ctx, child.RunID)
	if err != nil || c.ParentID != "" {
		t.Errorf("child after parent delete: %+v %v", c, err)
	}
}

func TestResolveRunID(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	// "build" comes after three runs it is a prefix of: the exact id must
	// still win over the prefix matches.
	for _, id := range []string{"abc-111", "abc-222", "build-1", "build-2", "build-3", "build", "xyz_1", "x%z"} {
		if _, err := s.CreateRun(ctx, store.Run{RunID: id, Kind: store.KindExec}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		ref, want string
		err       error
	}{
		{"abc-111", "abc-111", nil},
		{"abc-2", "abc-222", nil},
		{"abc", "", store.ErrAmbiguous},
		{"build", "build", nil},
		{"build-", "", store.ErrAmbiguous},
		{"x%", "x%z", nil},
		{"xyz_", "xyz_1", nil},
		{"zzz", "", store.ErrNotFound},
		{"", "", store.ErrNotFound},
		{"latest", "x%z", nil},
	} {
		got, err := s.ResolveRunID(ctx, tc.ref)
		if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("ResolveRunID(%q) = %q, %v; want %q, %v", tc.ref, got, err, tc.want, tc.err)
		}
	}
}

func TestResolveLatestOnEmptyStore(t *testing.T) {
	s := openTest(t)
	if _, err := s.ResolveRunID(context.Background(), "latest"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("err %v", err)
	}
}

func TestCrashKeepsCommittedRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{
		Path:    exe,
		Args:    []string{"-test.run=^$"},
		Env:     sandbox.MergeEnv(sandbox.AllowedEnv(), map[string]string{crashEnv: path}),
		Timeout: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Signal != "killed" || !strings.Contains(string(res.Stdout), "committed") {
		t.Fatalf("helper did not commit and die by SIGKILL: code %d signal %q stdout %q stderr %q",
			res.ExitCode, res.Signal, res.Stdout, res.Stderr)
	}
	s, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	evs, err := s.Events(context.Background(), "crash-run")
	if err != nil || len(evs) != 1 || evs[0].Message != "before the crash" {
		t.Fatalf("after crash: events %+v err %v", evs, err)
	}
}

func TestConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	ctx := context.Background()
	// Two Stores on one file stand for two salve processes.
	var stores []*store.Store
	for range 2 {
		s, err := store.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores = append(stores, s)
	}
	if _, err := stores[0].CreateRun(ctx, store.Run{RunID: "shared", Kind: store.KindExec}); err != nil {
		t.Fatal(err)
	}
	const perWriter = 40
	var wg sync.WaitGroup
	errs := make(chan error, 4*perWriter)
	for w := range 4 {
		wg.Add(1)
		go func(s *store.Store) {
			defer wg.Done()
			for i := range perWriter {
				_, err := s.AddEvent(ctx, contract.LogEventV1{RunID: "shared", Message: fmt.Sprintf("w%d-%d", w, i)})
				if err != nil {
					errs <- err
				}
			}
		}(stores[w%2])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	evs, err := stores[1].Events(ctx, "shared")
	if err != nil || len(evs) != 4*perWriter {
		t.Fatalf("got %d events, err %v", len(evs), err)
	}
}

func TestDefaultPath(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"SALVE_STORE": "/x/runs.db", "XDG_STATE_HOME": "/s", "HOME": "/h"}, "/x/runs.db"},
		{map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"}, "/s/salve/runs.db"},
		{map[string]string{"HOME": "/h"}, "/h/.local/state/salve/runs.db"},
		{map[string]string{}, ""},
	} {
		got, err := store.DefaultPath(func(k string) string { return tc.env[k] })
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("DefaultPath(%v) = %q, %v; want %q", tc.env, got, err, tc.want)
		}
	}
}

// TestOpenOddPaths opens stores whose paths hold characters that mean
// something in a SQLite URI.
func TestOpenOddPaths(t *testing.T) {
	for _, name := range []string{"a b", "x#y", "q?r", "p%20s", "ü"} {
		p := filepath.Join(t.TempDir(), name, "runs.db")
		s, err := store.Open(p)
		if err != nil {
			t.Errorf("%q: %v", name, err)
			continue
		}
		if _, err := s.CreateRun(context.Background(), store.Run{Kind: store.KindExec}); err != nil {
			t.Error(err)
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%q: the database is not at %s: %v", name, p, err)
		}
	}
}

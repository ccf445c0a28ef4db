package registry_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/salve-dev/salve/internal/registry"
)

// clock is a settable clock for DB.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

// mustOpen opens a registry in a temporary directory with a pinned clock.
func mustOpen(tb testing.TB, path string, clk *clock) *registry.DB {
	tb.Helper()
	db := registry.NewDB(path)
	if clk != nil {
		db.Now = clk.Now
	}
	if err := db.Open(context.Background()); err != nil {
		tb.Fatalf("open %s: %v", path, err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("close: %v", err)
		}
	})
	return db
}

// rawQuery reads one value from the file through a separate connection.
func rawQuery(t *testing.T, path, query string, dest any) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(query).Scan(dest); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func TestRegisterUpserts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registry.db")
	t0 := time.Date(2026, 11, 23, 3, 0, 0, 123_000_000, time.UTC)
	clk := &clock{t: t0}
	db := mustOpen(t, path, clk)
	ctx := context.Background()

	first, err := db.Register(ctx, registry.Tool{
		Name: "git_agent", Version: "1.0.0", Description: "git",
		Actions: []string{"git_status", "git_log"}, ExecutablePath: "/bin/git_agent",
	})
	if err != nil {
		t.Fatal(err)
	}
	if first.RegistrationCount != 1 || !first.CreatedAt.Equal(t0) || !first.UpdatedAt.Equal(t0) {
		t.Errorf("first registration: %+v", first)
	}

	t1 := t0.Add(90 * time.Second)
	clk.Set(t1)
	second, err := db.Register(ctx, registry.Tool{
		Name: "git_agent", Version: "1.1.0", Description: "git v2",
		Actions: []string{"git_status"}, ExecutablePath: "/usr/bin/git_agent",
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Register(ctx, registry.Tool{Name: "aider"}); err != nil {
		t.Fatal(err)
	}

	got, err := db.Get(ctx, "git_agent")
	if err != nil {
		t.Fatal(err)
	}
	want := registry.Tool{
		Name: "git_agent", Version: "1.1.0", Description: "git v2",
		Actions: []string{"git_status"}, ExecutablePath: "/usr/bin/git_agent",
		RegistrationCount: 2, CreatedAt: t0, UpdatedAt: t1,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Get after upsert:\n got %+v\nwant %+v", got, want)
	}
	if !reflect.DeepEqual(second, want) {
		t.Errorf("Register returned %+v, want %+v", second, want)
	}

	list, err := db.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "aider" || list[1].Name != "git_agent" {
		t.Errorf("List = %+v, want aider then git_agent", list)
	}
	if list[0].Actions == nil || len(list[0].Actions) != 0 {
		t.Errorf("nil actions should be stored as []: %#v", list[0].Actions)
	}

	var stored string
	rawQuery(t, path, "SELECT created_at FROM tool_registry WHERE name = 'git_agent'", &stored)
	if stored != "2026-11-23T03:00:00.123Z" {
		t.Errorf("created_at stored as %q, want RFC 3339 UTC with milliseconds", stored)
	}
}

func TestGetMissing(t *testing.T) {
	db := mustOpen(t, filepath.Join(t.TempDir(), "r.db"), nil)
	_, err := db.Get(context.Background(), "nope")
	if !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("Get(nope) = %v, want ErrNotFound", err)
	}
}

func TestRegisterRejects(t *testing.T) {
	ctx := context.Background()
	if _, err := registry.NewDB("x.db").Register(ctx, registry.Tool{Name: "a"}); err == nil {
		t.Error("Register on a DB that is not open succeeded")
	}
	db := mustOpen(t, filepath.Join(t.TempDir(), "r.db"), nil)
	if _, err := db.Register(ctx, registry.Tool{}); err == nil {
		t.Error("Register with an empty name succeeded")
	}
}

func TestOpenSettingsAndMigrations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "dirs", "r.db")
	db := mustOpen(t, path, nil)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// A second open must not apply the migration again.
	mustOpen(t, path, nil)

	var mode string
	rawQuery(t, path, "PRAGMA journal_mode", &mode)
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal (persistent)", mode)
	}
	var n int
	rawQuery(t, path, "SELECT COUNT(*) FROM tool_registry_migrations", &n)
	if n != 1 {
		t.Errorf("%d migrations recorded, want 1", n)
	}
}

func TestOpenKeepsOtherTables(t *testing.T) {
	// The seed's memory.db is shared with the orchestrator's own tables.
	path := filepath.Join(t.TempDir(), "memory.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("CREATE TABLE memories (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO memories (body) VALUES ('keep me')"); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	db := mustOpen(t, path, nil)
	if _, err := db.Register(context.Background(), registry.Tool{Name: "git_agent"}); err != nil {
		t.Fatal(err)
	}
	var body string
	rawQuery(t, path, "SELECT body FROM memories", &body)
	if body != "keep me" {
		t.Errorf("memories table changed: %q", body)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	notSQLite := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(notSQLite, []byte("this is not an SQLite database, not at all, no"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path string }{
		{"empty path", ""},
		{"parent is a file", filepath.Join(file, "r.db")},
		{"path is a directory", dir},
		{"not a database", notSQLite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := registry.NewDB(tc.path)
			if err := db.Open(context.Background()); err == nil {
				db.Close()
				t.Fatalf("Open(%q) succeeded", tc.path)
			}
		})
	}
}

// TestConcurrentRegister registers from 50 connections at once into a fresh
// file; each must succeed, and the count must show all of them. The
// cross-process version, with 50 real git_agent processes, is in
// cmd/git_agent.
func TestConcurrentRegister(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			db := registry.NewDB(path)
			if err := db.Open(context.Background()); err != nil {
				errs <- fmt.Errorf("open %d: %w", i, err)
				return
			}
			defer db.Close()
			if _, err := db.Register(context.Background(), registry.Tool{Name: "git_agent", Version: fmt.Sprint(i)}); err != nil {
				errs <- fmt.Errorf("register %d: %w", i, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	db := mustOpen(t, path, nil)
	got, err := db.Get(context.Background(), "git_agent")
	if err != nil {
		t.Fatal(err)
	}
	if got.RegistrationCount != n {
		t.Errorf("registration_count = %d, want %d", got.RegistrationCount, n)
	}
}

func TestResolvePath(t *testing.T) {
	env := func(m map[string]string) func(string) string {
		return func(k string) string { return m[k] }
	}
	for _, tc := range []struct {
		name     string
		explicit string
		env      map[string]string
		want     string
	}{
		{"flag wins", "../../data/memory.db", map[string]string{registry.EnvDB: "/env.db", "HOME": "/home/u"}, "../../data/memory.db"},
		{"env next", "", map[string]string{registry.EnvDB: "/env.db", "HOME": "/home/u"}, "/env.db"},
		{"xdg data home", "", map[string]string{"XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}, "/xdg/salve/registry.db"},
		{"relative xdg ignored", "", map[string]string{"XDG_DATA_HOME": "rel", "HOME": "/home/u"}, "/home/u/.local/share/salve/registry.db"},
		{"home", "", map[string]string{"HOME": "/home/u"}, "/home/u/.local/share/salve/registry.db"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := registry.ResolvePath(tc.explicit, env(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			if got != filepath.FromSlash(tc.want) {
				t.Errorf("ResolvePath = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSeedLayout opens the seed's ../../data/memory.db from a nested working
// directory, the way the original agent found it.
func TestSeedLayout(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, "agents", "git_agent")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	path, err := registry.ResolvePath("../../data/memory.db", nil)
	if err != nil {
		t.Fatal(err)
	}
	db := mustOpen(t, path, nil)
	if _, err := db.Register(context.Background(), registry.Tool{Name: "git_agent"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "data", "memory.db")); err != nil {
		t.Fatalf("memory.db not created at <root>/data: %v", err)
	}
}

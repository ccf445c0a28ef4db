package registry_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/salve-dev/salve/internal/registry"
	"github.com/salve-dev/salve/internal/sqlitedb/sqlitedbtest"
)

func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "registry.db")
	db, err := registry.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Register(ctx, registry.Tool{Name: "git_agent", Version: "1", Actions: []string{"git_status"}, ExecutablePath: "/bin/true"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before := sqlitedbtest.FolderState(t, dir)
	ro, err := registry.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := ro.List(ctx)
	if err != nil || len(tools) != 1 || tools[0].Name != "git_agent" {
		t.Fatalf("List = %v, %v", tools, err)
	}
	if _, err := ro.Register(ctx, registry.Tool{Name: "x", Version: "1", ExecutablePath: "/bin/true"}); err == nil {
		t.Error("a read-only registry accepted a registration")
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if after := sqlitedbtest.FolderState(t, dir); after != before {
		t.Errorf("reading changed the registry's folder:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	sqlitedbtest.ReadOnlyRefuses(t, dir, registry.ErrNoRegistry, func(p string) error {
		ro, err := registry.OpenReadOnly(ctx, p)
		if err == nil {
			_ = ro.Close()
		}
		return err
	})
}

package registry_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/registry"
)

func folderState(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		lines = append(lines, fmt.Sprintf("%s %x", e.Name(), sha256.Sum256(b)))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

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
	before := folderState(t, dir)
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
	if after := folderState(t, dir); after != before {
		t.Errorf("reading changed the registry's folder:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	missing := filepath.Join(dir, "sub", "none.db")
	if _, err := registry.OpenReadOnly(ctx, missing); !errors.Is(err, registry.ErrNoRegistry) {
		t.Errorf("missing: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Error("OpenReadOnly created a folder")
	}
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{notes, dir, "/dev/zero"} {
		if _, err := registry.OpenReadOnly(ctx, p); err == nil {
			t.Errorf("OpenReadOnly(%s) succeeded", p)
		}
	}
}

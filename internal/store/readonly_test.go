package store_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/salve-dev/salve/internal/store"
)

// dirState hashes every file of dir with its name, size and mode.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		info, _ := e.Info()
		lines = append(lines, e.Name()+" "+info.Mode().String()+" "+fmt.Sprintf("%x", sha256.Sum256(b)))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "runs.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateRun(ctx, store.Run{RunID: "r1", Kind: "exec", Status: "running"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	before := dirState(t, dir)
	ro, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := ro.ListRuns(ctx, store.RunFilter{})
	if err != nil || len(runs) != 1 || runs[0].RunID != "r1" {
		t.Fatalf("ListRuns = %v, %v", runs, err)
	}
	if _, err := ro.CreateRun(ctx, store.Run{RunID: "r2", Kind: "exec", Status: "running"}); err == nil {
		t.Error("a read-only store accepted a write")
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if after := dirState(t, dir); after != before {
		t.Errorf("reading changed the store's folder:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	// A missing file is an error, and is not created.
	missing := filepath.Join(dir, "sub", "none.db")
	if _, err := store.OpenReadOnly(ctx, missing); !errors.Is(err, store.ErrNoStore) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Error("OpenReadOnly created the folder")
	}
	// Not a store, and not a regular file.
	other := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(other, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{other, dir, "/dev/zero"} {
		if _, err := store.OpenReadOnly(ctx, p); err == nil {
			t.Errorf("OpenReadOnly(%s) succeeded", p)
		}
	}
}

// TestOpenReadOnlyBesideAWriter reads a store that a writer holds open, with
// changes still in its write-ahead log.
func TestOpenReadOnlyBesideAWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "runs.db")
	w, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.CreateRun(ctx, store.Run{RunID: "live", Kind: "heal", Status: "running"}); err != nil {
		t.Fatal(err)
	}
	ro, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if id, err := ro.ResolveRunID(ctx, "live"); err != nil || id != "live" {
		t.Fatalf("ResolveRunID = %q, %v", id, err)
	}
	if _, err := w.CreateRun(ctx, store.Run{RunID: "later", Kind: "heal", Status: "running"}); err != nil {
		t.Fatalf("the writer is blocked by the reader: %v", err)
	}
}

// TestOpenRefusesNonRegular: a FIFO, a device or a folder given as the store
// is refused with a clear error, never opened.
func TestOpenRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, "/dev/zero", dir} {
		if _, err := store.Open(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Open(%s) = %v", p, err)
		}
	}
}

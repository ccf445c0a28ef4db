package store_test

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/salve-dev/salve/internal/sqlitedb/sqlitedbtest"
	"github.com/salve-dev/salve/internal/store"
)

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
	before := sqlitedbtest.FolderState(t, dir)
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
	if after := sqlitedbtest.FolderState(t, dir); after != before {
		t.Errorf("reading changed the store's folder:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	sqlitedbtest.ReadOnlyRefuses(t, dir, store.ErrNoStore, func(p string) error {
		ro, err := store.OpenReadOnly(ctx, p)
		if err == nil {
			_ = ro.Close()
		}
		return err
	})
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

package sqlitedb_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/sqlitedb"
	"github.com/salve-dev/salve/internal/sqlitedb/sqlitedbtest"
)

func TestDSN(t *testing.T) {
	full := sqlitedb.Options{BusyTimeout: 5 * time.Second, Synchronous: "FULL", WAL: true}
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"read-write", sqlitedb.DSN("/d/runs.db", full),
			"file:/d/runs.db?_pragma=busy_timeout%285000%29&_pragma=foreign_keys%281%29&_pragma=journal_mode%28WAL%29&_pragma=synchronous%28FULL%29&_txlock=immediate"},
		{"read-write without WAL or synchronous", sqlitedb.DSN("rel.db", sqlitedb.Options{BusyTimeout: time.Second}),
			"file:rel.db?_pragma=busy_timeout%281000%29&_pragma=foreign_keys%281%29&_txlock=immediate"},
		{"escaped path", sqlitedb.DSN("/a b/x#y/q?r/p%20s/ü.db", sqlitedb.Options{}),
			"file:/a b/x%23y/q%3fr/p%2520s/ü.db?_pragma=busy_timeout%280%29&_pragma=foreign_keys%281%29&_txlock=immediate"},
		{"read-only", sqlitedb.ReadOnlyDSN("/d/r.db", 5*time.Second, false),
			"file:/d/r.db?_pragma=busy_timeout%285000%29&_pragma=query_only%281%29&mode=ro"},
		{"read-only immutable", sqlitedb.ReadOnlyDSN("/d/r.db", 0, true),
			"file:/d/r.db?_pragma=busy_timeout%280%29&_pragma=query_only%281%29&immutable=1&mode=ro"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
}

// TestOpen opens real files: the settings take effect, odd names work, a
// read-only open refuses writes and leaves the folder as it was.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	o := sqlitedb.Options{BusyTimeout: 1234 * time.Millisecond, Synchronous: "NORMAL", WAL: true, DirMode: 0o700}
	for _, name := range []string{"plain", "a b", "x#y", "q?r", "p%20s", "ü"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), name)
			path := filepath.Join(dir, "t.db")
			db, err := sqlitedb.Open(path, o)
			if err != nil {
				t.Fatal(err)
			}
			if err := sqlitedb.Check(ctx, db, o); err != nil {
				t.Fatal(err)
			}
			var sync int
			if err := db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil || sync != 1 {
				t.Errorf("synchronous = %d, %v; want 1 (NORMAL)", sync, err)
			}
			if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
				t.Errorf("folder: %v, %v; want mode 0700", st, err)
			}
			if _, err := db.ExecContext(ctx, "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (7)"); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("the file is not where asked: %v", err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			before := sqlitedbtest.FolderState(t, dir)
			ro, err := sqlitedb.OpenReadOnly(path, time.Second, false)
			if err != nil {
				t.Fatal(err)
			}
			var x int
			if err := ro.QueryRowContext(ctx, "SELECT x FROM t").Scan(&x); err != nil || x != 7 {
				t.Errorf("read = %d, %v", x, err)
			}
			if _, err := ro.ExecContext(ctx, "INSERT INTO t VALUES (8)"); err == nil {
				t.Error("a read-only open accepted a write")
			}
			if err := ro.Close(); err != nil {
				t.Fatal(err)
			}
			if after := sqlitedbtest.FolderState(t, dir); after != before {
				t.Errorf("reading changed the folder:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// TestCheckRefuses sees Check report a setting that is not in effect.
func TestCheckRefuses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	noWAL, err := sqlitedb.Open(path, sqlitedb.Options{BusyTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer noWAL.Close()
	if err := sqlitedb.Check(ctx, noWAL, sqlitedb.Options{BusyTimeout: time.Second}); !errors.Is(err, sqlitedb.ErrSetting) {
		t.Errorf("without WAL: %v, want ErrSetting", err)
	}
	wal, err := sqlitedb.Open(filepath.Join(t.TempDir(), "w.db"), sqlitedb.Options{BusyTimeout: time.Second, WAL: true})
	if err != nil {
		t.Fatal(err)
	}
	defer wal.Close()
	if err := sqlitedb.Check(ctx, wal, sqlitedb.Options{BusyTimeout: 2 * time.Second}); !errors.Is(err, sqlitedb.ErrSetting) {
		t.Errorf("other busy timeout: %v, want ErrSetting", err)
	}
}

// TestOpenBadPaths refuses what is not a regular file, and a read-only open
// of a missing file creates nothing.
func TestOpenBadPaths(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		open func() error
	}{
		{"read-write folder", func() error { _, err := sqlitedb.Open(dir, sqlitedb.Options{}); return err }},
		{"read-write device", func() error { _, err := sqlitedb.Open("/dev/zero", sqlitedb.Options{}); return err }},
		{"read-only folder", func() error { _, err := sqlitedb.OpenReadOnly(dir, 0, false); return err }},
		{"read-only device", func() error { _, err := sqlitedb.OpenReadOnly("/dev/zero", 0, true); return err }},
	} {
		if err := tc.open(); !errors.Is(err, sqlitedb.ErrNotRegular) {
			t.Errorf("%s: %v, want ErrNotRegular", tc.name, err)
		}
	}
	sqlitedbtest.ReadOnlyRefuses(t, dir, fs.ErrNotExist, func(path string) error {
		db, err := sqlitedb.OpenReadOnly(path, 0, false)
		if err != nil {
			return err
		}
		defer db.Close()
		return db.Ping() // a file that is not a database fails on first use
	})
}

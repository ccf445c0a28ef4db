// Package sqlitedb is the one way salve opens its SQLite files (the run
// store, the tool registry and ai-agent's cache) with the pure-Go driver modernc.org/sqlite:
// the data source name, the settings every read-write connection carries
// (busy timeout, foreign keys, BEGIN IMMEDIATE, synchronous level, WAL), the
// check that they took effect, and the read-only open that leaves a file and
// its folder exactly as it found them.
package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Driver is the database/sql driver name of modernc.org/sqlite.
const Driver = "sqlite"

// ErrSetting is wrapped by [Check] when a connection setting (journal mode,
// busy timeout, foreign keys) did not take effect.
var ErrSetting = errors.New("sqlitedb: connection setting not in effect")

// ErrNotRegular is wrapped by [Open] and [OpenReadOnly] when the path names
// something other than a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Options are the settings of a read-write open. Every connection also has
// foreign keys on and takes the write lock at BEGIN (_txlock=immediate), so
// two writers queue on the busy timeout instead of failing on a lock
// upgrade.
type Options struct {
	// BusyTimeout is how long SQLite waits for another connection's lock.
	BusyTimeout time.Duration
	// Synchronous is SQLite's synchronous level (FULL, NORMAL); empty
	// leaves SQLite's default.
	Synchronous string
	// WAL sets journal_mode=WAL on every connection the pool opens. A
	// caller that switches the mode itself (to retry while another process
	// holds the lock) leaves it false.
	WAL bool
	// DirMode is the mode of a missing parent folder, which [Open] creates;
	// zero means 0o755.
	DirMode fs.FileMode
}

// escapePath makes path the path part of a file: URI. SQLite decodes %XX
// in it, so the characters that would end the path or start an escape are
// escaped, and nothing else.
func escapePath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
}

// dsn joins a path and its query into the driver's data source name.
func dsn(path string, q url.Values) string {
	return "file:" + escapePath(path) + "?" + q.Encode()
}

// ms is a duration in whole milliseconds, as SQLite's pragmas take it.
func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

// DSN returns the data source name of a read-write open of path with o.
func DSN(path string, o Options) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+ms(o.BusyTimeout)+")")
	q.Add("_pragma", "foreign_keys(1)")
	if o.WAL {
		q.Add("_pragma", "journal_mode(WAL)")
	}
	if o.Synchronous != "" {
		q.Add("_pragma", "synchronous("+o.Synchronous+")")
	}
	q.Set("_txlock", "immediate")
	return dsn(path, q)
}

// ReadOnlyDSN returns the data source name of a read-only open: mode=ro
// makes SQLite open the file O_RDONLY, query_only refuses any write
// statement.
//
// Reading a WAL database normally creates its -wal and -shm files beside
// it, and a read-only connection cannot remove them again. With immutable
// set the file is read without those files or locks; [OpenReadOnly] sets it
// only when there is no -wal file (no writer has changes that are not in the
// main file). Should a writer start meanwhile, its changes go to a new -wal
// file first, so the reader sees the state of when it opened; at worst a
// checkpoint during the read makes it fail, never the file.
func ReadOnlyDSN(path string, busy time.Duration, immutable bool) string {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "busy_timeout("+ms(busy)+")")
	q.Add("_pragma", "query_only(1)")
	if immutable {
		q.Set("immutable", "1")
	}
	return dsn(path, q)
}

// Open opens (creating when needed) the database at path for reading and
// writing, creating its parent folder with o.DirMode. path must be missing
// or a regular file. Open only prepares the pool; call [Check] to see that
// the settings took effect. The caller closes the *sql.DB.
func Open(path string, o Options) (*sql.DB, error) {
	if path == "" {
		return nil, errors.New("empty path")
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	mode := o.DirMode
	if mode == 0 {
		mode = 0o755
	}
	if err := os.MkdirAll(filepath.Dir(path), mode); err != nil {
		return nil, fmt.Errorf("create folder: %w", err)
	}
	return sql.Open(Driver, DSN(path, o))
}

// OpenReadOnly opens the existing regular file at path for reading only:
// no folder or file is created and nothing is written. A missing file is an
// error wrapping [fs.ErrNotExist]. Unless live, a file with no -wal beside
// it is opened immutable (see [ReadOnlyDSN]); a live reader, which stays
// open while writers add to the file, never is (SQLite may then create the
// -wal and -shm files, as any reader of a WAL database does).
func OpenReadOnly(path string, busy time.Duration, live bool) (*sql.DB, error) {
	if path == "" {
		return nil, errors.New("empty path")
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	_, werr := os.Stat(path + "-wal")
	return sql.Open(Driver, ReadOnlyDSN(path, busy, !live && errors.Is(werr, fs.ErrNotExist)))
}

// Check verifies that a read-write connection has the settings of o in
// effect: journal mode WAL, the busy timeout and foreign keys. An unmet
// setting is an error wrapping [ErrSetting].
func Check(ctx context.Context, db *sql.DB, o Options) error {
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return fmt.Errorf("read journal_mode: %w", err)
	}
	if mode != "wal" {
		return fmt.Errorf("journal_mode is %q, want wal: %w", mode, ErrSetting)
	}
	var busy int64
	if err := db.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy); err != nil {
		return fmt.Errorf("read busy_timeout: %w", err)
	}
	if want := o.BusyTimeout.Milliseconds(); busy != want {
		return fmt.Errorf("busy_timeout is %d ms, want %d: %w", busy, want, ErrSetting)
	}
	var fk int
	if err := db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
		return fmt.Errorf("read foreign_keys: %w", err)
	}
	if fk != 1 {
		return fmt.Errorf("foreign_keys is %d, want 1: %w", fk, ErrSetting)
	}
	return nil
}

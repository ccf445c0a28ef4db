package registry

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
)

// ErrNoRegistry is wrapped by [OpenReadOnly] when the file does not exist.
var ErrNoRegistry = errors.New("registry: no registry file there")

// OpenReadOnly opens an existing registry for reading only (salve registry
// list): SQLite's mode=ro and query_only, no folder or file created, no
// migration applied, nothing written. The file must be a regular file with
// every migration this build knows already applied.
func OpenReadOnly(ctx context.Context, path string) (_ *DB, err error) {
	if path == "" {
		return nil, errors.New("registry: open: empty database path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("registry: open %s: resolve path: %w", path, err)
	}
	st, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("registry: open %s: %w", abs, ErrNoRegistry)
	}
	if err != nil {
		return nil, fmt.Errorf("registry: open %s: %w", abs, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("registry: open %s: not a regular file", abs)
	}
	db := NewDB(path)
	_, werr := os.Stat(abs + "-wal")
	sqldb, err := sql.Open("sqlite", db.dsnReadOnly(abs, errors.Is(werr, fs.ErrNotExist)))
	if err != nil {
		return nil, fmt.Errorf("registry: open %s: %w", abs, err)
	}
	defer func() {
		if err != nil {
			_ = sqldb.Close()
		}
	}()
	sqldb.SetMaxOpenConns(1)
	names, err := migrations()
	if err != nil {
		return nil, err
	}
	done, err := applied(ctx, sqldb)
	if err != nil {
		return nil, fmt.Errorf("registry: open %s: not a tool registry: %w", abs, err)
	}
	if !allDone(names, done) {
		return nil, fmt.Errorf("registry: open %s: written by an older salve; the next git_agent start upgrades it", abs)
	}
	db.db = sqldb
	return db, nil
}

// dsnReadOnly is the data source name of a read-only open. Without a -wal
// file beside it the database is opened immutable, so that reading does not
// leave -wal and -shm files behind (see store.OpenReadOnly for why that is
// safe for a reader).
func (db *DB) dsnReadOnly(abs string, immutable bool) string {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "query_only(1)")
	q.Add("_pragma", "busy_timeout("+strconv.FormatInt(db.BusyTimeout.Milliseconds(), 10)+")")
	if immutable {
		q.Set("immutable", "1")
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	return u.String()
}

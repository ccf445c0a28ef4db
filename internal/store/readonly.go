package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
)

// ErrNoStore is wrapped by [OpenReadOnly] when the file does not exist.
var ErrNoStore = errors.New("run store not found (nothing has been recorded there yet)")

// ErrSchemaTooOld is wrapped by [OpenReadOnly] when the database was written
// by an older salve and needs migrations that a read-only open cannot apply.
var ErrSchemaTooOld = errors.New("store: database schema is older than this salve")

// OpenReadOnly opens an existing run store for reading only: the file is
// opened with SQLite's mode=ro and query_only, no folder or file is created,
// no migration is applied and nothing is written, so commands that only read
// (salve runs …) leave the file exactly as they found it. The file must be a
// regular file whose schema this salve knows.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	return openReadOnly(ctx, path, false)
}

// OpenReadOnlyLive is OpenReadOnly for a reader that stays open while
// salve records runs, such as the run viewer: it never opens the file
// immutable, so it sees what writers add after it opened (SQLite may then
// create the -wal and -shm files beside the store, as any reader of a WAL
// database does; the store's content is never written).
func OpenReadOnlyLive(ctx context.Context, path string) (*Store, error) {
	return openReadOnly(ctx, path, true)
}

func openReadOnly(ctx context.Context, path string, live bool) (_ *Store, err error) {
	if path == "" {
		return nil, fmt.Errorf("store: open: empty path")
	}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("store: open %s: %w", path, ErrNoStore)
	}
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("store: open %s: not a regular file", path)
	}
	_, werr := os.Stat(path + "-wal")
	db, err := sql.Open("sqlite", dsnReadOnly(path, !live && errors.Is(werr, fs.ErrNotExist)))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = db.Close()
		}
	}()
	s := &Store{db: db, q: db, path: path, Now: time.Now, NewID: newUUID, MaxArtifactBytes: DefaultMaxArtifactBytes}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").Scan(&n); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("store: open %s: not a salve run store (no schema_migrations table)", path)
	}
	v, err := s.SchemaVersion(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	switch latest := LatestSchemaVersion(); {
	case v > latest:
		return nil, fmt.Errorf("store: open %s: %w: database at version %d, this salve knows up to %d", path, ErrSchemaTooNew, v, latest)
	case v < latest:
		return nil, fmt.Errorf("store: open %s: %w: database at version %d, this salve needs %d; a command that records (salve exec, salve heal) upgrades it", path, ErrSchemaTooOld, v, latest)
	}
	return s, nil
}

// dsnReadOnly is the data source name of a read-only open: mode=ro makes
// SQLite open the file O_RDONLY, query_only refuses any write statement.
//
// Reading a WAL database normally creates its -wal and -shm files beside
// it, and a read-only connection cannot remove them again. When there is no
// -wal file (no writer has changes that are not in the main file), the file
// is opened immutable instead, which reads it without those files or locks.
// Should a writer start meanwhile, its changes go to a new -wal file first,
// so the reader sees the state of when it opened; at worst a checkpoint
// during the read makes it fail, never the file.
func dsnReadOnly(path string, immutable bool) string {
	path = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	q := fmt.Sprintf("mode=ro&_pragma=busy_timeout(%d)&_pragma=query_only(1)", DefaultBusyTimeout.Milliseconds())
	if immutable {
		q += "&immutable=1"
	}
	return "file:" + path + "?" + q
}

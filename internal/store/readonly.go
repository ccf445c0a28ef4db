package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/salve-dev/salve/internal/sqlitedb"
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
	db, err := sqlitedb.OpenReadOnly(path, DefaultBusyTimeout, live)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("store: open %s: %w", path, ErrNoStore)
	}
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

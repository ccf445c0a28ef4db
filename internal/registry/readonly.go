package registry

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/salve-dev/salve/internal/sqlitedb"
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
	db := NewDB(path)
	sqldb, err := sqlitedb.OpenReadOnly(abs, db.BusyTimeout, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("registry: open %s: %w", abs, ErrNoRegistry)
	}
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

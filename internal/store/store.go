// Package store is salve's run store: an embedded SQLite database that keeps
// the audit trail of every run. A run is anything salve does that is worth
// reading back later: a tool run ("tool"), a build execution ("exec"), a heal
// pipeline ("heal"). Each run may carry events ([contract.LogEventV1]), tool
// runs (request and [contract.ToolRunResultV1]), patches
// ([contract.PatchRecordV1]), one run record ([contract.RunRecordV1]), named
// artifacts (bytes kept in the database, or a reference to a file), stage
// timings and LLM accounting entries.
//
// The database uses the pure-Go modernc.org/sqlite driver, so salve keeps
// building with CGO_ENABLED=0. [Open] checks that the journal is in WAL mode,
// that the busy timeout and foreign keys are on, and applies the numbered
// migrations embedded under migrations/, each once and inside a transaction,
// recording each in the schema_migrations table.
//
// A [Store] is safe for concurrent use by many goroutines, and several
// processes may use the same file at once (WAL readers never block the
// writer; writers wait up to the busy timeout).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sqlitedb"
	"github.com/salve-dev/salve/internal/statedir"
)

// Defaults used by [Open].
const (
	// DefaultBusyTimeout is how long a writer waits for another writer's lock.
	DefaultBusyTimeout = 5 * time.Second
	// DefaultSynchronous is the SQLite synchronous level. FULL makes every
	// committed transaction survive a power loss, not only a crash of salve.
	DefaultSynchronous = "FULL"
	// DefaultFileName is the name of the database file in the state folder.
	DefaultFileName = "runs.db"
	// DefaultListLimit is how many runs [Store.ListRuns] returns when the
	// filter gives no limit.
	DefaultListLimit = 50
	// DefaultMaxArtifactBytes caps an artifact kept inside the database;
	// larger ones are stored by reference with [Store.PutArtifactFile].
	DefaultMaxArtifactBytes = 32 << 20
)

// EnvStore names the environment variable that overrides the default path.
const EnvStore = "SALVE_STORE"

// Errors returned (wrapped) by the Store's methods.
var (
	// ErrNotFound is returned when a run, record or artifact does not exist.
	ErrNotFound = errors.New("store: not found")
	// ErrAmbiguous is returned by [Store.ResolveRunID] when a prefix matches
	// more than one run.
	ErrAmbiguous = errors.New("store: ambiguous run id prefix")
	// ErrSchemaTooNew is returned by [Open] when the database was written by
	// a newer salve whose migrations this one does not know.
	ErrSchemaTooNew = errors.New("store: database schema is newer than this salve")
	// ErrTooLarge is returned by [Store.PutArtifact] when the data exceeds
	// MaxArtifactBytes.
	ErrTooLarge = errors.New("store: artifact too large to keep inline")
)

// Store is an open run store. Create one with [Open] and release it with
// [Store.Close].
type Store struct {
	db   *sql.DB
	q    querier // db, or the transaction of a Store given by InTx
	tx   bool
	path string

	// Now returns the current time; [Open] sets it to time.Now. Tests may
	// replace it before use to pin the clock.
	Now func() time.Time
	// NewID returns a new unique id for runs, events and patches that come
	// without one; [Open] sets it to a UUIDv4 generator.
	NewID func() string
	// MaxArtifactBytes caps inline artifacts; [Open] sets it to
	// DefaultMaxArtifactBytes.
	MaxArtifactBytes int
}

// Open opens (creating when needed) the run store at path, creating the
// parent folder with mode 0700, and brings its schema up to date. The caller
// must Close the Store. It is OpenContext with a background context.
func Open(path string) (*Store, error) {
	return OpenContext(context.Background(), path)
}

// OpenContext is [Open] with a context bounding the checks and migrations.
func OpenContext(ctx context.Context, path string) (_ *Store, err error) {
	if path == "" {
		return nil, fmt.Errorf("store: open: empty path")
	}
	db, err := sqlitedb.Open(path, settings)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = db.Close()
		}
	}()
	s := &Store{db: db, q: db, path: path, Now: time.Now, NewID: newUUID, MaxArtifactBytes: DefaultMaxArtifactBytes}
	if err := s.checkPragmas(ctx); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := s.migrate(ctx); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return s, nil
}

// settings are the run store's connection settings: WAL, so readers never
// wait for the writer, and DefaultSynchronous. The parent folder is made
// private to the user.
var settings = sqlitedb.Options{BusyTimeout: DefaultBusyTimeout, Synchronous: DefaultSynchronous, WAL: true, DirMode: 0o700}

// checkPragmas verifies that the connection settings really took effect.
func (s *Store) checkPragmas(ctx context.Context) error {
	return sqlitedb.Check(ctx, s.db, settings)
}

// Path returns the file the Store was opened on.
func (s *Store) Path() string { return s.path }

// Close closes the database. The Store must not be used afterwards. The
// Store passed to an InTx function must not be closed.
func (s *Store) Close() error {
	if s.tx {
		return fmt.Errorf("store: close %s: called inside InTx", s.path)
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("store: close %s: %w", s.path, err)
	}
	return nil
}

// DefaultPath returns where the run store lives when no --store flag is
// given: $SALVE_STORE, else runs.db in salve's state folder
// ($XDG_STATE_HOME/salve, else $HOME/.local/state/salve; see
// [statedir.State]). getenv is usually os.Getenv.
func DefaultPath(getenv func(string) string) (string, error) {
	if p := getenv(EnvStore); p != "" {
		return p, nil
	}
	p, err := statedir.State(getenv, DefaultFileName)
	if err != nil {
		return "", fmt.Errorf("store: default path: %s is not set: %w", EnvStore, err)
	}
	return p, nil
}

// now returns the Store's clock reading as a contract timestamp.
func (s *Store) now() string { return contract.Timestamp(s.Now()) }

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// InTx runs fn with a Store whose methods all act inside one transaction:
// everything fn records is committed together when fn returns nil, and
// nothing is when it returns an error (which InTx returns). Called on the
// Store of an enclosing InTx, it just runs fn in that transaction.
func (s *Store) InTx(ctx context.Context, fn func(tx *Store) error) error {
	if s.tx {
		return fn(s)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	ts := *s
	ts.q, ts.tx = tx, true
	if err := fn(&ts); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

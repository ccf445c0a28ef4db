package registry

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"time"

	"modernc.org/sqlite"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sqlitedb"
)

// Default settings of a [DB] made by [NewDB].
const (
	// DefaultBusyTimeout is how long SQLite itself waits for a lock held by
	// another connection before it reports SQLITE_BUSY.
	DefaultBusyTimeout = 5 * time.Second
	// DefaultRetryTimeout bounds the retries around a whole operation that
	// still failed with SQLITE_BUSY or SQLITE_LOCKED.
	DefaultRetryTimeout = 30 * time.Second
)

// SQLite primary result codes that mean "someone else holds the lock".
const (
	codeBusy   = 5 // SQLITE_BUSY
	codeLocked = 6 // SQLITE_LOCKED
)

// ErrNotFound is returned (wrapped) by [DB.Get] when no tool has the name.
var ErrNotFound = errors.New("registry: tool not found")

// ErrSetting is returned (wrapped) by [DB.Open] when a connection setting
// (journal mode, busy timeout, foreign keys) did not take effect.
var ErrSetting = sqlitedb.ErrSetting

//go:embed migration/*.sql
var migrationFS embed.FS

// Tool is one row of the tool_registry table.
type Tool struct {
	// Name identifies the tool, such as "git_agent"; it is the primary key.
	Name string
	// Version is the tool's version string.
	Version string
	// Description says what the tool does, in one line.
	Description string
	// Actions lists the action names the tool accepts; nil is stored as [].
	Actions []string
	// ExecutablePath is the absolute path of the registered binary.
	ExecutablePath string
	// RegistrationCount counts the registrations of this name; it is set by
	// the database and ignored by [DB.Register].
	RegistrationCount int64
	// CreatedAt is when the name first registered, UpdatedAt when it last
	// did. Both are set by [DB.Register] from [DB.Now].
	CreatedAt, UpdatedAt time.Time
}

// DB is the tool registry database. Fill it with [NewDB] (or set every
// field), then call [DB.Open]; the caller closes it with [DB.Close].
type DB struct {
	// Path is the SQLite file. Relative paths are resolved against the
	// working directory; missing parent directories are created.
	Path string
	// BusyTimeout is SQLite's own lock wait; zero means no waiting.
	BusyTimeout time.Duration
	// RetryTimeout bounds the retries on SQLITE_BUSY; zero means one attempt.
	RetryTimeout time.Duration
	// Now returns the current time for timestamps; nil means time.Now.
	Now func() time.Time

	db *sql.DB
}

// NewDB returns a DB for path with the Default* settings. It does not open
// anything.
func NewDB(path string) *DB {
	return &DB{
		Path:         path,
		BusyTimeout:  DefaultBusyTimeout,
		RetryTimeout: DefaultRetryTimeout,
		Now:          time.Now,
	}
}

// Open opens the registry at path with the default settings.
func Open(ctx context.Context, path string) (*DB, error) {
	db := NewDB(path)
	if err := db.Open(ctx); err != nil {
		return nil, err
	}
	return db, nil
}

// Open opens the database file, switches it to WAL, checks the busy timeout
// and foreign keys, and applies pending migrations. On error nothing is left
// open.
func (db *DB) Open(ctx context.Context) (err error) {
	if db.Path == "" {
		return errors.New("registry: open: empty database path")
	}
	abs, err := filepath.Abs(db.Path)
	if err != nil {
		return fmt.Errorf("registry: open %s: resolve path: %w", db.Path, err)
	}
	sqldb, err := sqlitedb.Open(abs, db.settings())
	if err != nil {
		return fmt.Errorf("registry: open %s: %w", abs, err)
	}
	defer func() {
		if err != nil {
			_ = sqldb.Close()
		}
	}()
	// One connection: the process is short-lived, and every per-connection
	// setting checked below then holds for every statement.
	sqldb.SetMaxOpenConns(1)

	if err := db.retry(ctx, "enable WAL", func() error { return checkWAL(ctx, sqldb) }); err != nil {
		return fmt.Errorf("registry: open %s: %w", abs, err)
	}
	if err := db.checkSettings(ctx, sqldb); err != nil {
		return fmt.Errorf("registry: open %s: %w", abs, err)
	}
	if err := db.retry(ctx, "migrate", func() error { return db.migrate(ctx, sqldb) }); err != nil {
		return fmt.Errorf("registry: open %s: %w", abs, err)
	}
	db.db = sqldb
	return nil
}

// settings are the registry's connection settings. WAL is switched on by
// [DB.Open] itself, retrying while another start-up holds the lock. In WAL
// mode synchronous NORMAL never corrupts the file; a power cut may only lose
// the last registration, which the next start-up writes again.
func (db *DB) settings() sqlitedb.Options {
	return sqlitedb.Options{BusyTimeout: db.BusyTimeout, Synchronous: "NORMAL"}
}

// Close closes the database. It is safe to call on a DB that is not open.
func (db *DB) Close() error {
	if db.db == nil {
		return nil
	}
	err := db.db.Close()
	db.db = nil
	if err != nil {
		return fmt.Errorf("registry: close %s: %w", db.Path, err)
	}
	return nil
}

func checkWAL(ctx context.Context, sqldb *sql.DB) error {
	var mode string
	if err := sqldb.QueryRowContext(ctx, "PRAGMA journal_mode = wal").Scan(&mode); err != nil {
		return fmt.Errorf("set journal_mode: %w", err)
	}
	if mode != "wal" {
		return fmt.Errorf("journal_mode is %q, want wal: %w", mode, ErrSetting)
	}
	return nil
}

func (db *DB) checkSettings(ctx context.Context, sqldb *sql.DB) error {
	return sqlitedb.Check(ctx, sqldb, db.settings())
}

// migrations returns the embedded migration file names in order.
func migrations() ([]string, error) {
	names, err := fs.Glob(migrationFS, "migration/*.sql")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	sort.Strings(names)
	return names, nil
}

// applied returns the migrations already recorded; an error means the
// bookkeeping table is not there yet.
func applied(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, "SELECT name FROM tool_registry_migrations")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	done := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		done[name] = true
	}
	return done, rows.Err()
}

// migrate applies every pending migration in one write transaction. When
// all are recorded already it only reads, so concurrent start-ups do not
// queue for the write lock.
func (db *DB) migrate(ctx context.Context, sqldb *sql.DB) error {
	names, err := migrations()
	if err != nil {
		return err
	}
	if done, err := applied(ctx, sqldb); err == nil && allDone(names, done) {
		return nil
	}
	tx, err := sqldb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	const bookkeeping = `CREATE TABLE IF NOT EXISTS tool_registry_migrations (
		name TEXT PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)`
	if _, err := tx.ExecContext(ctx, bookkeeping); err != nil {
		return fmt.Errorf("create migrations table: %w", err)
	}
	done, err := applied(ctx, tx)
	if err != nil {
		return fmt.Errorf("read migrations: %w", err)
	}
	for _, name := range names {
		if done[name] {
			continue
		}
		if err := db.apply(ctx, tx, name); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit migrations: %w", err)
	}
	return nil
}

func (db *DB) apply(ctx context.Context, tx *sql.Tx, name string) error {
	body, err := migrationFS.ReadFile(name)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return fmt.Errorf("apply %s: %w", name, err)
	}
	const record = `INSERT INTO tool_registry_migrations (name, applied_at) VALUES (?, ?)`
	if _, err := tx.ExecContext(ctx, record, name, contract.Timestamp(db.now())); err != nil {
		return fmt.Errorf("record %s: %w", name, err)
	}
	return nil
}

func allDone(names []string, done map[string]bool) bool {
	for _, n := range names {
		if !done[n] {
			return false
		}
	}
	return true
}

func (db *DB) now() time.Time {
	if db.Now == nil {
		return time.Now()
	}
	return db.Now()
}

// isBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED (any
// extended code), the errors that go away when the other writer finishes.
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == codeBusy || code == codeLocked
}

// retry runs f until it succeeds, fails with an error other than a busy
// lock, RetryTimeout elapses, or ctx is done. It sleeps a jittered,
// doubling delay between attempts.
func (db *DB) retry(ctx context.Context, op string, f func() error) error {
	deadline := time.Now().Add(db.RetryTimeout)
	delay := 5 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := f()
		if err == nil {
			return nil
		}
		if !isBusy(err) {
			return fmt.Errorf("%s: %w", op, err)
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%s: still locked after %d attempts: %w", op, attempt, err)
		}
		sleep := delay/2 + rand.N(delay/2+1)
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last error: %w)", op, ctx.Err(), err)
		case <-time.After(sleep):
		}
		delay = min(2*delay, 250*time.Millisecond)
	}
}

// Register inserts t or, when a tool of that name exists, updates its
// version, description, actions, executable path and updated_at, keeping
// created_at, and counts the registration. It returns the row as stored.
func (db *DB) Register(ctx context.Context, t Tool) (Tool, error) {
	if db.db == nil {
		return Tool{}, errors.New("registry: register: database not open")
	}
	if t.Name == "" {
		return Tool{}, errors.New("registry: register: empty tool name")
	}
	actions := t.Actions
	if actions == nil {
		actions = []string{}
	}
	actionsJSON, err := json.Marshal(actions)
	if err != nil {
		return Tool{}, fmt.Errorf("registry: register %s: encode actions: %w", t.Name, err)
	}
	now := contract.Timestamp(db.now())
	const upsert = `INSERT INTO tool_registry
		(name, version, description, actions, executable_path, registration_count, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, 1, ?, ?)
		ON CONFLICT (name) DO UPDATE SET
			version = excluded.version,
			description = excluded.description,
			actions = excluded.actions,
			executable_path = excluded.executable_path,
			registration_count = tool_registry.registration_count + 1,
			updated_at = excluded.updated_at
		RETURNING registration_count, created_at, updated_at`
	var count int64
	var created, updated string
	err = db.retry(ctx, "register "+t.Name, func() error {
		tx, err := db.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		row := tx.QueryRowContext(ctx, upsert, t.Name, t.Version, t.Description, string(actionsJSON), t.ExecutablePath, now, now)
		if err := row.Scan(&count, &created, &updated); err != nil {
			return err
		}
		return tx.Commit()
	})
	if err != nil {
		return Tool{}, fmt.Errorf("registry: %w", err)
	}
	out := t
	out.Actions = actions
	out.RegistrationCount = count
	if out.CreatedAt, err = parseTime(created); err != nil {
		return Tool{}, fmt.Errorf("registry: register %s: %w", t.Name, err)
	}
	if out.UpdatedAt, err = parseTime(updated); err != nil {
		return Tool{}, fmt.Errorf("registry: register %s: %w", t.Name, err)
	}
	return out, nil
}

const selectTools = `SELECT name, version, description, actions, executable_path,
	registration_count, created_at, updated_at FROM tool_registry`

// List returns every registered tool, ordered by name.
func (db *DB) List(ctx context.Context) ([]Tool, error) {
	if db.db == nil {
		return nil, errors.New("registry: list: database not open")
	}
	rows, err := db.db.QueryContext(ctx, selectTools+" ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("registry: list: %w", err)
	}
	defer rows.Close()
	var tools []Tool
	for rows.Next() {
		t, err := scanTool(rows)
		if err != nil {
			return nil, fmt.Errorf("registry: list: %w", err)
		}
		tools = append(tools, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("registry: list: %w", err)
	}
	return tools, nil
}

// Get returns the tool called name, or an error wrapping [ErrNotFound].
func (db *DB) Get(ctx context.Context, name string) (Tool, error) {
	if db.db == nil {
		return Tool{}, errors.New("registry: get: database not open")
	}
	t, err := scanTool(db.db.QueryRowContext(ctx, selectTools+" WHERE name = ?", name))
	if errors.Is(err, sql.ErrNoRows) {
		return Tool{}, fmt.Errorf("registry: get %s: %w", name, ErrNotFound)
	}
	if err != nil {
		return Tool{}, fmt.Errorf("registry: get %s: %w", name, err)
	}
	return t, nil
}

func scanTool(row interface{ Scan(...any) error }) (Tool, error) {
	var t Tool
	var actions, created, updated string
	if err := row.Scan(&t.Name, &t.Version, &t.Description, &actions, &t.ExecutablePath,
		&t.RegistrationCount, &created, &updated); err != nil {
		return Tool{}, err
	}
	if err := json.Unmarshal([]byte(actions), &t.Actions); err != nil {
		return Tool{}, fmt.Errorf("decode actions of %s: %w", t.Name, err)
	}
	var err error
	if t.CreatedAt, err = parseTime(created); err != nil {
		return Tool{}, err
	}
	if t.UpdatedAt, err = parseTime(updated); err != nil {
		return Tool{}, err
	}
	return t, nil
}

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse timestamp %q: %w", s, err)
	}
	return t.UTC(), nil
}

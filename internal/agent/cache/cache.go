// Package cache is ai-agent's response and tool cache on SQLite
// (docs/ai-agent.md, "Caching"): entries keyed by the SHA-256 of a
// canonical JSON payload, gzipped JSON values, a time to live checked on
// every read, and oldest-first eviction beyond maxEntries.
package cache

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/salve-dev/salve/internal/sqlitedb"
)

// DefaultMaxEntries is cache.maxEntries when unset.
const DefaultMaxEntries = 5000

// maxValueBytes bounds a value once decompressed.
const maxValueBytes = 64 << 20

// Meta describes an entry, as the original stores it.
type Meta struct {
	Kind          string // "agent" or "tool"
	AgentName     string
	ToolName      string
	AgentHash     string
	ToolNamespace string
	Format        string
}

// Cache is one SQLite cache file. It is safe for concurrent use.
type Cache struct {
	db         *sql.DB
	maxEntries int
	// Now is the clock; tests inject one.
	Now func() time.Time
}

const schema = `CREATE TABLE IF NOT EXISTS cache_entries (key_hash TEXT PRIMARY KEY, payload BLOB NOT NULL,
  payload_bytes INTEGER NOT NULL, kind TEXT NOT NULL, agent_name TEXT, tool_name TEXT,
  agent_hash TEXT, tool_namespace TEXT, format TEXT, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS idx_cache_expires ON cache_entries(expires_at);
CREATE INDEX IF NOT EXISTS idx_cache_created ON cache_entries(created_at);`

// Open opens or creates the cache at path, creating its directory.
// maxEntries ≤ 0 takes DefaultMaxEntries.
func Open(ctx context.Context, path string, maxEntries int) (_ *Cache, err error) {
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	db, err := sqlitedb.Open(path, sqlitedb.Options{BusyTimeout: 5 * time.Second, Synchronous: "NORMAL", WAL: true, DirMode: 0o700})
	if err != nil {
		return nil, fmt.Errorf("cache: open %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = db.Close()
		}
	}()
	if _, err := db.ExecContext(ctx, schema); err != nil {
		return nil, fmt.Errorf("cache: open %s: %w", path, err)
	}
	return &Cache{db: db, maxEntries: maxEntries, Now: time.Now}, nil
}

// Close closes the database.
func (c *Cache) Close() error { return c.db.Close() }

// Key is the hex SHA-256 of the canonical JSON of payload (object members
// sorted, as encoding/json does for maps).
func Key(payload any) (string, error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return "", fmt.Errorf("cache key: %w", err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "", fmt.Errorf("cache key: %w", err)
	}
	if b, err = json.Marshal(v); err != nil {
		return "", fmt.Errorf("cache key: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// Get decodes the entry of key into v when it exists, has not expired and
// is at most ttl old; ok is false on a miss (an undecodable value is a
// miss). ttl ≤ 0 is always a miss.
func (c *Cache) Get(ctx context.Context, key string, ttl time.Duration, v any) (age time.Duration, ok bool, err error) {
	if ttl <= 0 {
		return 0, false, nil
	}
	now := c.Now()
	var payload []byte
	var created int64
	err = c.db.QueryRowContext(ctx, `SELECT payload, created_at FROM cache_entries WHERE key_hash = ? AND expires_at > ?`, key, now.UnixMilli()).
		Scan(&payload, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("cache get: %w", err)
	}
	age = now.Sub(time.UnixMilli(created))
	if age > ttl {
		return 0, false, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(payload))
	if err != nil {
		return 0, false, nil
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxValueBytes))
	if err != nil || json.Unmarshal(raw, v) != nil {
		return 0, false, nil
	}
	return age, true, nil
}

// Set stores v under key for ttl, drops expired entries and the oldest
// beyond maxEntries, in one transaction. ttl ≤ 0 stores nothing.
func (c *Cache) Set(ctx context.Context, key string, m Meta, v any, ttl time.Duration) error {
	if ttl <= 0 {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("cache set: %w", err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(raw); err != nil {
		return fmt.Errorf("cache set: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("cache set: %w", err)
	}
	now := c.Now().UnixMilli()
	expires := now + min(ttl.Milliseconds(), 1<<53)
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("cache set: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO cache_entries (key_hash, payload, payload_bytes, kind, agent_name, tool_name,
		agent_hash, tool_namespace, format, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		key, buf.Bytes(), buf.Len(), m.Kind, m.AgentName, m.ToolName, m.AgentHash, m.ToolNamespace, m.Format, now, expires); err != nil {
		return fmt.Errorf("cache set: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM cache_entries WHERE expires_at <= ?`, now); err != nil {
		return fmt.Errorf("cache set: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM cache_entries WHERE key_hash IN (SELECT key_hash FROM cache_entries
		ORDER BY created_at DESC, rowid DESC LIMIT -1 OFFSET ?)`, c.maxEntries); err != nil {
		return fmt.Errorf("cache set: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("cache set: %w", err)
	}
	return nil
}

// Len is the number of stored entries, expired ones included.
func (c *Cache) Len(ctx context.Context) (int, error) {
	var n int
	err := c.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM cache_entries`).Scan(&n)
	return n, err
}

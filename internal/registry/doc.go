// Package registry is salve's SQLite tool registry: the tool_registry table
// where agents such as git_agent record themselves on start-up
// (docs/contracts/git-agent.md §4).
//
// One type, [DB], owns the database. [Open] applies the connection settings
// (WAL journal, a busy timeout, foreign keys), checks that each one really
// took effect, and applies the numbered migrations embedded from migration/,
// each once, inside a transaction, recorded in tool_registry_migrations.
//
// # Concurrency
//
// Many short-lived agents may start at the same moment and register into the
// same file. Every write runs in a BEGIN IMMEDIATE transaction, so the write
// lock is taken up front instead of being upgraded half-way (which SQLite can
// only fail with SQLITE_BUSY); the busy timeout makes SQLite wait for the lock;
// and [DB.Register] and [Open] retry with jittered back-off on the rare
// SQLITE_BUSY or SQLITE_LOCKED that slips through (such as the switch into WAL
// mode of a fresh file), until [DB.RetryTimeout] elapses.
//
// # Where the file lives
//
// [ResolvePath] picks the path: an explicit setting (the --registry-db flag),
// else the SALVE_REGISTRY_DB environment variable, else a per-user data
// directory. The original agent's relative layout, ../../data/memory.db, is
// reached by passing that relative path; it is resolved against the working
// directory like any other, and missing parent directories are created.
package registry

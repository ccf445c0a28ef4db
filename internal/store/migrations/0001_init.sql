-- 0001: the run store's first schema. Timestamps are TEXT in
-- contract.TimeLayout (UTC, milliseconds), so they sort as strings.

CREATE TABLE runs (
    run_id       TEXT PRIMARY KEY,
    kind         TEXT NOT NULL,
    status       TEXT NOT NULL,
    parent_id    TEXT REFERENCES runs(run_id) ON DELETE SET NULL,
    title        TEXT NOT NULL DEFAULT '',
    started_at   TEXT NOT NULL,
    completed_at TEXT NOT NULL DEFAULT '',
    summary      TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(summary))
);
CREATE INDEX runs_by_start ON runs(started_at);
CREATE INDEX runs_by_kind ON runs(kind, started_at);
CREATE INDEX runs_by_parent ON runs(parent_id);

CREATE TABLE events (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL UNIQUE,
    run_id   TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    ts       TEXT NOT NULL,
    level    TEXT NOT NULL,
    message  TEXT NOT NULL,
    context  TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(context))
);
CREATE INDEX events_by_run ON events(run_id, seq);

CREATE TABLE tool_runs (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    request_id TEXT NOT NULL,
    tool_id    TEXT NOT NULL,
    exit_code  INTEGER NOT NULL,
    request    TEXT NOT NULL CHECK (json_valid(request)),
    result     TEXT NOT NULL CHECK (json_valid(result))
);
CREATE INDEX tool_runs_by_run ON tool_runs(run_id, seq);

CREATE TABLE patches (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    patch_id  TEXT NOT NULL UNIQUE,
    run_id    TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    file_path TEXT NOT NULL,
    operation TEXT NOT NULL CHECK (operation IN ('create', 'edit', 'delete')),
    in_scope  INTEGER NOT NULL,
    reverted  INTEGER NOT NULL,
    record    TEXT NOT NULL CHECK (json_valid(record))
);
CREATE INDEX patches_by_run ON patches(run_id, seq);

CREATE TABLE run_records (
    run_id TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE,
    record TEXT NOT NULL CHECK (json_valid(record))
);

CREATE TABLE artifacts (
    run_id     TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    media_type TEXT NOT NULL,
    size       INTEGER NOT NULL,
    sha256     TEXT NOT NULL,
    data       BLOB,
    path       TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (run_id, name),
    CHECK ((data IS NULL) <> (path IS NULL))
);

CREATE TABLE stages (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id           TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    name             TEXT NOT NULL,
    status           TEXT NOT NULL,
    started_at       TEXT NOT NULL,
    duration_seconds REAL NOT NULL,
    detail           TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(detail))
);
CREATE INDEX stages_by_run ON stages(run_id, seq);

CREATE TABLE accounting (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    entry  TEXT NOT NULL CHECK (json_valid(entry))
);
CREATE INDEX accounting_by_run ON accounting(run_id, seq);

-- tool_registry holds one row per tool that registered itself (seed 002, §4).
-- actions is a JSON array of action names; timestamps are RFC 3339 UTC with
-- milliseconds.
CREATE TABLE IF NOT EXISTS tool_registry (
	name               TEXT PRIMARY KEY NOT NULL,
	version            TEXT NOT NULL DEFAULT '',
	description        TEXT NOT NULL DEFAULT '',
	actions            TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(actions)),
	executable_path    TEXT NOT NULL DEFAULT '',
	registration_count INTEGER NOT NULL DEFAULT 0,
	created_at         TEXT NOT NULL,
	updated_at         TEXT NOT NULL
);

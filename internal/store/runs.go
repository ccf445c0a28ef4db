package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// Run kinds used by salve's packages. Kind is free text; these are the
// conventional values.
const (
	KindTool = "tool"
	KindExec = "exec"
	KindHeal = "heal"
)

// StatusRunning is the status of a run that has not finished. Final statuses
// are free text chosen by the run's owner (the tool adapter uses the
// contract.Run* constants).
const StatusRunning = "running"

// Run is the header every run has, whatever its kind.
type Run struct {
	// RunID identifies the run; [Store.CreateRun] fills it with a UUIDv4
	// when empty.
	RunID string `json:"run_id"`
	// Kind says what produced the run: KindTool, KindExec, KindHeal…
	Kind string `json:"kind"`
	// Status is StatusRunning until [Store.FinishRun] sets the final one.
	Status string `json:"status"`
	// ParentID links a run to the run that started it (a heal's tool run).
	ParentID string `json:"parent_id,omitempty"`
	// Title is a one-line description for listings.
	Title string `json:"title,omitempty"`
	// StartedAt and CompletedAt are contract timestamps; CompletedAt is
	// empty while the run is going.
	StartedAt   string `json:"started_at"`
	CompletedAt string `json:"completed_at,omitempty"`
	// Summary is a JSON object chosen by the run's owner; empty means {}.
	Summary json.RawMessage `json:"summary,omitempty"`
}

// CreateRun inserts a new run and returns it as stored. Empty RunID, Status
// and StartedAt are filled with a new id, StatusRunning and the Store's
// clock. Kind is required.
func (s *Store) CreateRun(ctx context.Context, r Run) (Run, error) {
	if r.Kind == "" {
		return Run{}, fmt.Errorf("store: create run: empty kind")
	}
	if r.RunID == "" {
		r.RunID = s.NewID()
	}
	if r.Status == "" {
		r.Status = StatusRunning
	}
	if r.StartedAt == "" {
		r.StartedAt = s.now()
	}
	if len(r.Summary) == 0 {
		r.Summary = json.RawMessage("{}")
	}
	if !json.Valid(r.Summary) {
		return Run{}, fmt.Errorf("store: create run %s: summary is not valid JSON", r.RunID)
	}
	_, err := s.q.ExecContext(ctx, `INSERT INTO runs(run_id, kind, status, parent_id, title, started_at, completed_at, summary)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		r.RunID, r.Kind, r.Status, nullString(r.ParentID), r.Title, r.StartedAt, r.CompletedAt, string(r.Summary))
	if err != nil {
		return Run{}, fmt.Errorf("store: create run %s: %w", r.RunID, err)
	}
	return r, nil
}

// FinishRun sets a run's final status and completion time (the Store's
// clock). A non-nil summary replaces the stored one: a json.RawMessage or
// []byte is stored as is, anything else is encoded as JSON.
func (s *Store) FinishRun(ctx context.Context, runID, status string, summary any) error {
	if status == "" {
		return fmt.Errorf("store: finish run %s: empty status", runID)
	}
	var res sql.Result
	var err error
	if summary == nil {
		res, err = s.q.ExecContext(ctx, "UPDATE runs SET status = ?, completed_at = ? WHERE run_id = ?", status, s.now(), runID)
	} else {
		var js []byte
		if js, err = encodeJSON(summary); err != nil {
			return fmt.Errorf("store: finish run %s: summary: %w", runID, err)
		}
		res, err = s.q.ExecContext(ctx, "UPDATE runs SET status = ?, completed_at = ?, summary = ? WHERE run_id = ?",
			status, s.now(), string(js), runID)
	}
	if err != nil {
		return fmt.Errorf("store: finish run %s: %w", runID, err)
	}
	return mustAffect(res, "finish run", runID)
}

// SetSummary replaces a run's summary without finishing it. summary is
// encoded as in [Store.FinishRun].
func (s *Store) SetSummary(ctx context.Context, runID string, summary any) error {
	js, err := encodeJSON(summary)
	if err != nil {
		return fmt.Errorf("store: set summary %s: %w", runID, err)
	}
	res, err := s.q.ExecContext(ctx, "UPDATE runs SET summary = ? WHERE run_id = ?", string(js), runID)
	if err != nil {
		return fmt.Errorf("store: set summary %s: %w", runID, err)
	}
	return mustAffect(res, "set summary", runID)
}

// GetRun returns one run, or an error wrapping ErrNotFound.
func (s *Store) GetRun(ctx context.Context, runID string) (Run, error) {
	row := s.q.QueryRowContext(ctx, "SELECT "+runColumns+" FROM runs WHERE run_id = ?", runID)
	r, err := scanRun(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, fmt.Errorf("store: get run %s: %w", runID, ErrNotFound)
	}
	if err != nil {
		return Run{}, fmt.Errorf("store: get run %s: %w", runID, err)
	}
	return r, nil
}

// RunFilter selects runs for [Store.ListRuns]. The zero value selects the
// DefaultListLimit most recent runs of every kind.
type RunFilter struct {
	// Kind, Status and ParentID, when set, must match exactly.
	Kind, Status, ParentID string
	// Limit caps the number of runs; zero means DefaultListLimit, negative
	// means no limit.
	Limit int
}

// ListRuns returns the runs matching f, newest first.
func (s *Store) ListRuns(ctx context.Context, f RunFilter) ([]Run, error) {
	var where []string
	var args []any
	for _, c := range []struct{ col, val string }{{"kind", f.Kind}, {"status", f.Status}, {"parent_id", f.ParentID}} {
		if c.val != "" {
			where = append(where, c.col+" = ?")
			args = append(args, c.val)
		}
	}
	q := "SELECT " + runColumns + " FROM runs"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY started_at DESC, rowid DESC"
	limit := f.Limit
	if limit == 0 {
		limit = DefaultListLimit
	}
	if limit > 0 {
		q += " LIMIT ?"
		args = append(args, limit)
	}
	rows, err := s.q.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list runs: %w", err)
	}
	return out, nil
}

// ResolveRunID turns what a user typed into a run id: an exact id, a unique
// prefix of one, or "latest" for the most recent run.
func (s *Store) ResolveRunID(ctx context.Context, ref string) (string, error) {
	if ref == "" {
		return "", fmt.Errorf("store: resolve run: empty id: %w", ErrNotFound)
	}
	if ref == "latest" {
		runs, err := s.ListRuns(ctx, RunFilter{Limit: 1})
		if err != nil {
			return "", err
		}
		if len(runs) == 0 {
			return "", fmt.Errorf("store: resolve run latest: %w", ErrNotFound)
		}
		return runs[0].RunID, nil
	}
	// LIKE would treat % and _ in ref as wildcards; compare the prefix instead.
	// ORDER BY puts an exact match first (a prefix sorts before every
	// longer id that starts with it), so LIMIT 3 cannot drop it.
	rows, err := s.q.QueryContext(ctx, "SELECT run_id FROM runs WHERE substr(run_id, 1, ?) = ? ORDER BY run_id LIMIT 3", len(ref), ref)
	if err != nil {
		return "", fmt.Errorf("store: resolve run %s: %w", ref, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return "", fmt.Errorf("store: resolve run %s: %w", ref, err)
		}
		if id == ref {
			return id, nil
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("store: resolve run %s: %w", ref, err)
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("store: resolve run %s: %w", ref, ErrNotFound)
	case 1:
		return ids[0], nil
	default:
		return "", fmt.Errorf("store: resolve run %s: %w (%s, …)", ref, ErrAmbiguous, strings.Join(ids[:2], ", "))
	}
}

// DeleteRun removes a run and, by cascade, everything recorded under it.
// Child runs keep existing with their parent cleared.
func (s *Store) DeleteRun(ctx context.Context, runID string) error {
	res, err := s.q.ExecContext(ctx, "DELETE FROM runs WHERE run_id = ?", runID)
	if err != nil {
		return fmt.Errorf("store: delete run %s: %w", runID, err)
	}
	return mustAffect(res, "delete run", runID)
}

const runColumns = "run_id, kind, status, COALESCE(parent_id, ''), title, started_at, completed_at, summary"

type scanner interface{ Scan(dest ...any) error }

func scanRun(sc scanner) (Run, error) {
	var r Run
	var summary string
	if err := sc.Scan(&r.RunID, &r.Kind, &r.Status, &r.ParentID, &r.Title, &r.StartedAt, &r.CompletedAt, &summary); err != nil {
		return Run{}, err
	}
	r.Summary = json.RawMessage(summary)
	return r, nil
}

func mustAffect(res sql.Result, op, runID string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: %s %s: %w", op, runID, err)
	}
	if n == 0 {
		return fmt.Errorf("store: %s %s: %w", op, runID, ErrNotFound)
	}
	return nil
}

// encodeJSON stores raw JSON as is (after checking it) and encodes anything
// else.
func encodeJSON(v any) ([]byte, error) {
	switch t := v.(type) {
	case json.RawMessage:
		if !json.Valid(t) {
			return nil, fmt.Errorf("invalid JSON")
		}
		return t, nil
	case []byte:
		if !json.Valid(t) {
			return nil, fmt.Errorf("invalid JSON")
		}
		return t, nil
	}
	return json.Marshal(v)
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func newUUID() string { return uuid.NewString() }

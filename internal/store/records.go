package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/salve-dev/salve/contract"
)

// AddEvent appends an event to the run ev.RunID (which must exist). An empty
// EventID, TS or Level is filled with a new id, the Store's clock and INFO.
// Context values under secret-looking keys are redacted. It returns the
// event as stored.
func (s *Store) AddEvent(ctx context.Context, ev contract.LogEventV1) (contract.LogEventV1, error) {
	if ev.RunID == "" {
		return ev, fmt.Errorf("store: add event: empty run_id")
	}
	if ev.EventID == "" {
		ev.EventID = s.NewID()
	}
	if ev.TS == "" {
		ev.TS = s.now()
	}
	if ev.Level == "" {
		ev.Level = contract.LevelInfo
	}
	ev.Context = RedactMap(ev.Context)
	js, err := json.Marshal(orEmpty(ev.Context))
	if err != nil {
		return ev, fmt.Errorf("store: add event to %s: context: %w", ev.RunID, err)
	}
	_, err = s.q.ExecContext(ctx, "INSERT INTO events(event_id, run_id, ts, level, message, context) VALUES (?, ?, ?, ?, ?, ?)",
		ev.EventID, ev.RunID, ev.TS, ev.Level, ev.Message, string(js))
	if err != nil {
		return ev, fmt.Errorf("store: add event to %s: %w", ev.RunID, err)
	}
	return ev, nil
}

// Events returns a run's events in the order they were added.
func (s *Store) Events(ctx context.Context, runID string) ([]contract.LogEventV1, error) {
	rows, err := s.q.QueryContext(ctx, "SELECT event_id, run_id, ts, level, message, context FROM events WHERE run_id = ? ORDER BY seq", runID)
	if err != nil {
		return nil, fmt.Errorf("store: events of %s: %w", runID, err)
	}
	defer rows.Close()
	var out []contract.LogEventV1
	for rows.Next() {
		var ev contract.LogEventV1
		var js string
		if err := rows.Scan(&ev.EventID, &ev.RunID, &ev.TS, &ev.Level, &ev.Message, &js); err != nil {
			return nil, fmt.Errorf("store: events of %s: %w", runID, err)
		}
		if err := json.Unmarshal([]byte(js), &ev.Context); err != nil {
			return nil, fmt.Errorf("store: events of %s: context of %s: %w", runID, ev.EventID, err)
		}
		out = append(out, ev)
	}
	return out, rowsErr(rows, "events of", runID)
}

// ToolRun is one tool invocation recorded under a run.
type ToolRun struct {
	RunID     string                    `json:"run_id"`
	RequestID string                    `json:"request_id"`
	Request   contract.ToolRunRequestV1 `json:"request"`
	Result    contract.ToolRunResultV1  `json:"result"`
}

// AddToolRun records a tool's request and result under runID. Secrets in
// the request's environment and arguments are redacted first.
func (s *Store) AddToolRun(ctx context.Context, runID, requestID string, req contract.ToolRunRequestV1, res contract.ToolRunResultV1) error {
	reqJS, err := json.Marshal(RedactRequest(req))
	if err != nil {
		return fmt.Errorf("store: add tool run to %s: request: %w", runID, err)
	}
	resJS, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("store: add tool run to %s: result: %w", runID, err)
	}
	_, err = s.q.ExecContext(ctx, "INSERT INTO tool_runs(run_id, request_id, tool_id, exit_code, request, result) VALUES (?, ?, ?, ?, ?, ?)",
		runID, requestID, res.ToolID, res.ExitCode, string(reqJS), string(resJS))
	if err != nil {
		return fmt.Errorf("store: add tool run to %s: %w", runID, err)
	}
	return nil
}

// ToolRuns returns the tool runs recorded under runID, oldest first.
func (s *Store) ToolRuns(ctx context.Context, runID string) ([]ToolRun, error) {
	rows, err := s.q.QueryContext(ctx, "SELECT run_id, request_id, request, result FROM tool_runs WHERE run_id = ? ORDER BY seq", runID)
	if err != nil {
		return nil, fmt.Errorf("store: tool runs of %s: %w", runID, err)
	}
	defer rows.Close()
	var out []ToolRun
	for rows.Next() {
		var tr ToolRun
		var req, res string
		if err := rows.Scan(&tr.RunID, &tr.RequestID, &req, &res); err != nil {
			return nil, fmt.Errorf("store: tool runs of %s: %w", runID, err)
		}
		if err := json.Unmarshal([]byte(req), &tr.Request); err != nil {
			return nil, fmt.Errorf("store: tool runs of %s: request: %w", runID, err)
		}
		if err := json.Unmarshal([]byte(res), &tr.Result); err != nil {
			return nil, fmt.Errorf("store: tool runs of %s: result: %w", runID, err)
		}
		out = append(out, tr)
	}
	return out, rowsErr(rows, "tool runs of", runID)
}

// AddPatch records a patch under p.RunID (which must exist). An empty
// PatchID is filled with a new id. It returns the patch as stored.
func (s *Store) AddPatch(ctx context.Context, p contract.PatchRecordV1) (contract.PatchRecordV1, error) {
	if p.RunID == "" {
		return p, fmt.Errorf("store: add patch: empty run_id")
	}
	if p.PatchID == "" {
		p.PatchID = "patch-" + s.NewID()
	}
	js, err := json.Marshal(p)
	if err != nil {
		return p, fmt.Errorf("store: add patch to %s: %w", p.RunID, err)
	}
	_, err = s.q.ExecContext(ctx, "INSERT INTO patches(patch_id, run_id, file_path, operation, in_scope, reverted, record) VALUES (?, ?, ?, ?, ?, ?, ?)",
		p.PatchID, p.RunID, p.FilePath, p.Operation, p.InScope, p.Reverted, string(js))
	if err != nil {
		return p, fmt.Errorf("store: add patch %s to %s: %w", p.FilePath, p.RunID, err)
	}
	return p, nil
}

// Patches returns a run's patches in the order they were added.
func (s *Store) Patches(ctx context.Context, runID string) ([]contract.PatchRecordV1, error) {
	rows, err := s.q.QueryContext(ctx, "SELECT record FROM patches WHERE run_id = ? ORDER BY seq", runID)
	if err != nil {
		return nil, fmt.Errorf("store: patches of %s: %w", runID, err)
	}
	defer rows.Close()
	var out []contract.PatchRecordV1
	for rows.Next() {
		var js string
		if err := rows.Scan(&js); err != nil {
			return nil, fmt.Errorf("store: patches of %s: %w", runID, err)
		}
		var p contract.PatchRecordV1
		if err := json.Unmarshal([]byte(js), &p); err != nil {
			return nil, fmt.Errorf("store: patches of %s: %w", runID, err)
		}
		out = append(out, p)
	}
	return out, rowsErr(rows, "patches of", runID)
}

// PutRunRecord stores (or replaces) the run record of rec.RunID, which must
// exist. Secrets in its request are redacted.
func (s *Store) PutRunRecord(ctx context.Context, rec contract.RunRecordV1) error {
	rec.Request = RedactRequest(rec.Request)
	for i := range rec.Events {
		rec.Events[i].Context = RedactMap(rec.Events[i].Context)
	}
	js, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("store: put run record %s: %w", rec.RunID, err)
	}
	_, err = s.q.ExecContext(ctx, "INSERT INTO run_records(run_id, record) VALUES (?, ?) ON CONFLICT(run_id) DO UPDATE SET record = excluded.record",
		rec.RunID, string(js))
	if err != nil {
		return fmt.Errorf("store: put run record %s: %w", rec.RunID, err)
	}
	return nil
}

// RunRecord returns the run record of runID, or an error wrapping
// ErrNotFound.
func (s *Store) RunRecord(ctx context.Context, runID string) (contract.RunRecordV1, error) {
	var js string
	err := s.q.QueryRowContext(ctx, "SELECT record FROM run_records WHERE run_id = ?", runID).Scan(&js)
	if errors.Is(err, sql.ErrNoRows) {
		return contract.RunRecordV1{}, fmt.Errorf("store: run record %s: %w", runID, ErrNotFound)
	}
	if err != nil {
		return contract.RunRecordV1{}, fmt.Errorf("store: run record %s: %w", runID, err)
	}
	var rec contract.RunRecordV1
	if err := json.Unmarshal([]byte(js), &rec); err != nil {
		return contract.RunRecordV1{}, fmt.Errorf("store: run record %s: %w", runID, err)
	}
	return rec, nil
}

// Stage is the timing of one step of a run (a heal's build, parse, fix…).
type Stage struct {
	RunID string `json:"run_id"`
	Name  string `json:"name"`
	// Status is free text: "ok", "failed", "skipped"…
	Status          string  `json:"status"`
	StartedAt       string  `json:"started_at"`
	DurationSeconds float64 `json:"duration_seconds"`
	// Detail is an optional JSON object.
	Detail json.RawMessage `json:"detail,omitempty"`
}

// AddStage records that the stage name of runID started at start and took
// d. detail is encoded as in [Store.FinishRun]; nil means {}.
func (s *Store) AddStage(ctx context.Context, runID, name, status string, start time.Time, d time.Duration, detail any) error {
	js := []byte("{}")
	if detail != nil {
		var err error
		if js, err = encodeJSON(detail); err != nil {
			return fmt.Errorf("store: add stage %s to %s: detail: %w", name, runID, err)
		}
	}
	_, err := s.q.ExecContext(ctx, "INSERT INTO stages(run_id, name, status, started_at, duration_seconds, detail) VALUES (?, ?, ?, ?, ?, ?)",
		runID, name, status, contract.Timestamp(start), d.Seconds(), string(js))
	if err != nil {
		return fmt.Errorf("store: add stage %s to %s: %w", name, runID, err)
	}
	return nil
}

// Stages returns a run's stages in the order they were added.
func (s *Store) Stages(ctx context.Context, runID string) ([]Stage, error) {
	rows, err := s.q.QueryContext(ctx, "SELECT run_id, name, status, started_at, duration_seconds, detail FROM stages WHERE run_id = ? ORDER BY seq", runID)
	if err != nil {
		return nil, fmt.Errorf("store: stages of %s: %w", runID, err)
	}
	defer rows.Close()
	var out []Stage
	for rows.Next() {
		var st Stage
		var js string
		if err := rows.Scan(&st.RunID, &st.Name, &st.Status, &st.StartedAt, &st.DurationSeconds, &js); err != nil {
			return nil, fmt.Errorf("store: stages of %s: %w", runID, err)
		}
		st.Detail = json.RawMessage(js)
		out = append(out, st)
	}
	return out, rowsErr(rows, "stages of", runID)
}

// AddAccounting records one LLM or tool accounting entry under runID.
func (s *Store) AddAccounting(ctx context.Context, runID string, e contract.AccountingEntry) error {
	js, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("store: add accounting to %s: %w", runID, err)
	}
	if _, err := s.q.ExecContext(ctx, "INSERT INTO accounting(run_id, entry) VALUES (?, ?)", runID, string(js)); err != nil {
		return fmt.Errorf("store: add accounting to %s: %w", runID, err)
	}
	return nil
}

// Accounting returns a run's accounting entries in the order they were added.
func (s *Store) Accounting(ctx context.Context, runID string) ([]contract.AccountingEntry, error) {
	rows, err := s.q.QueryContext(ctx, "SELECT entry FROM accounting WHERE run_id = ? ORDER BY seq", runID)
	if err != nil {
		return nil, fmt.Errorf("store: accounting of %s: %w", runID, err)
	}
	defer rows.Close()
	var out []contract.AccountingEntry
	for rows.Next() {
		var js string
		if err := rows.Scan(&js); err != nil {
			return nil, fmt.Errorf("store: accounting of %s: %w", runID, err)
		}
		var e contract.AccountingEntry
		if err := json.Unmarshal([]byte(js), &e); err != nil {
			return nil, fmt.Errorf("store: accounting of %s: %w", runID, err)
		}
		out = append(out, e)
	}
	return out, rowsErr(rows, "accounting of", runID)
}

func rowsErr(rows *sql.Rows, op, runID string) error {
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: %s %s: %w", op, runID, err)
	}
	return nil
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

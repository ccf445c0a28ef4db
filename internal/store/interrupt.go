package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// StatusInterrupted is the status of a run that stopped before it could
// finish: cancelled (SIGINT, SIGTERM), or found still "running" after its
// process had gone (SIGKILL, a crash, a power cut).
const StatusInterrupted = "interrupted"

// InterruptStale marks as interrupted every run of kind that is still
// running and whose summary stale reports as abandoned (typically: its
// owner process is gone). The summary keeps what it held, plus
// "interrupted": reason. It returns the ids it marked.
func (s *Store) InterruptStale(ctx context.Context, kind string, stale func(summary json.RawMessage) bool, reason string) ([]string, error) {
	runs, err := s.ListRuns(ctx, RunFilter{Kind: kind, Status: StatusRunning, Limit: -1})
	if err != nil {
		return nil, fmt.Errorf("store: find stale runs: %w", err)
	}
	var ids []string
	for _, r := range runs {
		if !stale(r.Summary) {
			continue
		}
		sum := map[string]any{}
		_ = json.Unmarshal(r.Summary, &sum)
		sum["interrupted"] = reason
		js, err := json.Marshal(sum)
		if err != nil {
			return ids, fmt.Errorf("store: interrupt run %s: %w", r.RunID, err)
		}
		// Only a run that is still running is changed: its owner may have
		// finished it in the meantime.
		res, err := s.q.ExecContext(ctx, "UPDATE runs SET status = ?, completed_at = ?, summary = ? WHERE run_id = ? AND status = ?",
			StatusInterrupted, s.now(), string(js), r.RunID, StatusRunning)
		if err != nil {
			return ids, fmt.Errorf("store: interrupt run %s: %w", r.RunID, err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			ids = append(ids, r.RunID)
		}
	}
	return ids, nil
}

package heal

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/store"
)

// StoreRecorder records heal runs in the SQLite run store: the run (kind
// "heal", status green or red, the results as its summary), one event per
// bug with its formatted line, one patch per committed fix, every timed
// stage, the LLM accounting, and results.json as an artifact, so that
// `salve runs show` displays it.
type StoreRecorder struct {
	Store *store.Store
}

var _ Recorder = StoreRecorder{}

// RecordHeal stores r.
func (s StoreRecorder) RecordHeal(ctx context.Context, r *Results) error {
	run, err := s.Store.CreateRun(ctx, store.Run{RunID: r.RunID, Kind: store.KindHeal, Title: fmt.Sprintf("heal %s → %s", r.Repo, r.Branch), StartedAt: r.StartedAt})
	if err != nil {
		return fmt.Errorf("heal: record run: %w", err)
	}
	id := run.RunID
	for _, st := range r.Stages {
		start, _ := time.Parse(contract.TimeLayout, st.StartedAt)
		d := time.Duration(st.Seconds * float64(time.Second))
		if err := s.Store.AddStage(ctx, id, st.Stage, "ok", start, d, map[string]any{"iteration": st.Iteration}); err != nil {
			return fmt.Errorf("heal: record stage %s: %w", st.Stage, err)
		}
	}
	for _, b := range r.Bugs {
		level := "INFO"
		if b.Status != StatusFixed {
			level = "WARN"
		}
		ev := contract.LogEventV1{RunID: id, Level: level, Message: b.Line, Context: map[string]any{
			"status": b.Status, "iteration": b.Iteration, "file_path": b.Bug.FilePath, "line_number": b.Bug.LineNumber,
			"error_type": string(b.Bug.ErrorType), "fixer": b.Fixer, "reason": b.Reason, "commit": b.Commit,
		}}
		if _, err := s.Store.AddEvent(ctx, ev); err != nil {
			return fmt.Errorf("heal: record event: %w", err)
		}
	}
	if err := s.recordPatches(ctx, id, r); err != nil {
		return err
	}
	for _, e := range r.LLM.Accounting {
		if err := s.Store.AddAccounting(ctx, id, e); err != nil {
			return fmt.Errorf("heal: record accounting: %w", err)
		}
	}
	doc, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("heal: encode results: %w", err)
	}
	if _, err := s.Store.PutArtifact(ctx, id, "results.json", doc); err != nil {
		return fmt.Errorf("heal: record results.json: %w", err)
	}
	if err := s.Store.FinishRun(ctx, id, r.Outcome, json.RawMessage(doc)); err != nil {
		return fmt.Errorf("heal: finish run: %w", err)
	}
	return nil
}

// recordPatches stores one patch per committed fix (a unified diff with
// context that `git apply` accepts, so `salve runs patch` can replay it).
func (s StoreRecorder) recordPatches(ctx context.Context, id string, r *Results) error {
	seen := map[string]bool{}
	for _, b := range r.Bugs {
		if b.Commit == "" || b.Diff == "" || seen[b.Commit+b.Bug.FilePath] {
			continue
		}
		seen[b.Commit+b.Bug.FilePath] = true
		p := contract.PatchRecordV1{FilePath: b.Bug.FilePath, Operation: contract.PatchEdit, Diff: b.Diff, ToolID: "salve-heal/" + b.Fixer, RequestID: b.Commit, RunID: id, InScope: true}
		if _, err := s.Store.AddPatch(ctx, p); err != nil {
			return fmt.Errorf("heal: record patch of %s: %w", b.Bug.FilePath, err)
		}
	}
	return nil
}

// Timings reads a recorded heal run's stages back from the store and sums
// their seconds per stage name (for benchmarks and `salve runs show`).
func Timings(ctx context.Context, st *store.Store, runID string) (map[string]float64, error) {
	stages, err := st.Stages(ctx, runID)
	if err != nil {
		return nil, fmt.Errorf("heal: read stages of %s: %w", runID, err)
	}
	out := map[string]float64{}
	for _, s := range stages {
		out[s.Name] += s.DurationSeconds
	}
	return out, nil
}

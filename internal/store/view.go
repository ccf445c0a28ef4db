package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/salve-dev/salve/contract"
)

// RunView is everything recorded under one run, for display. Empty parts
// are empty slices, never nil, so their JSON is [].
type RunView struct {
	Run       Run                      `json:"run"`
	Children  []Run                    `json:"children"`
	Events    []contract.LogEventV1    `json:"events"`
	ToolRuns  []ToolRun                `json:"tool_runs"`
	Patches   []contract.PatchRecordV1 `json:"patches"`
	Record    *contract.RunRecordV1    `json:"record,omitempty"`
	Artifacts []Artifact               `json:"artifacts"`
	Stages    []Stage                  `json:"stages"`
	// Accounting holds LLM and tool accounting entries.
	Accounting []contract.AccountingEntry `json:"accounting"`
}

// View gathers everything recorded under runID.
func (s *Store) View(ctx context.Context, runID string) (RunView, error) {
	var v RunView
	var err error
	if v.Run, err = s.GetRun(ctx, runID); err != nil {
		return v, err
	}
	if v.Children, err = s.ListRuns(ctx, RunFilter{ParentID: runID, Limit: -1}); err != nil {
		return v, err
	}
	if v.Events, err = s.Events(ctx, runID); err != nil {
		return v, err
	}
	if v.ToolRuns, err = s.ToolRuns(ctx, runID); err != nil {
		return v, err
	}
	if v.Patches, err = s.Patches(ctx, runID); err != nil {
		return v, err
	}
	rec, err := s.RunRecord(ctx, runID)
	switch {
	case err == nil:
		v.Record = &rec
	case !errors.Is(err, ErrNotFound):
		return v, err
	}
	if v.Artifacts, err = s.Artifacts(ctx, runID); err != nil {
		return v, err
	}
	if v.Stages, err = s.Stages(ctx, runID); err != nil {
		return v, err
	}
	if v.Accounting, err = s.Accounting(ctx, runID); err != nil {
		return v, fmt.Errorf("store: view %s: %w", runID, err)
	}
	v.fillEmpty()
	return v, nil
}

func (v *RunView) fillEmpty() {
	v.Children = nonNil(v.Children)
	v.Events = nonNil(v.Events)
	v.ToolRuns = nonNil(v.ToolRuns)
	v.Patches = nonNil(v.Patches)
	v.Artifacts = nonNil(v.Artifacts)
	v.Stages = nonNil(v.Stages)
	v.Accounting = nonNil(v.Accounting)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

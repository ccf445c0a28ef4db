package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/store"
)

// Run statuses recorded by [StoreRecorder], besides contract.RunSucceeded
// and contract.RunFailed.
const StatusTimedOut = "timed_out"

// EventExecution is the message of the event that carries an execution's
// input and output objects.
const EventExecution = "execution finished"

// inlineLogMax is the largest log stored inside the database; a larger one
// is stored by reference to the run directory's build.log.
const inlineLogMax = 8 << 20

// StoreRecorder records executions in the run store: a run of kind exec
// (its id is the execution's run id), an event whose context holds the
// ExecutorInput and ExecutorOutput objects, a "build" stage, and the full
// log as the artifact build.log, all in one transaction. The zero value is
// not usable; Store is required.
type StoreRecorder struct {
	// Store is the open run store; the caller closes it.
	Store *store.Store
	// ParentID links the execution to the run that asked for it (a heal).
	ParentID string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

var _ Recorder = StoreRecorder{}

// RecordExecution implements [Recorder].
func (r StoreRecorder) RecordExecution(ctx context.Context, runID string, in contract.ExecutorInput, out contract.ExecutorOutput, logPath string) error {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	took := time.Duration(out.ExecutionTimeSeconds * float64(time.Second))
	end := now().UTC()
	start := end.Add(-took)
	status := RunStatus(out)
	err := r.Store.InTx(ctx, func(tx *store.Store) error {
		if _, err := tx.CreateRun(ctx, store.Run{RunID: runID, Kind: store.KindExec, ParentID: r.ParentID,
			Title: title(out), StartedAt: contract.Timestamp(start)}); err != nil {
			return err
		}
		level := contract.LevelInfo
		if status != contract.RunSucceeded {
			level = contract.LevelError
		}
		if _, err := tx.AddEvent(ctx, contract.LogEventV1{RunID: runID, Level: level, Message: EventExecution,
			Context: map[string]any{"executor_input": in, "executor_output": out}}); err != nil {
			return err
		}
		if err := tx.AddStage(ctx, runID, "build", status, start, took, map[string]any{"exit_code": out.ExitCode}); err != nil {
			return err
		}
		if err := putLog(ctx, tx, runID, logPath); err != nil {
			return err
		}
		return tx.FinishRun(ctx, runID, status, summaryOf(out))
	})
	if err != nil {
		return fmt.Errorf("record execution %s: %w", runID, err)
	}
	return nil
}

// putLog stores the log inline when it is small enough, by reference when
// not.
func putLog(ctx context.Context, tx *store.Store, runID, logPath string) error {
	if logPath == "" {
		return nil
	}
	st, err := os.Stat(logPath)
	if err != nil {
		return fmt.Errorf("build log: %w", err)
	}
	if st.Size() <= inlineLogMax {
		data, err := os.ReadFile(logPath)
		if err != nil {
			return fmt.Errorf("build log: %w", err)
		}
		_, err = tx.PutArtifact(ctx, runID, LogFile, data)
		if !errors.Is(err, store.ErrTooLarge) {
			return err
		}
	}
	_, err = tx.PutArtifactFile(ctx, runID, LogFile, logPath)
	return err
}

// RunStatus is the run status of an execution: succeeded, failed or
// timed_out.
func RunStatus(out contract.ExecutorOutput) string {
	switch {
	case out.EnvironmentMetadata.TimedOut:
		return StatusTimedOut
	case out.ExitCode == 0:
		return contract.RunSucceeded
	}
	return contract.RunFailed
}

func title(out contract.ExecutorOutput) string {
	cmd := out.EnvironmentMetadata.ResolvedCommand
	if i := strings.IndexByte(cmd, '\n'); i >= 0 {
		cmd = cmd[:i]
	}
	if len(cmd) > 120 {
		cmd = cmd[:117] + "..."
	}
	return "exec: " + cmd
}

// summaryOf is the run summary: the output object without the log, which
// lives in the build.log artifact and the event.
func summaryOf(out contract.ExecutorOutput) map[string]any {
	return map[string]any{
		"exit_code":              out.ExitCode,
		"execution_time_seconds": out.ExecutionTimeSeconds,
		"environment_metadata":   out.EnvironmentMetadata,
	}
}

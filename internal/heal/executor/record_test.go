package executor_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/store"
)

// TestStoreRecorder records real executions in a real SQLite run store and
// reads them back the way "salve runs show" does (Store.View).
func TestStoreRecorder(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tests := []struct {
		name, cmd  string
		status     string
		exit       int
		byRef      bool
		timeoutSec int
	}{
		{"fails", "echo compiling; echo 'main.go:3: undefined: x' >&2; exit 2", contract.RunFailed, 2, false, 0},
		{"passes", "echo ok", contract.RunSucceeded, 0, false, 0},
		{"times out", "echo start; sleep 30", executor.StatusTimedOut, 124, false, 1},
		{"large log by reference", "yes 0123456789 | head -c 9000000", contract.RunSucceeded, 0, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runID := uuid.NewString()
			ex := newExec(t, sandbox.IsolationNone, executor.Options{RunID: runID, SkipProbe: true, Recorder: executor.StoreRecorder{Store: st}})
			out, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: t.TempDir(),
				ResolvedBuildCommand: tt.cmd, TimeoutSeconds: tt.timeoutSec})
			if err != nil {
				t.Fatal(err)
			}
			v, err := st.View(context.Background(), runID)
			if err != nil {
				t.Fatal(err)
			}
			if v.Run.Status != tt.status || v.Run.Kind != store.KindExec || v.Run.CompletedAt == "" {
				t.Errorf("run %+v, want status %s", v.Run, tt.status)
			}
			if len(v.Events) != 1 || v.Events[0].Message != executor.EventExecution {
				t.Fatalf("events %+v", v.Events)
			}
			var got struct {
				Out contract.ExecutorOutput `json:"executor_output"`
				In  contract.ExecutorInput  `json:"executor_input"`
			}
			b, _ := json.Marshal(v.Events[0].Context)
			if err := json.Unmarshal(b, &got); err != nil || got.Out.ExitCode != tt.exit || got.In.ResolvedBuildCommand != tt.cmd ||
				got.Out.BuildLog != out.BuildLog {
				t.Errorf("event context: %v, exit %d, cmd %q", err, got.Out.ExitCode, got.In.ResolvedBuildCommand)
			}
			if len(v.Stages) != 1 || v.Stages[0].Name != "build" || v.Stages[0].Status != tt.status {
				t.Errorf("stages %+v", v.Stages)
			}
			art, data, err := st.ArtifactData(context.Background(), runID, executor.LogFile)
			if err != nil {
				t.Fatal(err)
			}
			file, _ := os.ReadFile(out.EnvironmentMetadata.LogPath)
			if string(data) != string(file) || int64(len(data)) != out.EnvironmentMetadata.LogBytes {
				t.Errorf("stored log has %d bytes, the file %d", len(data), len(file))
			}
			if (art.Path != "") != tt.byRef {
				t.Errorf("artifact %+v: stored by reference %v, want %v", art, art.Path != "", tt.byRef)
			}
		})
	}
}

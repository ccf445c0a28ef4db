package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/store"
)

// Example shows how an executor records a build: a run, an event, the full
// log as an artifact, a stage timing, and the final status.
func Example() {
	dir, _ := os.MkdirTemp("", "store-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	s, err := store.Open(filepath.Join(dir, "runs.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	run, _ := s.CreateRun(ctx, store.Run{Kind: store.KindExec, Title: "go build ./..."})
	_, _ = s.AddEvent(ctx, contract.LogEventV1{RunID: run.RunID, Level: contract.LevelInfo, Message: "build started"})
	_, _ = s.PutArtifact(ctx, run.RunID, "build.log", []byte("main.go:3:2: undefined: x\n"))
	_ = s.AddStage(ctx, run.RunID, "build", "failed", time.Now(), 1200*time.Millisecond, nil)
	_ = s.FinishRun(ctx, run.RunID, "failed", map[string]any{"exit_code": 1})

	v, _ := s.View(ctx, run.RunID)
	fmt.Println(v.Run.Kind, v.Run.Status, string(v.Run.Summary))
	fmt.Println(len(v.Events), "event;", v.Artifacts[0].Name, v.Artifacts[0].MediaType, v.Artifacts[0].Size, "bytes")
	fmt.Println(v.Stages[0].Name, v.Stages[0].DurationSeconds)
	// Output:
	// exec failed {"exit_code":1}
	// 1 event; build.log text/plain 26 bytes
	// build 1.2
}

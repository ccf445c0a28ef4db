package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/store"
)

func benchStore(b *testing.B) *store.Store {
	b.Helper()
	s, err := store.Open(filepath.Join(b.TempDir(), "runs.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkAddEvent is one committed event (synchronous=FULL, WAL).
func BenchmarkAddEvent(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	run, err := s.CreateRun(ctx, store.Run{Kind: store.KindExec})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.AddEvent(ctx, contract.LogEventV1{RunID: run.RunID, Message: "line", Context: map[string]any{"i": i}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecordToolRun is what the adapter writes per run, in one
// transaction: the run, 6 events, the tool run, 3 patches, the record.
func BenchmarkRecordToolRun(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	diff := "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		err := s.InTx(ctx, func(tx *store.Store) error {
			run, err := tx.CreateRun(ctx, store.Run{Kind: store.KindTool})
			if err != nil {
				return err
			}
			rec := contract.RunRecordV1{RunID: run.RunID, ToolID: "aider", Status: contract.RunSucceeded}
			for j := 0; j < 6; j++ {
				ev, err := tx.AddEvent(ctx, contract.LogEventV1{RunID: run.RunID, Message: "event"})
				if err != nil {
					return err
				}
				rec.Events = append(rec.Events, ev)
			}
			if err := tx.AddToolRun(ctx, run.RunID, "req", contract.ToolRunRequestV1{ToolID: "aider", Cmd: []string{"aider"}}, rec.Result); err != nil {
				return err
			}
			for j := 0; j < 3; j++ {
				p, err := tx.AddPatch(ctx, contract.PatchRecordV1{RunID: run.RunID, FilePath: fmt.Sprint("f", j), Operation: contract.PatchEdit, Diff: diff, InScope: true})
				if err != nil {
					return err
				}
				rec.Patches = append(rec.Patches, p)
			}
			if err := tx.PutRunRecord(ctx, rec); err != nil {
				return err
			}
			return tx.FinishRun(ctx, run.RunID, contract.RunSucceeded, nil)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkView reads back a run with 50 events and 10 patches.
func BenchmarkView(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	run, err := s.CreateRun(ctx, store.Run{Kind: store.KindTool})
	if err != nil {
		b.Fatal(err)
	}
	for j := 0; j < 50; j++ {
		if _, err := s.AddEvent(ctx, contract.LogEventV1{RunID: run.RunID, Message: "event"}); err != nil {
			b.Fatal(err)
		}
	}
	for j := 0; j < 10; j++ {
		if _, err := s.AddPatch(ctx, contract.PatchRecordV1{RunID: run.RunID, FilePath: fmt.Sprint("f", j), Operation: contract.PatchEdit}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.View(ctx, run.RunID); err != nil {
			b.Fatal(err)
		}
	}
}

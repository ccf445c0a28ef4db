package ui_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/ui"
)

// BenchmarkListPage serves the first and a middle page of a store of
// 10,000 runs (heals with summaries, execs and tool runs), server side.
func BenchmarkListPage(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "runs.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	summary := map[string]any{"repo": "/src/app", "branch": "salve/heal-x", "outcome": "green", "llm": map[string]any{"cost_usd": 0.0123},
		"bugs": strings.Repeat("x", 2000)}
	err = st.InTx(ctx, func(tx *store.Store) error {
		for i := 0; i < 10000; i++ {
			kind := []string{store.KindHeal, store.KindExec, store.KindTool}[i%3]
			r, err := tx.CreateRun(ctx, store.Run{Kind: kind, Title: fmt.Sprintf("run %d", i), StartedAt: fmt.Sprintf("2026-11-%02dT%02d:%02d:%02d.000Z", 1+i/3600%28, i/60%24, i%60, i%60)})
			if err != nil {
				return err
			}
			if err := tx.FinishRun(ctx, r.RunID, "green", summary); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := ui.New(st, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, target := range []string{"/", "/?page=100", "/?kind=heal&page=20"} {
		b.Run(target, func(b *testing.B) {
			for b.Loop() {
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
				if rec.Code != 200 {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}

// BenchmarkStreamLog serves a 64 MiB build log recorded by reference: the
// bytes allocated per request stay far below the log's size, as the page
// is written while the file is read.
func BenchmarkStreamLog(b *testing.B) {
	dir := b.TempDir()
	st, err := store.Open(filepath.Join(dir, "runs.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	logPath := filepath.Join(dir, "build.log")
	f, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	line := "src/app/main.go:12:5: undefined: handler (a long line of a build log to fill the file)\n"
	for n := 0; n < 64<<20; n += len(line) {
		_, _ = f.WriteString(line)
	}
	f.Close()
	ctx := context.Background()
	r, _ := st.CreateRun(ctx, store.Run{Kind: store.KindExec})
	if _, err := st.PutArtifactFile(ctx, r.RunID, "build.log", logPath); err != nil {
		b.Fatal(err)
	}
	srv, _ := ui.New(st, "", nil)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	b.SetBytes(64 << 20)
	for b.Loop() {
		resp, err := hs.Client().Get(hs.URL + "/runs/" + r.RunID + "/artifacts/build.log?lines=5")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

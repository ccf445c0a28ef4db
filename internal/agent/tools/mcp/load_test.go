package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"sync"
	"testing"

	"github.com/salve-dev/salve/internal/agent/tools/mcp/mcptest"
	"github.com/salve-dev/salve/internal/agent/tools/queue"
)

// httpMCPTest serves the mcptest server over streamable HTTP on loopback.
func httpMCPTest(t testing.TB) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcptest.HTTPHandler(mcptest.Options{}))
	mux.Handle("/sse", mcptest.SSEHandler(mcptest.Options{}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestQueueLoad sends 200 concurrent calls through a queue of concurrency 4
// to one MCP server (over stdio, then streamable HTTP) and checks: the
// queue never holds more than 4 slots, the server never sees more than 4
// calls at once, every call returns its result, later callers report their
// wait and depth, and after Close no goroutine or process is left.
func TestQueueLoad(t *testing.T) {
	const callers, bound = 200, 4
	tests := []struct {
		name string
		cfg  func(t *testing.T) ServerConfig
	}{
		{name: "stdio", cfg: func(*testing.T) ServerConfig { return helperConfig("t", "1") }},
		{name: "streamable HTTP", cfg: func(t *testing.T) ServerConfig { return ServerConfig{Name: "t", URL: httpMCPTest(t) + "/mcp"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg(t)
			cfg.Queue = "mcp"
			goroutinesBefore := runtime.NumGoroutine()
			qs, err := queue.New(map[string]int{"mcp": bound}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := qs.Validate([]queue.Binding{{Owner: "mcpServers." + cfg.Name, Queue: cfg.Queue}}); err != nil {
				t.Fatal(err)
			}
			set, err := Start(context.Background(), cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			tool := set.Tools()[0].Queue
			var wg sync.WaitGroup
			results := make([]string, callers)
			depths := make([]int, callers)
			for i := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					slot, err := qs.Acquire(context.Background(), tool)
					if err != nil {
						t.Error(err)
						return
					}
					defer slot.Release()
					depths[i] = slot.Depth
					res, err := set.Call(context.Background(), "t__slow", json.RawMessage(`{"ms":5}`))
					if err != nil {
						t.Error(err)
						return
					}
					results[i] = res.Text
				}()
			}
			wg.Wait()
			q, _ := qs.Get("mcp")
			st := q.Stats()
			var server struct{ Inflight, MaxInflight, Calls int }
			if err := json.Unmarshal([]byte(call(t, set, "t__stats", `{}`).Text), &server); err != nil {
				t.Fatal(err)
			}
			t.Logf("queue: max active %d, acquired %d, total wait %v; server: max in flight %d, calls %d",
				st.MaxActive, st.Acquired, st.TotalWait, server.MaxInflight, server.Calls)
			if st.MaxActive != bound || server.MaxInflight > bound || server.MaxInflight < 2 || server.Calls != callers {
				t.Fatalf("bound broken or unused: queue max %d, server max %d, server calls %d", st.MaxActive, server.MaxInflight, server.Calls)
			}
			maxDepth := 0
			for i, r := range results {
				if r != "slept 5ms" {
					t.Fatalf("call %d returned %q", i, r)
				}
				maxDepth = max(maxDepth, depths[i])
			}
			if maxDepth == 0 || st.TotalWait == 0 {
				t.Fatalf("no caller waited: max depth %d, total wait %v", maxDepth, st.TotalWait)
			}
			if err := set.Close(); err != nil {
				t.Fatal(err)
			}
			if kids := children(t, os.Getpid()); len(kids) != 0 {
				t.Fatalf("children left: %v", kids)
			}
			eventually(t, "goroutines back to the start", func() bool { return runtime.NumGoroutine() <= goroutinesBefore+2 })
		})
	}
}

func benchServer(b *testing.B, cfg ServerConfig) *Server {
	b.Helper()
	s, err := Start(context.Background(), cfg, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

func benchCall(b *testing.B, s *Server, name, args string) {
	b.Helper()
	ctx := context.Background()
	raw := json.RawMessage(args)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Call(ctx, name, raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallStdio is one echo round trip to the mcptest server over
// stdio: the MCP call overhead of the client, the SDK and the pipe.
func BenchmarkCallStdio(b *testing.B) {
	benchCall(b, benchServer(b, helperConfig("t", "1")), "t__echo", `{"text":"hello"}`)
}

// BenchmarkCallHTTP is the same over streamable HTTP on loopback.
func BenchmarkCallHTTP(b *testing.B) {
	benchCall(b, benchServer(b, ServerConfig{Name: "t", URL: httpMCPTest(b) + "/mcp"}), "t__echo", `{"text":"hello"}`)
}

// BenchmarkCallEverythingStdio is an echo to the reference Node server.
func BenchmarkCallEverythingStdio(b *testing.B) {
	s := benchServer(b, ServerConfig{Name: "everything", Command: "node", Args: []string{refServer(b, "server-everything"), "stdio"}})
	benchCall(b, s, "everything__echo", `{"message":"hello"}`)
}

// BenchmarkCallStdio64KiB returns 64 KiB per call.
func BenchmarkCallStdio64KiB(b *testing.B) {
	benchCall(b, benchServer(b, helperConfig("t", "1")), "t__huge", `{"bytes":65536}`)
}

// BenchmarkQueuedCallsParallel runs echo calls from many goroutines
// through a queue of concurrency 4: throughput with the bound in place.
func BenchmarkQueuedCallsParallel(b *testing.B) {
	s := benchServer(b, helperConfig("t", "1"))
	qs, _ := queue.New(map[string]int{"q": 4}, nil)
	raw := json.RawMessage(`{"text":"hello"}`)
	b.ReportAllocs()
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			slot, err := qs.Acquire(context.Background(), "q")
			if err != nil {
				b.Error(err)
				return
			}
			_, err = s.Call(context.Background(), "t__echo", raw)
			slot.Release()
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkStartClose starts the mcptest server over stdio, lists its
// tools and closes it.
func BenchmarkStartClose(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s, err := Start(context.Background(), helperConfig("t", "1"), Options{})
		if err != nil {
			b.Fatal(err)
		}
		_ = s.Close()
	}
}

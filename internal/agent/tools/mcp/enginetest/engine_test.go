package enginetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/ctxguard"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/agent/tools/mcp"
	"github.com/salve-dev/salve/internal/agent/tools/queue"
	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// TestLoad200Sessions runs 200 sessions at once in this process. Each asks
// the LLM server, calls t__slow on one MCP server through a queue of
// concurrency 4 shared by all sessions, then delivers its final report. It
// checks that the bound holds (at the queue and at the server), that every
// session returns a successful result with queue accounting, and that after
// Close no goroutine or child process is left. It logs the memory allocated
// per session and the throughput.
func TestLoad200Sessions(t *testing.T) {
	const sessions, bound = 200, 4
	goroutinesBefore := runtime.NumGoroutine()
	qs, err := queue.New(map[string]int{"mcp": bound}, nil)
	if err != nil {
		t.Fatal(err)
	}
	set := startMCP(t, "mcp")
	srv := newLLM(t, func(r chatRequest) llmtest.Reply {
		if len(r.toolResults()) > 0 {
			return finalReport("done: " + r.toolResults()[0])
		}
		return callTool("c1", "t__slow", `{"ms":5}`)
	})
	results := make([]contract.AIAgentResult, sessions)
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := sessionOpts(t, srv.OpenAIBaseURL(), 131072, fmt.Sprintf("load-%03d", i), []tools.Provider{set}, queue.Queuer{Set: qs}, nil)
			results[i] = agent.Run(context.Background(), o)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&ms1)

	q, _ := qs.Get("mcp")
	st := q.Stats()
	var server struct{ MaxInflight, Calls int }
	res, err := set.Call(context.Background(), "t__stats", json.RawMessage(`{}`))
	if err != nil || json.Unmarshal([]byte(res.Text), &server) != nil {
		t.Fatalf("stats: %v %q", err, res.Text)
	}
	t.Logf("%d sessions in %v (%.0f sessions/s); queue max active %d, server max in flight %d; allocated %.0f KB per session",
		sessions, elapsed.Round(time.Millisecond), float64(sessions)/elapsed.Seconds(), st.MaxActive, server.MaxInflight,
		float64(ms1.TotalAlloc-ms0.TotalAlloc)/sessions/1024)
	if st.MaxActive != bound || server.MaxInflight > bound || server.Calls != sessions {
		t.Fatalf("bound broken: queue max %d, server max %d, server calls %d", st.MaxActive, server.MaxInflight, server.Calls)
	}
	waited := 0
	for i, r := range results {
		if !r.Success || r.FinalReport == nil || *r.FinalReport.Content != "done: slept 5ms" {
			t.Fatalf("session %d: %+v", i, r)
		}
		e := toolEntries(r, "t__slow")
		if len(e) != 1 || e[0].Status != contract.AccountingOK || e[0].MCPServer != "t" || e[0].Queue != "mcp" || e[0].QueueWaitMs == nil {
			t.Fatalf("session %d tool accounting %+v", i, e)
		}
		if *e[0].QueueWaitMs > 0 {
			waited++
		}
	}
	if waited == 0 {
		t.Fatal("no session waited in the queue")
	}
	if err := set.Close(); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if kids := children(t); len(kids) != 0 {
		t.Fatalf("children left: %v", kids)
	}
	deadline := time.Now().Add(2 * time.Minute) // the failure cap only
	for runtime.NumGoroutine() > goroutinesBefore+2 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("goroutines: %d before, %d after\n%s", goroutinesBefore, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestToolPreflightOverflow (docs/contracts/ai-agent.md §2 "Tool Overflow
// Handling", "Forced Final Turn"): an MCP output that would overflow the
// window is replaced by the stub, no tool but the final report is offered
// afterwards, and the session still ends with the model's report.
func TestToolPreflightOverflow(t *testing.T) {
	set := startMCP(t, "")
	srv := newLLM(t, func(r chatRequest) llmtest.Reply {
		if len(r.toolResults()) == 0 {
			return callTool("c1", "t__huge", `{"bytes":200000}`)
		}
		return finalReport("summary without the data")
	})
	logs := &jsonLog{}
	o := sessionOpts(t, srv.OpenAIBaseURL(), 8000, "overflow", []tools.Provider{set}, nil, logs.logger())
	o.NoToolResponseLimit = true
	res := agent.Run(context.Background(), o)
	if !res.Success {
		t.Fatalf("session failed: %s", res.Error)
	}
	if msgs := toolMessages(res); len(msgs) != 1 || msgs[0] != ctxguard.StubText {
		t.Fatalf("tool messages %q, want the stub", msgs)
	}
	reqs := srv.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !slices.Contains(reqs[0].toolNames(), "t__huge") || slices.Contains(reqs[1].toolNames(), "t__huge") || !slices.Contains(reqs[1].toolNames(), agent.ToolFinalReport) {
		t.Fatalf("offered tools: turn 1 %v, turn 2 %v", reqs[0].toolNames(), reqs[1].toolNames())
	}
	drop := logs.lines(t, "tool output dropped: context window budget exceeded")
	if len(drop) == 0 || num(drop[0], "limit_tokens") != 7000 || num(drop[0], "projected_tokens") <= 7000 || drop[0]["tool"] != "t__huge" {
		t.Fatalf("overflow log %v", drop)
	}
}

// TestNoNewToolsAfterOverflow: after a drop, a model that keeps calling
// tools on the forced final turn runs none of them, and the session ends
// with the synthetic context_window_exceeded report.
func TestNoNewToolsAfterOverflow(t *testing.T) {
	set := startMCP(t, "")
	srv := newLLM(t, func(r chatRequest) llmtest.Reply {
		if len(r.toolResults()) == 0 {
			return callTool("c1", "t__huge", `{"bytes":200000}`)
		}
		return callTool(fmt.Sprintf("c%d", len(r.toolResults())+1), "t__echo", `{"text":"more"}`)
	})
	o := sessionOpts(t, srv.OpenAIBaseURL(), 8000, "stubborn", []tools.Provider{set}, nil, nil)
	o.NoToolResponseLimit = true
	res := agent.Run(context.Background(), o)
	if res.Success || res.FinalReport == nil || res.FinalReport.Metadata["reason"] != contract.ReasonContextWindow {
		t.Fatalf("result %+v, want a synthetic %s failure", res, contract.ReasonContextWindow)
	}
	if e := toolEntries(res, "t__echo"); len(e) != 0 {
		t.Fatalf("t__echo ran after the overflow: %+v", e)
	}
}

// TestTurnPreflight (docs/contracts/ai-agent.md §2 "Guard Projection"):
// prompts that already exceed the window force the very first request to be
// the final turn, with only the final report offered, and the blocked target
// is logged.
func TestTurnPreflight(t *testing.T) {
	set := startMCP(t, "")
	srv := newLLM(t, func(chatRequest) llmtest.Reply { return finalReport("best effort") })
	logs := &jsonLog{}
	o := sessionOpts(t, srv.OpenAIBaseURL(), 8000, "big prompt", []tools.Provider{set}, nil, logs.logger())
	o.SystemPrompt = strings.Repeat("context ", 9000)
	res := agent.Run(context.Background(), o)
	if !res.Success {
		t.Fatalf("session failed: %s", res.Error)
	}
	reqs := srv.requests()
	if len(reqs) != 1 || !slices.Equal(reqs[0].toolNames(), []string{agent.ToolFinalReport}) {
		t.Fatalf("turn 1 offered %v, want only the final report", reqs[0].toolNames())
	}
	forced := logs.lines(t, "context guard: projected request exceeds the limit; forcing the final turn")
	if len(forced) != 1 || num(forced[0], "projected_tokens") <= 7000 || num(forced[0], "limit_tokens") != 7000 ||
		forced[0]["blocked_model"] != "m" || forced[0]["forcedFinalTurnReason"] != "context" {
		t.Fatalf("force log %v", forced)
	}
	// The forced-final re-evaluation: the schema is recomputed for the
	// final report alone, the prompts still overflow, so the post-shrink
	// warning is logged and the request goes out best-effort.
	final := logs.lines(t, "forced final turn")
	still := logs.lines(t, "context guard: request still exceeds the limit after restricting tools to the final report; proceeding best-effort")
	prepared := logs.lines(t, "LLM request prepared")
	if len(final) != 1 || final[0]["forcedFinalTurnReason"] != "context" || len(still) != 1 || len(prepared) != 1 {
		t.Fatalf("forced final %v, post-shrink %v, prepared %v", final, still, prepared)
	}
	if num(final[0], "schemaCtxTokens") != num(prepared[0], "schemaCtxTokens") || num(prepared[0], "schemaCtxTokens") == 0 {
		t.Fatalf("schema tokens not recomputed for the final request: %v vs %v", final[0], prepared[0])
	}
}

// TestRequestMetrics (docs/contracts/ai-agent.md §2 "LLM Request Metrics"):
// every `LLM request prepared` line satisfies expectedTokens = ctxTokens +
// pendingCtxTokens + schemaCtxTokens; ctx is 0 on turn 1 and then the
// provider's reported input + output.
func TestRequestMetrics(t *testing.T) {
	set := startMCP(t, "")
	srv := newLLM(t, func(r chatRequest) llmtest.Reply {
		if len(r.toolResults()) == 0 {
			rep := callTool("c1", "t__echo", `{"text":"hi"}`)
			rep.Usage = &llmtest.Usage{Input: 300, Output: 25}
			return rep
		}
		return finalReport("final")
	})
	logs := &jsonLog{}
	res := agent.Run(context.Background(), sessionOpts(t, srv.OpenAIBaseURL(), 131072, "metrics", []tools.Provider{set}, nil, logs.logger()))
	if !res.Success {
		t.Fatalf("session failed: %s", res.Error)
	}
	prepared := logs.lines(t, "LLM request prepared")
	if len(prepared) != 2 || num(prepared[0], "ctxTokens") != 0 || num(prepared[1], "ctxTokens") != 325 {
		t.Fatalf("LLM request prepared lines %v", prepared)
	}
	for _, l := range prepared {
		if num(l, "expectedTokens") != num(l, "ctxTokens")+num(l, "pendingCtxTokens")+num(l, "schemaCtxTokens") ||
			num(l, "schemaCtxTokens") == 0 || num(l, "pendingCtxTokens") == 0 {
			t.Fatalf("metrics broken in %v", l)
		}
	}
}

// TestMCPCrashAndTimeout (docs/contracts/ai-agent.md §1 toolTimeout;
// docs/contracts/ai-agent-cli.md §7: a crash mid-session only fails calls):
// the session goes on after a tool timeout and after the server crashed, and
// still delivers its report.
func TestMCPCrashAndTimeout(t *testing.T) {
	set := startMCP(t, "")
	steps := []string{`t__slow|{"ms":10000}`, `t__crash|{}`, `t__echo|{"text":"x"}`}
	srv := newLLM(t, func(r chatRequest) llmtest.Reply {
		n := len(r.toolResults())
		if n >= len(steps) {
			return finalReport(strings.Join(r.toolResults(), " / "))
		}
		name, args, _ := strings.Cut(steps[n], "|")
		return callTool(fmt.Sprintf("c%d", n+1), name, args)
	})
	o := sessionOpts(t, srv.OpenAIBaseURL(), 131072, "crash", []tools.Provider{set}, nil, nil)
	o.ToolTimeout = 300 * time.Millisecond
	res := agent.Run(context.Background(), o)
	if !res.Success {
		t.Fatalf("session failed: %s", res.Error)
	}
	msgs := toolMessages(res)
	if len(msgs) != 3 || msgs[0] != "(tool failed: timeout)" || !strings.HasPrefix(msgs[1], "(tool failed: MCP server is not running") ||
		!strings.HasPrefix(msgs[2], "(tool failed: MCP server is not running") {
		t.Fatalf("tool messages %q", msgs)
	}
	if e := toolEntries(res, "t__slow"); len(e) != 1 || e[0].Status != contract.AccountingFail || e[0].Error != "timeout" {
		t.Fatalf("timeout accounting %+v", e)
	}
}

// TestMCPSupervisedThroughEngine: a supervised server's requestTimeoutMs
// is reported like the engine's own timeout, the call that crashes the
// server fails, and the call after its restart succeeds, in one session.
func TestMCPSupervisedThroughEngine(t *testing.T) {
	cfg := mcp.ServerConfig{Name: "t", Command: os.Args[0], Env: map[string]string{helperEnv: "1"}, RequestTimeout: 200 * time.Millisecond}
	restarted := make(chan struct{}, 1)
	set, err := mcp.Start(context.Background(), cfg, mcp.Options{Supervise: true, OnState: func(st mcp.State) {
		if st.Event == mcp.EventRestarted {
			restarted <- struct{}{}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = set.Close() })
	steps := []string{`t__slow|{"ms":60000}`, `t__crash|{}`, `t__echo|{"text":"back"}`}
	srv := newLLM(t, func(r chatRequest) llmtest.Reply {
		n := len(r.toolResults())
		if n >= len(steps) {
			return finalReport(strings.Join(r.toolResults(), " / "))
		}
		if n == 2 {
			select { // the model's next call comes after the restart
			case <-restarted:
			case <-time.After(time.Minute):
			}
		}
		name, args, _ := strings.Cut(steps[n], "|")
		return callTool(fmt.Sprintf("c%d", n+1), name, args)
	})
	o := sessionOpts(t, srv.OpenAIBaseURL(), 131072, "supervised", []tools.Provider{set}, nil, nil)
	res := agent.Run(context.Background(), o)
	if !res.Success {
		t.Fatalf("session failed: %s", res.Error)
	}
	msgs := toolMessages(res)
	if len(msgs) != 3 || msgs[0] != "(tool failed: timeout)" || !strings.HasPrefix(msgs[1], "(tool failed: MCP server is not running") || msgs[2] != "back" {
		t.Fatalf("tool messages %q", msgs)
	}
	if e := toolEntries(res, "t__slow"); len(e) != 1 || e[0].Error != "timeout" {
		t.Fatalf("timeout accounting %+v", e)
	}
}

// BenchmarkSession is one two-turn session (an LLM request over loopback,
// an MCP echo over stdio through the queue, the final report) per
// operation: memory per session and sessions per second. Run with
// -cpu 1,2 and RunParallel via -bench Parallel for throughput.
func BenchmarkSession(b *testing.B) {
	benchSessions(b, false)
}

// BenchmarkSessionParallel runs the sessions from many goroutines.
func BenchmarkSessionParallel(b *testing.B) {
	benchSessions(b, true)
}

func benchSessions(b *testing.B, parallel bool) {
	qs, _ := queue.New(map[string]int{"mcp": 4}, nil)
	set := startMCPB(b, "mcp")
	srv := llmtest.NewServer()
	b.Cleanup(srv.Close)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		var req chatRequest
		_ = r.Decode(&req)
		if len(req.toolResults()) > 0 {
			return finalReport("done")
		}
		return callTool("c1", "t__echo", `{"text":"hi"}`)
	})
	one := func() {
		res := agent.Run(context.Background(), sessionOpts(b, srv.OpenAIBaseURL(), 131072, "bench", []tools.Provider{set}, queue.Queuer{Set: qs}, nil))
		if !res.Success {
			b.Errorf("session failed: %s", res.Error)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	if !parallel {
		for b.Loop() {
			one()
		}
		return
	}
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			one()
		}
	})
}

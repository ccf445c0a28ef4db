package ctxguard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// logSink captures the guard's log records as decoded JSON objects.
type logSink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *logSink) records(t *testing.T, msg string) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(s.buf.Bytes()), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

func newGuard(t *testing.T, targets ...Target) (*Guard, *logSink) {
	t.Helper()
	sink := &logSink{}
	g, err := New(Options{Targets: targets, StubTokens: 9, Logger: slog.New(slog.NewJSONHandler(sink, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	return g, sink
}

// small is a target with limit 1000 - 100 - 400 = 500.
var small = Target{Provider: "p", Model: "small", ContextWindow: 1000, BufferTokens: 100, MaxOutputTokens: 400}

// big is a target with limit 10000 - 0 - 1000 = 9000.
var big = Target{Provider: "q", Model: "big", ContextWindow: 10000, MaxOutputTokens: 1000}

func num(m map[string]any, k string) int {
	f, _ := m[k].(float64)
	return int(f)
}

func TestNewWithoutTargets(t *testing.T) {
	if _, err := New(Options{}); !errors.Is(err, ErrNoTargets) {
		t.Fatalf("New without targets: %v", err)
	}
}

func TestTargetLimit(t *testing.T) {
	if small.Limit() != 500 || big.Limit() != 9000 {
		t.Fatalf("limits %d %d", small.Limit(), big.Limit())
	}
	g, _ := newGuard(t, big, small)
	if g.Limit() != 500 {
		t.Fatalf("guard limit = %d, want the tightest 500", g.Limit())
	}
}

// TestLLMRequestPrepared checks the metrics line of §2 "LLM Request
// Metrics" over two turns: ctx 0 on turn 1, then the provider's ctx.
func TestLLMRequestPrepared(t *testing.T) {
	g, sink := newGuard(t, big)
	ctx := context.Background()
	g.AddPending(120) // system + user prompt
	g.SetSchemaTokens(30)
	if d := g.TurnPreflight(ctx); d.ForceFinal {
		t.Fatalf("turn 1 forced: %+v", d)
	}
	m1 := g.RequestPrepared(ctx, big)
	g.CommitResponse(contract.TokenUsage{InputTokens: 150, OutputTokens: 40, CacheReadInputTokens: ptr(10)}, 0)
	g.ToolPreflight(ctx, "t__echo", 25)
	g.AddPending(5) // a retry notice
	g.TurnPreflight(ctx)
	m2 := g.RequestPrepared(ctx, big)

	tests := []struct {
		name string
		got  RequestMetrics
		want RequestMetrics
	}{
		{name: "turn 1", got: m1, want: RequestMetrics{CtxTokens: 0, NewTokens: 120, SchemaTokens: 30, ExpectedTokens: 150}},
		{name: "turn 2", got: m2, want: RequestMetrics{CtxTokens: 200, NewTokens: 30, SchemaTokens: 30, ExpectedTokens: 260}},
	}
	logs := sink.records(t, "LLM request prepared")
	if len(logs) != 2 {
		t.Fatalf("%d LLM request prepared lines, want 2", len(logs))
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: metrics %+v, want %+v", tt.name, tt.got, tt.want)
		}
		l := logs[i]
		if num(l, "expectedTokens") != num(l, "ctxTokens")+num(l, "pendingCtxTokens")+num(l, "schemaCtxTokens") ||
			num(l, "expectedTokens") != tt.want.ExpectedTokens || num(l, "ctxTokens") != tt.want.CtxTokens {
			t.Errorf("%s: log line %v breaks expectedTokens = ctx + pending + schema", tt.name, l)
		}
	}
}

// TestToolPreflight covers §2 "Tool Overflow Handling" at the tool_preflight
// trigger point.
func TestToolPreflight(t *testing.T) {
	tests := []struct {
		name          string
		pending       int
		outputs       []int
		wantCommit    []bool
		wantNew       int
		wantRemaining int // on the last log line; 0 means the field is absent
	}{
		{name: "fits", pending: 100, outputs: []int{200, 150}, wantCommit: []bool{true, true}, wantNew: 350},
		{name: "exactly at the limit fits", pending: 100, outputs: []int{400}, wantCommit: []bool{true}, wantNew: 400},
		{name: "one over is dropped", pending: 100, outputs: []int{401}, wantCommit: []bool{false}, wantNew: 9, wantRemaining: 400},
		{name: "second output overflows", pending: 100, outputs: []int{300, 200}, wantCommit: []bool{true, false}, wantNew: 309, wantRemaining: 100},
		{name: "in-flight output that fits still commits", pending: 100, outputs: []int{300, 200, 50}, wantCommit: []bool{true, false, true}, wantNew: 359, wantRemaining: 100},
		{name: "no remaining when already over", pending: 600, outputs: []int{1}, wantCommit: []bool{false}, wantNew: 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, sink := newGuard(t, small)
			g.AddPending(tt.pending)
			anyDrop := false
			for i, out := range tt.outputs {
				d := g.ToolPreflight(context.Background(), "s__tool", out)
				if d.Commit != tt.wantCommit[i] {
					t.Fatalf("output %d (%d tokens): commit %v, want %v (%+v)", i, out, d.Commit, tt.wantCommit[i], d)
				}
				if !d.Commit {
					anyDrop = true
					if d.StubTokens != 9 || d.Tokens != out || len(d.Blocked) != 1 || d.Blocked[0] != small {
						t.Fatalf("drop decision %+v", d)
					}
				}
			}
			if c := g.Counters(); c.New != tt.wantNew || c.Pending != tt.pending {
				t.Fatalf("counters %+v, want new %d pending %d", c, tt.wantNew, tt.pending)
			}
			if g.ToolBudgetExceeded() != anyDrop || g.Forced() != anyDrop {
				t.Fatalf("toolBudgetExceeded %v forced %v, want %v", g.ToolBudgetExceeded(), g.Forced(), anyDrop)
			}
			if g.AllowTool("s__other") == anyDrop || !g.AllowTool(FinalReportTool) {
				t.Fatalf("AllowTool after drop=%v is wrong", anyDrop)
			}
			logs := sink.records(t, "tool output dropped: context window budget exceeded")
			if !anyDrop {
				if len(logs) != 0 {
					t.Fatalf("unexpected overflow log %v", logs)
				}
				return
			}
			last := logs[len(logs)-1]
			if num(last, "limit_tokens") != 500 || num(last, "projected_tokens") <= 500 || last["blocked_model"] != "small" {
				t.Fatalf("overflow log %v", last)
			}
			if _, ok := last["remaining_tokens"]; ok != (tt.wantRemaining > 0) || num(last, "remaining_tokens") != tt.wantRemaining {
				t.Fatalf("remaining_tokens in %v, want %d", last, tt.wantRemaining)
			}
		})
	}
}

// TestTurnPreflight covers the turn_preflight trigger point and the
// recording of the blocked targets.
func TestTurnPreflight(t *testing.T) {
	tight := Target{Provider: "r", Model: "tight", ContextWindow: 800, MaxOutputTokens: 400} // limit 400
	tests := []struct {
		name        string
		targets     []Target
		pending     int
		newTokens   int
		schema      int
		wantForce   bool
		wantBlocked []string
	}{
		{name: "below", targets: []Target{small}, pending: 300, newTokens: 100, schema: 50},
		{name: "new is flushed and counts", targets: []Target{small}, pending: 300, newTokens: 180, schema: 50, wantForce: true, wantBlocked: []string{"p/small"}},
		{name: "schema tips it over", targets: []Target{small}, pending: 450, schema: 51, wantForce: true, wantBlocked: []string{"p/small"}},
		{name: "only the small target is blocked", targets: []Target{big, small}, pending: 501, wantForce: true, wantBlocked: []string{"p/small"}},
		{name: "blocked tightest first", targets: []Target{big, small, tight}, pending: 600, wantForce: true, wantBlocked: []string{"r/tight", "p/small"}},
		{name: "only the tight target is blocked", targets: []Target{small, tight}, pending: 450, wantForce: true, wantBlocked: []string{"r/tight"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, sink := newGuard(t, tt.targets...)
			g.AddPending(tt.pending)
			if tt.newTokens > 0 && !g.ToolPreflight(context.Background(), "x__y", tt.newTokens).Commit {
				t.Fatal("setup output dropped")
			}
			g.SetSchemaTokens(tt.schema)
			d := g.TurnPreflight(context.Background())
			c := g.Counters()
			if c.New != 0 || c.Pending != tt.pending+tt.newTokens {
				t.Fatalf("counters after flush %+v", c)
			}
			if d.ForceFinal != tt.wantForce || d.Projected != tt.pending+tt.newTokens+tt.schema {
				t.Fatalf("decision %+v, want force %v", d, tt.wantForce)
			}
			names := targetNames(d.Blocked)
			if len(names) != len(tt.wantBlocked) {
				t.Fatalf("blocked %v, want %v", names, tt.wantBlocked)
			}
			for i := range names {
				if names[i] != tt.wantBlocked[i] {
					t.Fatalf("blocked %v, want %v", names, tt.wantBlocked)
				}
			}
			logs := sink.records(t, "context guard: projected request exceeds the limit; forcing the final turn")
			if (len(logs) == 1) != tt.wantForce {
				t.Fatalf("%d force logs, want force=%v", len(logs), tt.wantForce)
			}
			if tt.wantForce && logs[0]["forcedFinalTurnReason"] != ReasonContext {
				t.Fatalf("force log %v", logs[0])
			}
			if g.AllowTool("agent__progress_report") == tt.wantForce {
				t.Fatal("progress_report allowed after the guard fired")
			}
		})
	}
}

// TestForcedFinalTurn covers §2 "Forced Final Turn": the schema is
// recomputed for the reduced tool set, the guard re-evaluates, and the
// post-shrink warning appears only when still over.
func TestForcedFinalTurn(t *testing.T) {
	tests := []struct {
		name        string
		pending     int
		schema      int
		instruction int
		finalSchema int
		wantOver    bool
	}{
		{name: "shrinking the schema makes it fit", pending: 400, schema: 200, instruction: 30, finalSchema: 60},
		{name: "still over after shrinking", pending: 480, schema: 200, instruction: 30, finalSchema: 60, wantOver: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, sink := newGuard(t, small)
			ctx := context.Background()
			g.AddPending(tt.pending)
			g.SetSchemaTokens(tt.schema)
			if !g.TurnPreflight(ctx).ForceFinal {
				t.Fatal("turn preflight did not fire")
			}
			d := g.ForceFinal(ctx, tt.instruction, tt.finalSchema)
			want := tt.pending + tt.instruction + tt.finalSchema
			if d.Projected != want || d.StillOver != tt.wantOver || g.Counters().Schema != tt.finalSchema {
				t.Fatalf("final decision %+v (schema %d), want projected %d over %v", d, g.Counters().Schema, want, tt.wantOver)
			}
			if got := sink.records(t, "forced final turn"); len(got) != 1 || got[0]["forcedFinalTurnReason"] != "context" {
				t.Fatalf("forced final log %v", got)
			}
			warn := sink.records(t, "context guard: request still exceeds the limit after restricting tools to the final report; proceeding best-effort")
			if (len(warn) == 1) != tt.wantOver {
				t.Fatalf("post-shrink warnings %v, want over=%v", warn, tt.wantOver)
			}
			m := g.RequestPrepared(ctx, small)
			if m.ExpectedTokens != want || m.SchemaTokens != tt.finalSchema {
				t.Fatalf("request metrics %+v, want expected %d", m, want)
			}
			if g.AllowTool("s__t") || !g.AllowTool(FinalReportTool) {
				t.Fatal("tools other than the final report allowed on the forced final turn")
			}
		})
	}
}

func TestCommitResponse(t *testing.T) {
	tests := []struct {
		name     string
		usage    contract.TokenUsage
		estimate int
		want     int
	}{
		{name: "reported", usage: contract.TokenUsage{InputTokens: 300, OutputTokens: 50}, want: 350},
		{name: "cache read counts", usage: contract.TokenUsage{InputTokens: 100, OutputTokens: 50, CacheReadInputTokens: ptr(200)}, want: 350},
		{name: "openai cached tokens are already in input", usage: contract.TokenUsage{InputTokens: 300, OutputTokens: 50, CachedTokens: ptr(200)}, want: 350},
		{name: "no usage falls back to the estimate", estimate: 40, want: 1000 + 70 + 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, _ := newGuard(t, big)
			g.CommitResponse(contract.TokenUsage{InputTokens: 900, OutputTokens: 100}, 0)
			g.AddPending(50)
			g.ToolPreflight(context.Background(), "a__b", 20)
			g.CommitResponse(tt.usage, tt.estimate)
			if c := g.Counters(); c.Current != tt.want || c.Pending != 0 || c.New != 0 {
				t.Fatalf("counters %+v, want current %d", c, tt.want)
			}
		})
	}
}

// TestParallelToolPreflight runs many outputs at once and checks that the
// committed total never passes the limit.
func TestParallelToolPreflight(t *testing.T) {
	g, _ := newGuard(t, small)
	var wg sync.WaitGroup
	var mu sync.Mutex
	committed, dropped := 0, 0
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := g.ToolPreflight(context.Background(), "a__b", 7)
			mu.Lock()
			if d.Commit {
				committed++
			} else {
				dropped++
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if committed*7+dropped*9 != g.Counters().New || committed*7 > 500 || dropped == 0 {
		t.Fatalf("committed %d dropped %d new %d", committed, dropped, g.Counters().New)
	}
}

// FuzzGuard drives the guard with an arbitrary sequence of operations and
// checks the contract's invariants after each one.
func FuzzGuard(f *testing.F) {
	f.Add([]byte{0, 10, 1, 200, 2, 50, 3, 4, 5, 250, 1, 255, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		g, _ := New(Options{Targets: []Target{small, big}, StubTokens: 9})
		ctx := context.Background()
		fired := false
		for i := 0; i+1 < len(ops); i += 2 {
			n := int(ops[i+1]) * 3
			before := g.Counters()
			switch ops[i] % 6 {
			case 0:
				g.AddPending(n)
			case 1:
				d := g.ToolPreflight(ctx, "a__b", n)
				if d.Commit && before.Projected()+n > g.Limit() {
					t.Fatalf("committed %d over the limit from %+v", n, before)
				}
				if !d.Commit && g.AllowTool("a__b") {
					t.Fatal("a tool may start after a drop")
				}
			case 2:
				g.SetSchemaTokens(n)
			case 3:
				d := g.TurnPreflight(ctx)
				if c := g.Counters(); c.New != 0 || c.Pending != before.Pending+before.New {
					t.Fatalf("flush lost tokens: %+v -> %+v", before, c)
				}
				if !d.ForceFinal && d.Projected > g.Limit() {
					t.Fatalf("over the limit without forcing: %+v", d)
				}
			case 4:
				m := g.RequestPrepared(ctx, small)
				if m.ExpectedTokens != m.CtxTokens+m.NewTokens+m.SchemaTokens || m.CtxTokens != before.Current {
					t.Fatalf("metrics %+v from %+v", m, before)
				}
			case 5:
				g.CommitResponse(contract.TokenUsage{InputTokens: n, OutputTokens: 1}, 0)
			}
			if fired && (g.AllowTool("x__y") || !g.Forced()) {
				t.Fatal("the guard un-fired")
			}
			fired = g.Forced()
		}
	})
}

func ptr(n int) *int { return &n }

func BenchmarkToolPreflight(b *testing.B) {
	g, _ := New(Options{Targets: []Target{big}})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		g.ToolPreflight(ctx, "a__b", 1)
		g.TurnPreflight(ctx)
		g.CommitResponse(contract.TokenUsage{InputTokens: 10, OutputTokens: 1}, 0)
	}
}

// TestLastActivation: the guard reports the numbers of its latest
// activation, for the remaining-tokens metric: what was left before the
// dropped output, or before the turn's new messages.
func TestLastActivation(t *testing.T) {
	g, _ := newGuard(t, small)
	if _, ok := g.LastActivation(); ok {
		t.Fatal("an activation before the guard fired")
	}
	g.AddPending(100)
	g.ToolPreflight(context.Background(), "s__tool", 50)
	if _, ok := g.LastActivation(); ok {
		t.Fatal("an output that fits counted as an activation")
	}
	g.ToolPreflight(context.Background(), "s__tool", 400)
	if a, ok := g.LastActivation(); !ok || a != (Activation{Limit: 500, Projected: 550, Remaining: 350}) {
		t.Fatalf("after the drop: %+v %v", a, ok)
	}
	g2, _ := newGuard(t, small)
	g2.AddPending(450)
	g2.SetSchemaTokens(51)
	g2.TurnPreflight(context.Background())
	if a, ok := g2.LastActivation(); !ok || a != (Activation{Limit: 500, Projected: 501, Remaining: 449}) {
		t.Fatalf("after the forced turn: %+v %v", a, ok)
	}
}

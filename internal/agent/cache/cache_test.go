package cache

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tools"
)

// clock is an injected clock.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func openTest(t *testing.T, maxEntries int) (*Cache, *clock) {
	t.Helper()
	c, err := Open(context.Background(), filepath.Join(t.TempDir(), "sub", "cache.db"), maxEntries)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	clk := &clock{now: time.UnixMilli(1_700_000_000_000)}
	c.Now = clk.Now
	return c, clk
}

func TestGetSetTTL(t *testing.T) {
	ctx := context.Background()
	c, clk := openTest(t, 0)
	if err := c.Set(ctx, "k", Meta{Kind: "tool"}, map[string]string{"result": "v"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		advance time.Duration
		ttl     time.Duration
		hit     bool
	}{
		{name: "fresh", ttl: time.Minute, hit: true},
		{name: "ttl off", ttl: 0, hit: false},
		{name: "within", advance: 59 * time.Second, ttl: time.Minute, hit: true},
		{name: "lowered ttl shortens life", advance: 0, ttl: 30 * time.Second, hit: false},
		{name: "expired", advance: 2 * time.Second, ttl: time.Hour, hit: false},
	}
	for _, tc := range cases {
		clk.now = clk.now.Add(tc.advance)
		var v map[string]string
		age, ok, err := c.Get(ctx, "k", tc.ttl, &v)
		if err != nil || ok != tc.hit || (ok && v["result"] != "v") {
			t.Fatalf("%s: hit %v (age %s) %v, want %v", tc.name, ok, age, err, tc.hit)
		}
	}
	if _, ok, _ := c.Get(ctx, "other", time.Hour, new(any)); ok {
		t.Fatal("hit on an absent key")
	}
	if err := c.Set(ctx, "k2", Meta{Kind: "tool"}, "x", 0); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.Get(ctx, "k2", time.Hour, new(any)); ok {
		t.Fatal("ttl 0 stored an entry")
	}
}

func TestEvictionOldestFirst(t *testing.T) {
	ctx := context.Background()
	c, clk := openTest(t, 2)
	for _, k := range []string{"a", "b", "c"} {
		clk.now = clk.now.Add(time.Second)
		if err := c.Set(ctx, k, Meta{Kind: "tool"}, k, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := c.Len(ctx); n != 2 {
		t.Fatalf("%d entries, want 2", n)
	}
	for k, want := range map[string]bool{"a": false, "b": true, "c": true} {
		if _, ok, _ := c.Get(ctx, k, time.Hour, new(string)); ok != want {
			t.Errorf("%s: hit %v, want %v", k, ok, want)
		}
	}
	// A set also drops expired entries.
	clk.now = clk.now.Add(2 * time.Hour)
	if err := c.Set(ctx, "d", Meta{Kind: "tool"}, "d", time.Hour); err != nil {
		t.Fatal(err)
	}
	if n, _ := c.Len(ctx); n != 1 {
		t.Fatalf("%d entries after expiry, want 1", n)
	}
}

func TestKeys(t *testing.T) {
	tool := tools.Tool{Name: "srv__search", LocalName: "search", Server: "srv", Kind: tools.KindMCP}
	a, _ := ToolKey(tool, json.RawMessage(`{"q":"x","n":1}`))
	b, _ := ToolKey(tool, json.RawMessage(`{ "n": 1, "q": "x" }`))
	c, _ := ToolKey(tool, json.RawMessage(`{"q":"y","n":1}`))
	other := tool
	other.Server = "srv2"
	d, _ := ToolKey(other, json.RawMessage(`{"q":"x","n":1}`))
	if a != b || a == c || a == d || len(a) != 64 {
		t.Fatalf("tool keys: %s %s %s %s", a, b, c, d)
	}
	k1, _ := AgentKey("h", "question", "markdown", nil)
	k2, _ := AgentKey("h", "question", "pipe", nil)
	k3, _ := AgentKey("h2", "question", "markdown", nil)
	k4, _ := AgentKey("h", "question", "markdown", json.RawMessage(`{"type":"object"}`))
	if k1 == k2 || k1 == k3 || k1 != k4 {
		t.Fatalf("agent keys: format, hash and a non-json schema: %s %s %s %s", k1, k2, k3, k4)
	}
}

func TestToolsLookupStore(t *testing.T) {
	ctx := context.Background()
	c, clk := openTest(t, 0)
	tc := &Tools{Cache: c, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), TTL: func(t tools.Tool) time.Duration {
		if t.Kind == tools.KindREST {
			return 0
		}
		return time.Minute
	}}
	mcp := tools.Tool{Name: "s__t", LocalName: "t", Server: "s", Kind: tools.KindMCP}
	rest := tools.Tool{Name: "rest__r", Server: "rest", Kind: tools.KindREST}
	args := json.RawMessage(`{"a":1}`)
	if _, ok := tc.Lookup(ctx, mcp, args); ok {
		t.Fatal("hit before a store")
	}
	tc.Store(ctx, mcp, args, "out")
	tc.Store(ctx, rest, args, "out")
	if out, ok := tc.Lookup(ctx, mcp, args); !ok || out != "out" {
		t.Fatalf("miss after a store: %q", out)
	}
	if _, ok := tc.Lookup(ctx, rest, args); ok {
		t.Fatal("a tool with ttl 0 was cached")
	}
	clk.now = clk.now.Add(time.Minute + time.Millisecond)
	if _, ok := tc.Lookup(ctx, mcp, args); ok {
		t.Fatal("hit past the ttl")
	}
}

func TestResponseValid(t *testing.T) {
	s := "x"
	cases := []struct {
		r    Response
		want bool
	}{
		{Response{Conversation: []contract.Message{}, FinalReport: &contract.FinalReport{Format: "markdown", TS: 1, Content: &s}}, true},
		{Response{FinalReport: &contract.FinalReport{Format: "markdown", TS: 1}}, false},
		{Response{Conversation: []contract.Message{}, FinalReport: &contract.FinalReport{TS: 1}}, false},
		{Response{Conversation: []contract.Message{}}, false},
	}
	for i, tc := range cases {
		if tc.r.Valid() != tc.want {
			t.Errorf("case %d: Valid %v", i, !tc.want)
		}
	}
}

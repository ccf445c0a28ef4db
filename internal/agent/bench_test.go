package agent

import (
	"context"
	"testing"

	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/llm"
)

// benchSession runs a session of turns tool turns and one report turn, with
// an in-memory provider and tool, so the cost measured is the engine's own.
func benchSession(b *testing.B, transport string, turns int) {
	b.Helper()
	tool := echoTools()
	call := toolCall("c", "t__echo", `{"text":"hello"}`)
	final := finalCall("done")
	if transport != TransportNative {
		final = text(`<ai-agent-abcdef01-FINAL tool="agent__final_report" format="markdown"># done</ai-agent-abcdef01-FINAL>`, "stop")
	}
	provider := &fakeLLM{complete: func(n int, req llm.Request) (llm.Response, error) {
		// In xml mode the call is a tag in the first advertised slot.
		if len(req.Session.Slots) > 0 {
			slot := req.Session.Slots[0][len("abcdef01-"):]
			return text(`<ai-agent-abcdef01-`+slot+` tool="t__echo">{"text":"hello"}</ai-agent-abcdef01-`+slot+`>`, "stop"), nil
		}
		count := 0
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				count++
			}
		}
		if count < turns {
			return call, nil
		}
		return final, nil
	}}
	o := Options{SystemPrompt: "sys", UserPrompt: "task", Transport: transport, MaxTurns: turns + 1, Format: FormatMarkdown,
		Nonce: "abcdef01", Targets: []Target{{Provider: "p", Model: "m", Client: provider}}, Tools: []tools.Provider{tool}}
	b.ReportAllocs()
	for b.Loop() {
		provider.reqs = provider.reqs[:0]
		x, err := New(o)
		if err != nil {
			b.Fatal(err)
		}
		if res := x.Run(context.Background()); !res.Success {
			b.Fatalf("session failed: %s", res.Error)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(turns+1), "ns/turn")
}

func BenchmarkSession10TurnsNative(b *testing.B)   { benchSession(b, TransportNative, 10) }
func BenchmarkSession10TurnsXMLFinal(b *testing.B) { benchSession(b, TransportXMLFinal, 10) }
func BenchmarkSession10TurnsXML(b *testing.B)      { benchSession(b, TransportXML, 10) }

// BenchmarkParallelSessions runs many one-tool-turn sessions at once in one
// process, sharing the provider and the tool, as a server embedding the
// engine would.
func BenchmarkParallelSessions(b *testing.B) {
	tool := echoTools()
	provider := &fakeLLM{complete: func(_ int, req llm.Request) (llm.Response, error) {
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				return finalCall("done"), nil
			}
		}
		return toolCall("c", "t__echo", `{"text":"hello"}`), nil
	}}
	o := Options{SystemPrompt: "sys", UserPrompt: "task", Transport: TransportNative, Format: FormatMarkdown,
		Targets: []Target{{Provider: "p", Model: "m", Client: provider}}, Tools: []tools.Provider{tool}}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			x, err := New(o)
			if err != nil {
				b.Error(err)
				return
			}
			if res := x.Run(context.Background()); !res.Success {
				b.Errorf("session failed: %s", res.Error)
				return
			}
		}
	})
}

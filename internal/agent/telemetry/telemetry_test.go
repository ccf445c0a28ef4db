package telemetry

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/agent"
)

func TestDisabled(t *testing.T) {
	for v, want := range map[string]bool{"1": true, "true": true, " YES ": true, "on": true, "": false, "0": false, "false": false, "off": false, "maybe": false} {
		if got := Disabled(func(string) string { return v }); got != want {
			t.Errorf("Disabled(%q) = %v", v, got)
		}
	}
}

func TestNormalizeSampler(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"always_on", SamplerAlwaysOn, true}, {"Always-Off", SamplerAlwaysOff, true}, {" ratio ", SamplerRatio, true},
		{"parent", SamplerParent, true}, {"ratio:0.1", "", false}, {"", "", false},
	}
	for _, tc := range cases {
		if got, ok := NormalizeSampler(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("NormalizeSampler(%q) = %q, %v", tc.in, got, ok)
		}
	}
}

// TestRelayNestsSteps checks the wire: start ops carry their parent step,
// ends name the step they close.
func TestRelayNestsSteps(t *testing.T) {
	var b strings.Builder
	r := NewRelay(&b, nil)
	ctx, endSession := r.StartSession(context.Background(), agent.SessionInfo{Trace: agent.Trace{AgentID: "a"}})
	tctx, endTurn := r.StartTurn(ctx, 1)
	_, endLLM := r.StartLLM(tctx, agent.LLMTarget{Provider: "p", Model: "m"})
	endLLM(agent.LLMEvent{})
	r.FinalReport(tctx, agent.FinalReportEvent{Source: "tool-call"})
	endTurn()
	endSession(agent.SessionEnd{Success: true})
	var got []string
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	for sc.Scan() {
		var m Message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join([]string{m.Op, itoa(m.ID), itoa(m.Parent)}, ":"))
	}
	want := "session:1:0 turn:2:1 llm:3:2 end:3:0 report:0:2 end:2:0 end:1:0"
	if strings.Join(got, " ") != want {
		t.Fatalf("wire = %s\nwant %s", strings.Join(got, " "), want)
	}
}

func itoa(n uint64) string { b, _ := json.Marshal(n); return string(b) }

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) { f.n++; return 0, errors.New("broken pipe") }

func TestRelayStopsAfterAFailedWrite(t *testing.T) {
	w := &failWriter{}
	var reported int
	r := NewRelay(w, func(error) { reported++ })
	for range 3 {
		r.RetryCollapse(context.Background(), "x")
	}
	if w.n != 1 || reported != 1 {
		t.Fatalf("writes = %d, reports = %d", w.n, reported)
	}
}

package conformance

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// tempScenario is a scenario whose single turn expects a temperature.
func tempScenario(temp string) string {
	return one("t", fmt.Sprintf(`{"turn":1,"expectedTemperature":%s,"response":{"kind":"final-report","reportContent":"ok"}}`, temp))
}

// §7 layer precedence: --config over cwd over prompt dir over home.
func TestSection7_LayerPrecedence(t *testing.T) {
	h := newHarness(t)
	h.writeJSON("home/.ai-agent/ai-agent.json", map[string]any{"defaults": map[string]any{"temperature": 0.1}})
	h.scenario(tempScenario("0.1"))
	h.run("--models", "test/t", "s", "u").mustExit(t, 0)

	h.writeJSON("prompts/.ai-agent.json", map[string]any{"defaults": map[string]any{"temperature": 0.3}})
	sys := h.write("prompts/agent.ai", "You are an agent.")
	h.scenario(tempScenario("0.3"))
	h.run("--models", "test/t", sys, "u").mustExit(t, 0)

	h.config(map[string]any{"defaults": map[string]any{"temperature": 0.5}})
	h.scenario(tempScenario("0.5"))
	h.run("--models", "test/t", sys, "u").mustExit(t, 0)

	explicit := h.write("explicit/c.json", `{"defaults":{"temperature":0.7}}`)
	h.scenario(tempScenario("0.7"))
	h.run("--config", explicit, "--models", "test/t", sys, "u").mustExit(t, 0)
}

// §7 deep merge: objects merge key by key across layers.
func TestSection7_DeepMerge(t *testing.T) {
	h := newHarness(t)
	h.writeJSON("home/.ai-agent/ai-agent.json", map[string]any{"providers": map[string]any{
		"split": map[string]any{"type": "test-llm", "models": map[string]any{"m": map[string]any{"overrides": map[string]any{"temperature": 1.1}}}},
	}})
	cfg := map[string]any{"providers": map[string]any{
		"test":  map[string]any{"type": "test-llm", "scenarioFile": "s.json"},
		"split": map[string]any{"scenarioFile": "s.json"},
	}}
	h.config(cfg)
	h.scenario(`[{"id":"m","turns":[{"turn":1,"expectedTemperature":1.1,"response":{"kind":"final-report","reportContent":"ok"}}]}]`)
	h.run("--models", "split/m", "s", "u").mustExit(t, 0)
}

// §7 ${VAR} expansion from the layer's own env file, then the process.
func TestSection7_EnvFilePerLayer(t *testing.T) {
	h := newHarness(t)
	h.write("cfg/.ai-agent.env", "SCEN=s2.json\nexport TEMP_VALUE=\"0.6\"\n")
	h.write("cfg/s2.json", tempScenario("0.6"))
	explicit := h.write("cfg/c.json", `{"providers":{"envp":{"type":"test-llm","scenarioFile":"${SCEN}"}}}`)
	h.run("--config", explicit, "--models", "envp/t", "--temperature", "0.6", "s", "u").mustExit(t, 0)
}

// §7 a missing variable is exit 4 naming the variable and the layer; an
// unused entry is never checked.
func TestSection7_MissingVariable(t *testing.T) {
	h := newHarness(t)
	h.config(map[string]any{"providers": map[string]any{
		"test":   map[string]any{"type": "test-llm", "scenarioFile": "s.json"},
		"broken": map[string]any{"type": "openai", "apiKey": "${SURELY_NOT_SET_VAR}"},
	}})
	h.scenario(one("t", report(1, "ok")))
	h.run("--models", "test/t", "s", "u").mustExit(t, 0)
	o := h.run("--models", "broken/x", "s", "u").mustExit(t, 4)
	if !strings.Contains(o.stderr, "SURELY_NOT_SET_VAR") || !strings.Contains(o.stderr, "cwd") || !strings.Contains(o.res.Error, "SURELY_NOT_SET_VAR") {
		t.Fatalf("error does not name the variable and layer:\n%s", o.stderr)
	}
}

// §7 ${parameters.x} in REST tools is filled at call time, not at load.
func TestSection7_ProtectedPlaceholders(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("p", echoTurn(1, "kept for runtime"), report(2, "ok")))
	o := h.run("--models", "test/p", "--tools", "echo", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	if msg := toolMessages(o.res.Conversation)["call-1-1"]; msg != "kept for runtime" {
		t.Fatalf("tool output = %q", msg)
	}
}

// §7 queue bindings must name an existing queue; default is implicit.
func TestSection7_QueueValidation(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("q", report(1, "ok")))
	rest := func(queue string) map[string]any {
		return map[string]any{"echo": map[string]any{"url": h.tool.URL + "/echo", "queue": queue}}
	}
	h.config(map[string]any{"restTools": rest("missing")})
	h.run("--models", "test/q", "--tools", "echo", "s", "u").mustExit(t, 4)
	h.config(map[string]any{"restTools": rest("io"), "queues": map[string]any{"io": map[string]any{"concurrent": 2}}})
	h.run("--models", "test/q", "--tools", "echo", "s", "u").mustExit(t, 0)
	h.config(map[string]any{"restTools": rest("default")})
	h.run("--models", "test/q", "--tools", "echo", "s", "u").mustExit(t, 0)
}

// §8 the result is observable: the result document and the session file
// carry success, finalReport, conversation and accounting.
func TestSection8_ResultObservable(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("o", echoTurn(1, "x"), report(2, "ok")))
	o := h.run("--models", "test/o", "--tools", "echo", "s", "u").mustExit(t, 0)
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(o.raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"success", "finalReport", "conversation", "accounting"} {
		if _, ok := doc[k]; !ok {
			t.Fatalf("result lacks %s", k)
		}
	}
	if _, ok := doc["error"]; ok {
		t.Fatalf("error present on success")
	}
	files, _ := filepath.Glob(filepath.Join(h.dir, "sessions", "*.json.gz"))
	if len(files) != 1 || filepath.Base(files[0]) != o.res.Accounting[0].OriginTxnID+".json.gz" {
		t.Fatalf("session files = %v", files)
	}
	f, _ := os.Open(files[0])
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(zr)
	var r contract.AIAgentResult
	if err := json.Unmarshal(b, &r); err != nil || !r.Success || len(r.Conversation) != len(o.res.Conversation) {
		t.Fatalf("session file = %s", b)
	}
}

// §9 turn limit exceeded: impossible whatever the model does.
func TestSection9_TurnLimitNeverExceeded(t *testing.T) {
	h := newHarness(t)
	var turns []string
	for i := 1; i <= 12; i++ {
		switch i % 3 {
		case 0:
			turns = append(turns, fmt.Sprintf(`{"turn":%d,"response":{"kind":"text","assistantText":"","reasoning":"hmm"}}`, i))
		case 1:
			turns = append(turns, echoTurn(i, "x"))
		default:
			turns = append(turns, fmt.Sprintf(`{"turn":%d,"response":{"kind":"tool-call","toolCalls":[{"toolName":"agent__final_report","arguments":{"report_format":"pipe","report_content":""}}]}}`, i))
		}
	}
	h.scenario(one("loop", turns...))
	for _, tr := range []string{"native", "xml-final", "xml"} {
		for _, max := range []int{1, 2, 3, 5} {
			o := h.run("--models", "test/loop", "--tools", "echo", "--tooling-transport", tr, "--max-turns", fmt.Sprint(max), "s", "u")
			o.checkInvariants(t, max)
		}
	}
}

// §9 missing final report: success:true always has a finalReport, in every
// transport and format.
func TestSection9_NoSuccessWithoutFinalReport(t *testing.T) {
	h := newHarness(t)
	h.scenario(`[{"id":"t","turns":[{"turn":1,"response":{"kind":"final-report","reportContent":"hi"}}]},
		{"id":"j","turns":[{"turn":1,"response":{"kind":"final-report","reportContentJson":{"a":1}}}]}]`)
	for _, tr := range []string{"native", "xml-final", "xml"} {
		for _, args := range [][]string{{"--models", "test/t", "--format", "markdown"}, {"--models", "test/j", "--format", "json"}} {
			o := h.run(append(append(args, "--tooling-transport", tr), "s", "u")...).mustExit(t, 0)
			o.checkInvariants(t, 10)
			if o.res.FinalReport == nil || o.res.FinalReport.Status != "success" {
				t.Fatalf("%s %v: %s", tr, args, o.raw)
			}
		}
	}
}

// §9 wrong exit code: success:false never exits 0, and a configuration
// error is 4, not 1.
func TestSection9_ExitCodeMatchesResult(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("x", echoTurn(1, "a")))
	o := h.run("--models", "test/x", "--tools", "echo", "--max-turns", "1", "s", "u")
	if o.res.Success || o.code == 0 {
		t.Fatalf("failed session exited %d", o.code)
	}
	h.config(map[string]any{"defaults": map[string]any{"maxTurns": "many"}})
	h.run("--models", "test/x", "s", "u").mustExit(t, 4)
}

// §9 configuration ignored: temperature 0.5 reaches the provider on the
// wire, on every request, never 1.0.
func TestSection9_ConfigurationNotIgnored(t *testing.T) {
	w := newWire(t)
	w.srv.Push(echoReply("a"), llmtest.Reply{}, finalReply("ok"))
	w.h.run("--models", "wire/m", "--tools", "echo", "--temperature", "0.5", "--top-k", "7", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	reqs := w.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("requests = %d", len(reqs))
	}
	for i, r := range reqs {
		body := r.JSON()
		if body["temperature"] != 0.5 || body["top_k"] != float64(7) {
			t.Fatalf("request %d: temperature %v top_k %v", i, body["temperature"], body["top_k"])
		}
	}
}

// §9 tool response overflow without handling: impossible; a 10 KB output
// with a 1024-byte limit always carries the notice, in every transport.
func TestSection9_ToolOverflowAlwaysHandled(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("b", `{"turn":1,"response":{"kind":"tool-call","toolCalls":[{"toolName":"rest__big","arguments":{"n":10240}}]}}`, report(2, "ok")))
	for _, tr := range []string{"native", "xml-final", "xml"} {
		o := h.run("--models", "test/b", "--tools", "big", "--tool-response-max-bytes", "1024", "--tooling-transport", tr, "s", "u").mustExit(t, 0)
		found := false
		for _, m := range o.res.Conversation {
			if strings.Contains(m.Content, "[TRUNCATED] Original size 10240 bytes; truncated to 1024 bytes.") {
				found = true
			}
			if strings.Contains(m.Content, strings.Repeat("x", 1100)) {
				t.Fatalf("%s: untruncated output in the conversation", tr)
			}
		}
		if !found {
			t.Fatalf("%s: no truncation notice", tr)
		}
	}
}

// §9 context window exceeded: impossible; a tool output that would push
// the next request past contextWindow − buffer − maxOutputTokens never
// reaches the provider, and the next request offers only the final report.
func TestSection9_ContextWindowNeverExceeded(t *testing.T) {
	w := newWire(t)
	bigCall := llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "rest__big", Arguments: `{"n":50000}`}}}
	w.srv.Push(bigCall, finalReply("from what I had"))
	o := w.h.run("--models", "wire/m", "--tools", "big", "--tool-response-max-bytes", "0", "--override", "contextWindow=12000",
		"--max-output-tokens", "1000", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	reqs := w.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d", len(reqs))
	}
	if len(reqs[1].Body) > 20000 {
		t.Fatalf("the overflowing output reached the provider: request of %d bytes", len(reqs[1].Body))
	}
	if tools := offeredTools(reqs[1]); len(tools) != 1 || tools[0] != "agent__final_report" {
		t.Fatalf("forced final turn offers %v", tools)
	}
	if msg := toolMessages(o.res.Conversation)["call_1"]; msg != "(tool failed: context window budget exceeded)" {
		t.Fatalf("tool message = %.100q", msg)
	}
}

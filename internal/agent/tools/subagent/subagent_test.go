package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tools/toolschema"
)

func str(s string) *string { return &s }

// fakeRunner records its calls and answers with a fixed result.
type fakeRunner struct {
	mu      sync.Mutex
	prompts []string
	parents []TraceIDs
	res     contract.AIAgentResult
	err     error
}

func (f *fakeRunner) run(_ context.Context, prompt string, parent TraceIDs) (contract.AIAgentResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prompts = append(f.prompts, prompt)
	f.parents = append(f.parents, parent)
	return f.res, f.err
}

func success(content string) contract.AIAgentResult {
	return contract.AIAgentResult{Success: true, FinalReport: &contract.FinalReport{Status: contract.ReportSuccess, Format: "sub-agent", Content: str(content)}}
}

func TestToolName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"reviewer", "agent__reviewer"},
		{"code review", "agent__code_review"},
		{"a.b-c_d", "agent__a_b-c_d"},
	}
	for _, tt := range tests {
		if got := ToolName(tt.in); got != tt.want {
			t.Errorf("ToolName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNewErrors(t *testing.T) {
	run := (&fakeRunner{}).run
	tests := []struct {
		name    string
		agents  []Agent
		wantErr error
	}{
		{name: "duplicate exposed name", agents: []Agent{{Name: "a b", Run: run}, {Name: "a_b", Run: run}}, wantErr: ErrConfig},
		{name: "no runner", agents: []Agent{{Name: "a"}}, wantErr: ErrConfig},
		{name: "json input that is not a schema object", agents: []Agent{{Name: "a", InputFormat: "json", InputSchema: json.RawMessage(`[1]`), Run: run}}, wantErr: ErrConfig},
		{name: "json input that cannot compile", agents: []Agent{{Name: "a", InputFormat: "json", InputSchema: json.RawMessage(`{"properties":{"x":{"type":7}}}`), Run: run}}, wantErr: toolschema.ErrSchema},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(Root("main"), tt.agents, Options{}); !errors.Is(err, tt.wantErr) {
				t.Fatalf("New error = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestCall(t *testing.T) {
	root := Root("main")
	tests := []struct {
		name       string
		agent      Agent
		res        contract.AIAgentResult
		runErr     error
		args       string
		wantPrompt string
		wantText   string
		wantIsErr  bool
		wantErr    string
	}{
		{name: "text agent", agent: Agent{Name: "reviewer"}, res: success("looks fine"),
			args: `{"prompt":"review a.go","reason":"check","format":"sub-agent"}`, wantPrompt: "review a.go", wantText: "looks fine"},
		{name: "json agent gets its arguments as JSON", agent: Agent{Name: "calc", InputFormat: "json",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`)},
			res:  contract.AIAgentResult{Success: true, FinalReport: &contract.FinalReport{Format: "json", ContentJSON: json.RawMessage(`{"sum":3}`)}},
			args: `{"a":1,"b":2,"reason":"add","format":"sub-agent"}`, wantPrompt: `{"a":1,"b":2}`, wantText: `{"sum":3}`},
		{name: "slack messages as JSON", agent: Agent{Name: "s"},
			res:  contract.AIAgentResult{Success: true, FinalReport: &contract.FinalReport{Messages: []json.RawMessage{json.RawMessage(`{"blocks":[]}`)}}},
			args: `{"prompt":"p"}`, wantPrompt: "p", wantText: `[{"blocks":[]}]`},
		{name: "synthetic failure is a failed result with its content", agent: Agent{Name: "r"},
			res: contract.AIAgentResult{Success: false, Error: "Session completed without a final report after 2 turns.",
				FinalReport: &contract.FinalReport{Status: contract.ReportFailure, Content: str("Session completed without a final report after 2 turns.")}},
			args: `{"prompt":"p"}`, wantPrompt: "p", wantText: "Session completed without a final report after 2 turns.", wantIsErr: true},
		{name: "fatal failure carries the error", agent: Agent{Name: "r"}, res: contract.AIAgentResult{Success: false, Error: "auth failed"},
			args: `{"prompt":"p"}`, wantPrompt: "p", wantText: "auth failed", wantIsErr: true},
		{name: "runner error", agent: Agent{Name: "r"}, runErr: errors.New("cannot load agent"), args: `{"prompt":"p"}`, wantPrompt: "p", wantErr: "sub-agent r: cannot load agent"},
		{name: "missing prompt is invalid", agent: Agent{Name: "r"}, args: `{"reason":"x"}`, wantErr: "invalid arguments: /: missing property 'prompt'"},
		{name: "wrong format constant is invalid", agent: Agent{Name: "r"}, args: `{"prompt":"p","format":"json"}`, wantErr: "invalid arguments: /format"},
		{name: "json agent missing a required input", agent: Agent{Name: "calc", InputFormat: "json",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`)},
			args: `{"reason":"x"}`, wantErr: "missing property 'a'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := &fakeRunner{res: tt.res, err: tt.runErr}
			tt.agent.Run = fr.run
			var seen []string
			p, err := New(root, []Agent{tt.agent}, Options{OnResult: func(tool string, _ contract.AIAgentResult) { seen = append(seen, tool) }})
			if err != nil {
				t.Fatal(err)
			}
			name := ToolName(tt.agent.Name)
			if tl := p.Tools(); len(tl) != 1 || tl[0].Name != name || tl[0].Server != "agent" {
				t.Fatalf("tools %+v", tl)
			}
			res, err := p.Call(context.Background(), name, json.RawMessage(tt.args))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Call error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != tt.wantText || res.IsError != tt.wantIsErr {
				t.Fatalf("result %+v, want %q isError=%v", res, tt.wantText, tt.wantIsErr)
			}
			if len(fr.prompts) != 1 || fr.prompts[0] != tt.wantPrompt || fr.parents[0] != root {
				t.Fatalf("runner got %q with parent %+v, want %q with %+v", fr.prompts, fr.parents, tt.wantPrompt, root)
			}
			if len(seen) != 1 || seen[0] != name {
				t.Fatalf("OnResult saw %v", seen)
			}
		})
	}
}

// TestNestedTracing runs main → planner → worker with runners that build
// the child's own provider the way the engine would, and checks the ids of
// every level and their accounting entries.
func TestNestedTracing(t *testing.T) {
	root := Root("main")
	var mu sync.Mutex
	var entries []contract.AccountingEntry
	record := func(ids TraceIDs) {
		e := contract.AccountingEntry{Type: contract.AccountingLLM}
		ids.Apply(&e)
		mu.Lock()
		entries = append(entries, e)
		mu.Unlock()
	}
	worker := func(_ context.Context, prompt string, parent TraceIDs) (contract.AIAgentResult, error) {
		record(parent.Child("worker"))
		return success("worked on " + prompt), nil
	}
	planner := func(ctx context.Context, prompt string, parent TraceIDs) (contract.AIAgentResult, error) {
		me := parent.Child("planner")
		record(me)
		sub, err := New(me, []Agent{{Name: "worker", Run: worker}}, Options{})
		if err != nil {
			return contract.AIAgentResult{}, err
		}
		args, _ := json.Marshal(map[string]string{"prompt": prompt + "/step1"})
		res, err := sub.Call(ctx, "agent__worker", args)
		if err != nil {
			return contract.AIAgentResult{}, err
		}
		return success("planned: " + res.Text), nil
	}
	p, err := New(root, []Agent{{Name: "planner", Run: planner}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Call(context.Background(), "agent__planner", json.RawMessage(`{"prompt":"task"}`))
	if err != nil || res.Text != "planned: worked on task/step1" {
		t.Fatalf("result %+v, %v", res, err)
	}
	if len(entries) != 2 {
		t.Fatalf("entries %+v", entries)
	}
	pl, wk := entries[0], entries[1]
	tests := []struct {
		what      string
		got, want string
	}{
		{"planner path", pl.CallPath, "main:planner"},
		{"worker path", wk.CallPath, "main:planner:worker"},
		{"planner parent", pl.ParentTxnID, root.TxnID},
		{"worker parent", wk.ParentTxnID, pl.TxnID},
		{"planner origin", pl.OriginTxnID, root.TxnID},
		{"worker origin", wk.OriginTxnID, root.TxnID},
		{"worker agent", wk.AgentID, "worker"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.what, tt.got, tt.want)
		}
	}
	if pl.TxnID == "" || pl.TxnID == wk.TxnID || pl.TxnID == root.TxnID {
		t.Fatalf("transaction ids not distinct: %q %q %q", root.TxnID, pl.TxnID, wk.TxnID)
	}
}

func TestMaxDepth(t *testing.T) {
	ids := Root("main").Child("a").Child("b")
	if ids.Depth() != 3 {
		t.Fatalf("depth %d", ids.Depth())
	}
	fr := &fakeRunner{res: success("x")}
	p, err := New(ids, []Agent{{Name: "c", Run: fr.run}}, Options{MaxDepth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Call(context.Background(), "agent__c", json.RawMessage(`{"prompt":"p"}`)); err == nil || !strings.Contains(err.Error(), "depth") {
		t.Fatalf("call beyond the depth error = %v", err)
	}
	if len(fr.prompts) != 0 {
		t.Fatal("runner called beyond the depth")
	}
}

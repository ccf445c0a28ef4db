package agentfix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/llm/anthropic"
	"github.com/salve-dev/salve/internal/llm/llmtest"
	"github.com/salve-dev/salve/internal/llm/openai"
)

// fakeBench is a Workbench of function fields over a folder: Original
// reads through heal.Confine; Judge accepts every edit that does not
// touch a file ending in _test.go; Try calls try.
type fakeBench struct {
	ws     string
	try    func(ctx context.Context, edits []heal.Edit) (heal.Trial, error)
	judged [][]heal.Edit
}

func (f *fakeBench) Reach() []heal.Reached {
	return []heal.Reached{{Path: "calc.go", Start: 1, End: 9, Why: "the code under test"}}
}

func (f *fakeBench) Original(p string) (string, error) {
	abs, err := heal.Confine(f.ws, p)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(abs)
	return string(b), err
}

func (f *fakeBench) Judge(edits []heal.Edit) heal.EditsDecision {
	f.judged = append(f.judged, edits)
	var d heal.EditsDecision
	d.Accepted = true
	for _, e := range edits {
		orig, _ := f.Original(e.Path)
		if strings.HasSuffix(e.Path, "_test.go") {
			d.Accepted = false
			d.Rules = append(d.Rules, "test-file")
			d.Reasons = append(d.Reasons, "test-file: "+e.Path+": a fix may not edit a test")
		}
		d.Files = append(d.Files, heal.FileFix{Path: e.Path, Original: orig, Patched: e.Content, Decision: heal.GateDecision{Diff: heal.Patch(e.Path, orig, e.Content)}})
	}
	return d
}

func (f *fakeBench) Try(ctx context.Context, edits []heal.Edit) (heal.Trial, error) {
	if f.try == nil {
		return heal.Trial{Command: "go test", ExitCode: 1, Reports: []contract.BugReport{{FilePath: "calc_test.go", LineNumber: 6, ErrorType: contract.ErrLogic, Message: "Add(2, 3) = -1, want 5"}}}, nil
	}
	return f.try(ctx, edits)
}

// project writes a small project with what a hostile repository holds
// beside its code: a .git folder, a symlink out of the tree, a dependency
// folder, all holding the word SECRET.
func project(t *testing.T) string {
	t.Helper()
	ws, outside := t.TempDir(), t.TempDir()
	files := map[string]string{
		"calc.go":      "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Error(\"Add(2, 3) = -1, want 5\")\n\t}\n}\n",
		".git/config":  "[core]\n# SECRET\n", "node_modules/x/index.js": "// SECRET\n",
		"long.txt": strings.Repeat("a line of text\n", 1000), "many.txt": strings.Repeat("needle\n", 100),
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "key.txt"), []byte("SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "leak")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "key.txt"), filepath.Join(ws, "key.txt")); err != nil {
		t.Fatal(err)
	}
	return ws
}

func newWorkspace(ws string, b heal.Workbench, max int) (*workspace, *context.CancelCauseFunc) {
	_, cancel := context.WithCancelCause(context.Background())
	return &workspace{root: ws, bench: b, watch: &watch{}, max: max, cancel: cancel, pending: map[string]string{}}, &cancel
}

func call(t *testing.T, w *workspace, name, args string) (string, bool) {
	t.Helper()
	res, err := w.Call(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return res.Text, res.IsError
}

// TestToolsStayInTheWorkspace: list, search and read never show what a
// .git folder, a symlink out of the tree or a path with .. holds, and
// every answer is bounded.
func TestToolsStayInTheWorkspace(t *testing.T) {
	ws := project(t)
	w, _ := newWorkspace(ws, &fakeBench{ws: ws}, 100)
	for _, tc := range []struct {
		name, tool, args string
		refused          bool
		has, lacks       []string
	}{
		{name: "list the root", tool: ToolList, args: `{}`, has: []string{"calc.go\n", "leak@\n", "node_modules/\n"}, lacks: []string{".git"}},
		{name: "list .git", tool: ToolList, args: `{"path":".git"}`, refused: true},
		{name: "list through a symlink", tool: ToolList, args: `{"path":"leak"}`, refused: true},
		{name: "list above the root", tool: ToolList, args: `{"path":"../"}`, refused: true},
		{name: "search the tree", tool: ToolSearch, args: `{"pattern":"SECRET"}`, has: []string{"no match"}},
		{name: "search above the root", tool: ToolSearch, args: `{"pattern":"SECRET","path":".."}`, refused: true},
		{name: "search a bad expression", tool: ToolSearch, args: `{"pattern":"(","regexp":true}`, refused: true},
		{name: "search finds code", tool: ToolSearch, args: `{"pattern":"func Add("}`, has: []string{"calc.go:4: func Add(a, b int) int {"}},
		{name: "search is bounded", tool: ToolSearch, args: `{"pattern":"needle"}`, has: []string{"many.txt:60: needle", "stopped at 60 matches"}, lacks: []string{"many.txt:61:"}},
		{name: "read above the root", tool: ToolRead, args: `{"path":"../x"}`, refused: true},
		{name: "read through a symlink out", tool: ToolRead, args: `{"path":"leak/key.txt"}`, refused: true},
		{name: "read a range", tool: ToolRead, args: `{"path":"calc.go","start_line":4,"end_line":5}`, has: []string{"lines 4-5 of 6", "    4 | func Add", "    5 | \treturn a - b"}, lacks: []string{"package"}},
		{name: "read is bounded", tool: ToolRead, args: `{"path":"long.txt"}`, has: []string{"lines 1-300 of 1000"}, lacks: []string{"  301 |"}},
		{name: "an unknown tool", tool: "heal__write", args: `{}`, refused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, refused := call(t, w, tc.tool, tc.args)
			if refused != tc.refused {
				t.Fatalf("refused %v, want %v: %s", refused, tc.refused, out)
			}
			for _, h := range tc.has {
				if !strings.Contains(out, h) {
					t.Errorf("lacks %q:\n%s", h, out)
				}
			}
			for _, l := range append(tc.lacks, "SECRET") {
				if strings.Contains(out, l) {
					t.Errorf("shows %q:\n%s", l, out)
				}
			}
			if len(out) > maxReadBytes+4096 {
				t.Errorf("answer of %d bytes", len(out))
			}
		})
	}
	if n := len(w.steps); n != 14 || w.steps[0].Tool != ToolList {
		t.Errorf("%d steps recorded", n)
	}
}

// TestEditTool: an edit replaces one unique piece of the file as the
// accepted edits left it; the gate's refusal comes back with its rule
// ids and changes nothing; an edit back to the original drops the file
// from the fix.
func TestEditTool(t *testing.T) {
	ws := project(t)
	b := &fakeBench{ws: ws}
	w, _ := newWorkspace(ws, b, 100)
	if out, refused := call(t, w, ToolEdit, `{"path":"calc.go","old":"a","new":"b"}`); !refused || !strings.Contains(out, "occurs") {
		t.Errorf("an ambiguous edit: %v %s", refused, out)
	}
	if out, refused := call(t, w, ToolEdit, `{"path":"calc.go","old":"nowhere","new":"b"}`); !refused || !strings.Contains(out, "does not occur") {
		t.Errorf("a missing piece: %v %s", refused, out)
	}
	out, refused := call(t, w, ToolEdit, `{"path":"calc_test.go","old":"\t\tt.Error(\"Add(2, 3) = -1, want 5\")\n","new":""}`)
	if !refused || !strings.Contains(out, "rules: test-file") || len(w.accepted()) != 0 {
		t.Errorf("a refused edit: %v %s, pending %v", refused, out, w.accepted())
	}
	out, refused = call(t, w, ToolEdit, `{"path":"calc.go","old":"return a - b","new":"return a + b"}`)
	if refused || !strings.Contains(out, "+\treturn a + b") {
		t.Fatalf("an accepted edit: %v %s", refused, out)
	}
	if out, _ := call(t, w, ToolRead, `{"path":"calc.go"}`); !strings.Contains(out, "return a + b") {
		t.Errorf("read does not show the accepted edit:\n%s", out)
	}
	if out, _ := call(t, w, ToolSearch, `{"pattern":"a + b"}`); !strings.Contains(out, "calc.go:5:") {
		t.Errorf("search does not see the accepted edit:\n%s", out)
	}
	if es := w.accepted(); len(es) != 1 || es[0].Path != "calc.go" || !strings.Contains(es[0].Content, "a + b") {
		t.Errorf("accepted %v", es)
	}
	if out, refused := call(t, w, ToolEdit, `{"path":"calc.go","old":"return a + b","new":"return a - b"}`); refused || !strings.Contains(out, "back as it was") || len(w.accepted()) != 0 {
		t.Errorf("an edit back: %v %s %v", refused, out, w.accepted())
	}
	if w.edits != 1 || w.refused != 1 {
		t.Errorf("edits %d, refused %d", w.edits, w.refused)
	}
	if disk, _ := os.ReadFile(filepath.Join(ws, "calc.go")); !strings.Contains(string(disk), "a - b") {
		t.Errorf("a tool wrote the file:\n%s", disk)
	}
}

// TestRunTool: run_tests hands the accepted edits to the workbench and
// answers with the reports, bounded.
func TestRunTool(t *testing.T) {
	ws := project(t)
	var got []heal.Edit
	b := &fakeBench{ws: ws, try: func(_ context.Context, edits []heal.Edit) (heal.Trial, error) {
		got = edits
		var rs []contract.BugReport
		for i := range 40 {
			rs = append(rs, contract.BugReport{FilePath: "calc_test.go", LineNumber: i + 1, ErrorType: contract.ErrLogic, Message: "boom\nsecond line"})
		}
		return heal.Trial{Command: "go test ./...", ExitCode: 1, Reports: rs, Excerpt: "FAIL"}, nil
	}}
	w, _ := newWorkspace(ws, b, 100)
	call(t, w, ToolEdit, `{"path":"calc.go","old":"return a - b","new":"return a + b"}`)
	out, refused := call(t, w, ToolRun, `{}`)
	if refused || len(got) != 1 || got[0].Path != "calc.go" {
		t.Fatalf("%v %s; edits %v", refused, out, got)
	}
	for _, want := range []string{"command: go test ./...", "exit code: 1\n", "reports (40):", "- calc_test.go:30: LOGIC: boom\n", "… and 10 more", "log excerpt:\nFAIL"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	b.try = func(context.Context, []heal.Edit) (heal.Trial, error) {
		return heal.Trial{}, fmt.Errorf("boom: %w", heal.ErrEditRefused)
	}
	if out, refused := call(t, w, ToolRun, `{}`); !refused || !strings.Contains(out, "boom") {
		t.Errorf("a failed trial: %v %s", refused, out)
	}
	if w.trials != 2 {
		t.Errorf("trials %d", w.trials)
	}
}

// loopModel answers every request with one more listing of the root, and
// reports usage of 900 input and 60 output tokens.
func loopModel(llmtest.Request) llmtest.Reply {
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: ToolList, Arguments: `{}`}}, Usage: &llmtest.Usage{Input: 900, Output: 60}}
}

// fixingModel edits calc.go, runs the tests, and reports.
func fixingModel(req llmtest.Request) llmtest.Reply {
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	_ = req.Decode(&body)
	switch len(body.Messages) {
	case 2:
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: ToolEdit, Arguments: `{"path":"calc.go","old":"return a - b","new":"return a + b"}`}}}
	case 4:
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: ToolRun, Arguments: `{}`}}}
	}
	return llmtest.Reply{Text: "Add subtracted.", ToolCalls: []llmtest.ToolCall{{Name: agent.ToolFinalReport,
		Arguments: `{"report_format":"json","content_json":{"fix_reason":"Add subtracted","confidence_score":0.9}}`}}}
}

func targets(srv *llmtest.Server) []agent.Target {
	return []agent.Target{{Provider: "local", Model: "m", Client: openai.New(openai.Options{BaseURL: srv.URL + "/v1", APIKey: "sk-test"}), ContextWindow: 200000}}
}

// price is a pricing table that charges a cent per request.
type price struct{}

func (price) Cost(string, string, contract.TokenUsage) (float64, bool) { return 0.01, true }

// TestInvestigate: a session that edits, runs the tests and reports
// returns the accepted edit with its reason and confidence, its
// accounting and its transcript, each model turn before its tool calls.
func TestInvestigate(t *testing.T) {
	ws := project(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Handle(fixingModel)
	f := &Fixer{Targets: targets(srv), Pricer: price{}}
	inv, err := f.Investigate(context.Background(), heal.FixInput{Workspace: ws, Path: "calc.go"}, &fakeBench{ws: ws})
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Edits) != 1 || !strings.Contains(inv.Edits[0].Content, "a + b") || inv.Result.FixReason != "Add subtracted" || inv.Result.ConfidenceScore != 0.9 {
		t.Errorf("investigation %+v", inv)
	}
	s := inv.Session
	if s.Turns != 3 || s.ToolCalls != 2 || s.Edits != 1 || s.Trials != 1 || s.InputTokens != 30 || s.OutputTokens != 15 || s.CostUSD < 0.029 || s.Budget != "" {
		t.Errorf("session %+v", s)
	}
	var kinds []string
	for _, st := range s.Steps {
		kinds = append(kinds, fmt.Sprintf("%d:%s:%s", st.Turn, st.Kind, st.Tool))
	}
	if got := strings.Join(kinds, " "); got != "1:model: 1:tool:heal__edit 2:model: 2:tool:heal__run_tests 3:model:" {
		t.Errorf("transcript %s", got)
	}
	if !strings.Contains(s.Steps[4].Text, "Add subtracted") {
		t.Errorf("the last turn's text: %q", s.Steps[4].Text)
	}
	if len(f.Accounting()) < 5 {
		t.Errorf("accounting %d entries", len(f.Accounting()))
	}
	req := srv.Requests()[0].JSON()
	if sys := fmt.Sprint(req["messages"]); !strings.Contains(sys, "calc.go:1-9 (the code under test)") || !strings.Contains(sys, "Never weaken a check") {
		t.Errorf("the prompt lacks the reach or the rules: %s", sys)
	}
}

// TestInvestigateFallsBack: the session gets the engine's round-robin
// fallback: a first target that fails with a server error on every
// request is cycled past, and the second, on another wire API
// (Anthropic's messages), carries the investigation to its fix.
func TestInvestigateFallsBack(t *testing.T) {
	ws := project(t)
	down := llmtest.NewServer()
	defer down.Close()
	down.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: 500, ErrorMessage: "overloaded"} })
	up := llmtest.NewServer()
	defer up.Close()
	n := 0
	steps := []llmtest.Reply{
		{ToolCalls: []llmtest.ToolCall{{Name: ToolEdit, Arguments: `{"path":"calc.go","old":"return a - b","new":"return a + b"}`}}},
		{ToolCalls: []llmtest.ToolCall{{Name: ToolRun, Arguments: `{}`}}},
		{ToolCalls: []llmtest.ToolCall{{Name: agent.ToolFinalReport, Arguments: `{"report_format":"json","content_json":{"fix_reason":"Add subtracted","confidence_score":0.9}}`}}},
	}
	up.Handle(func(llmtest.Request) llmtest.Reply { r := steps[min(n, len(steps)-1)]; n++; return r })
	f := &Fixer{Targets: []agent.Target{
		{Provider: "first", Model: "m", Client: openai.New(openai.Options{BaseURL: down.URL + "/v1", APIKey: "sk-test"}), ContextWindow: 200000},
		{Provider: "second", Model: "claude", Client: anthropic.New(anthropic.Options{BaseURL: up.URL + "/v1", APIKey: "sk-test"}), ContextWindow: 200000},
	}, Sleep: func(context.Context, time.Duration) error { return nil }}
	inv, err := f.Investigate(context.Background(), heal.FixInput{Workspace: ws, Path: "calc.go"}, &fakeBench{ws: ws})
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Edits) != 1 || len(down.Requests()) == 0 || len(up.Requests()) != 3 {
		t.Errorf("edits %v; %d requests to the failing target, %d to the other", inv.Edits, len(down.Requests()), len(up.Requests()))
	}
	for _, r := range up.Requests() {
		if r.Wire != llmtest.Anthropic {
			t.Errorf("request on %s", r.Wire)
		}
	}
}

// TestBudgets: every budget ends the session when it runs out, with no
// fix and an error that names it; the session's record says which.
func TestBudgets(t *testing.T) {
	ws := project(t)
	block := func(ctx context.Context, _ []heal.Edit) (heal.Trial, error) {
		<-ctx.Done()
		return heal.Trial{}, ctx.Err()
	}
	for _, tc := range []struct {
		name    string
		budgets Budgets
		model   func(llmtest.Request) llmtest.Reply
		try     func(context.Context, []heal.Edit) (heal.Trial, error)
		want    string
	}{
		{name: "tool calls", budgets: Budgets{MaxToolCalls: 3}, model: loopModel, want: BudgetToolCalls},
		{name: "turns", budgets: Budgets{MaxTurns: 3}, model: loopModel, want: BudgetTurns},
		{name: "tokens", budgets: Budgets{MaxTokens: 2000}, model: loopModel, want: BudgetTokens},
		{name: "cost", budgets: Budgets{MaxCostUSD: 0.015}, model: loopModel, want: BudgetCost},
		{name: "wall time", budgets: Budgets{Timeout: 50 * time.Millisecond}, try: block, want: BudgetWallTime,
			model: func(llmtest.Request) llmtest.Reply {
				return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: ToolRun, Arguments: `{}`}}}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			srv.Handle(tc.model)
			f := &Fixer{Targets: targets(srv), Budgets: tc.budgets, Pricer: price{}}
			inv, err := f.Investigate(context.Background(), heal.FixInput{Workspace: ws, Path: "calc.go"}, &fakeBench{ws: ws, try: tc.try})
			if !errors.Is(err, ErrBudget) || !errors.Is(err, results.ErrNoFix) || !strings.Contains(err.Error(), "the "+tc.want+" budget ran out") {
				t.Fatalf("error %v", err)
			}
			if inv.Session == nil || inv.Session.Budget != tc.want || len(inv.Edits) != 0 {
				t.Errorf("investigation %+v", inv)
			}
			if n := len(srv.Requests()); n > 6 {
				t.Errorf("%d requests: the budget did not stop the session", n)
			}
		})
	}
	t.Run("a cancelled heal is not a budget", func(t *testing.T) {
		srv := llmtest.NewServer()
		defer srv.Close()
		srv.Handle(loopModel)
		ctx, cancel := context.WithCancel(context.Background())
		b := &fakeBench{ws: ws, try: func(ctx context.Context, _ []heal.Edit) (heal.Trial, error) {
			cancel()
			<-ctx.Done()
			return heal.Trial{}, ctx.Err()
		}}
		srv.Handle(func(llmtest.Request) llmtest.Reply {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: ToolRun, Arguments: `{}`}}}
		})
		_, err := (&Fixer{Targets: targets(srv)}).Investigate(ctx, heal.FixInput{Workspace: ws}, b)
		if !errors.Is(err, context.Canceled) || errors.Is(err, ErrBudget) {
			t.Errorf("error %v", err)
		}
	})
}

// TestFixOutsideAHeal: the one-file call has nothing to offer.
func TestFixOutsideAHeal(t *testing.T) {
	if _, err := (&Fixer{}).Fix(context.Background(), heal.FixInput{}); !errors.Is(err, results.ErrNoFix) {
		t.Errorf("Fix: %v", err)
	}
	if _, err := (&Fixer{}).Investigate(context.Background(), heal.FixInput{}, &fakeBench{}); !errors.Is(err, results.ErrNotConfigured) {
		t.Errorf("Investigate without a model: %v", err)
	}
}

// TestBudgetsFrom: the heal.agent section wins over the settings every
// session shares, which win over the defaults; a bad value is an error.
func TestBudgetsFrom(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		want       Budgets
		err        bool
	}{
		{name: "nothing", json: `{}`, want: Budgets{}},
		{name: "the shared settings", json: `{"defaults":{"maxTurns":7,"maxToolCallsPerTurn":3},"budgets":{"maxCostUsd":0.5}}`, want: Budgets{MaxTurns: 7, MaxToolCallsPerTurn: 3, MaxCostUSD: 0.5}},
		{name: "the tier's section wins", json: `{"defaults":{"maxTurns":7},"budgets":{"maxCostUsd":0.5},"heal":{"agent":{"maxTurns":12,"maxToolCalls":30,"maxTokens":90000,"timeout":"2m","maxCostUsd":0.25}}}`,
			want: Budgets{MaxTurns: 12, MaxToolCalls: 30, MaxTokens: 90000, Timeout: 2 * time.Minute, MaxCostUSD: 0.25}},
		{name: "negative", json: `{"heal":{"agent":{"maxToolCalls":-1}}}`, err: true},
		{name: "a bad timeout", json: `{"heal":{"agent":{"timeout":"soon"}}}`, err: true},
		{name: "a string for a number", json: `{"heal":{"agent":{"maxTokens":"many"}}}`, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "ai-agent.json")
			if err := os.WriteFile(p, []byte(tc.json), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(config.Locations{ConfigFile: p, SystemDir: t.TempDir(), Getenv: func(string) (string, bool) { return "", false }})
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := BudgetsFrom(cfg)
			if (err != nil) != tc.err {
				t.Fatalf("error %v, want one: %v", err, tc.err)
			}
			if !tc.err && got != tc.want {
				t.Errorf("budgets %+v, want %+v", got, tc.want)
			}
		})
	}
}

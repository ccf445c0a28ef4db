package orchestrate

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/tools/subagent"
)

// fakeAgent is a child made of a function; it records the prompts it got.
type fakeAgent struct {
	mu      sync.Mutex
	prompts []string
	parents []subagent.TraceIDs
	answer  func(ctx context.Context, prompt string) (contract.AIAgentResult, error)
}

func (f *fakeAgent) child(name string) Child {
	return Child{Ref: "./" + name + ".ai", Name: name, Run: func(ctx context.Context, prompt string, parent subagent.TraceIDs) (contract.AIAgentResult, error) {
		f.mu.Lock()
		f.prompts = append(f.prompts, prompt)
		f.parents = append(f.parents, parent)
		f.mu.Unlock()
		return f.answer(ctx, prompt)
	}}
}

func (f *fakeAgent) got() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.prompts...)
}

// answers is an agent that answers text with one accounting entry.
func answers(agentID, text string) *fakeAgent {
	return &fakeAgent{answer: func(context.Context, string) (contract.AIAgentResult, error) {
		return ok(agentID, text), nil
	}}
}

func ok(agentID, text string) contract.AIAgentResult {
	return contract.AIAgentResult{Success: true, FinalReport: &contract.FinalReport{Status: contract.ReportSuccess, Content: &text},
		Accounting: []contract.AccountingEntry{{Type: contract.AccountingLLM, AgentID: agentID}}}
}

func failed(agentID, msg string) contract.AIAgentResult {
	return contract.AIAgentResult{Error: msg, Accounting: []contract.AccountingEntry{{Type: contract.AccountingLLM, AgentID: agentID}}}
}

// mainAgent answers text, or routes, and records its prompt.
type mainAgent struct {
	prompt string
	res    contract.AIAgentResult
	route  *agent.Route
}

func (m *mainAgent) run(_ context.Context, prompt string) (contract.AIAgentResult, *agent.Route) {
	m.prompt = prompt
	return m.res, m.route
}

var root = subagent.TraceIDs{AgentID: "desk", CallPath: "desk", TxnID: "t1", OriginTxnID: "t1"}

func agentsOf(acc []contract.AccountingEntry) []string {
	var out []string
	for _, e := range acc {
		out = append(out, e.AgentID)
	}
	return out
}

func report(res contract.AIAgentResult) string {
	if res.FinalReport == nil || res.FinalReport.Content == nil {
		return ""
	}
	return *res.FinalReport.Content
}

func TestRun(t *testing.T) {
	const task = "the task"
	cases := []struct {
		name string
		// build returns the plan, the main agent and a check of the outcome.
		build func(t *testing.T) (Plan, *mainAgent, func(t *testing.T, out Outcome))
	}{
		{name: "advisors, in order, failures included", build: func(t *testing.T) (Plan, *mainAgent, func(*testing.T, Outcome)) {
			legal := answers("legal", "fine by law")
			broken := &fakeAgent{answer: func(context.Context, string) (contract.AIAgentResult, error) {
				return failed("broken", "model down"), nil
			}}
			missing := &fakeAgent{answer: func(context.Context, string) (contract.AIAgentResult, error) {
				return contract.AIAgentResult{}, errors.New("no such file")
			}}
			m := &mainAgent{res: ok("desk", "answer")}
			p := Plan{Advisors: []Child{legal.child("legal"), broken.child("broken"), missing.child("missing")}}
			return p, m, func(t *testing.T, out Outcome) {
				want := []*regexp.Regexp{
					blockRe("advisory", "legal", "fine by law"),
					blockRe("advisory", "broken", "Advisor consultation failed for ./broken.ai: model down"),
					blockRe("advisory", "missing", "Advisor consultation failed for ./missing.ai: no such file"),
					blockRe("original_user_request", "", task),
				}
				at := 0
				for _, re := range want {
					loc := re.FindStringIndex(m.prompt[at:])
					if loc == nil {
						t.Fatalf("the prompt lacks %s after offset %d:\n%s", re, at, m.prompt)
					}
					at += loc[1]
				}
				if got := legal.got(); len(got) != 1 || got[0] != task {
					t.Errorf("the advisor got %q, want the request", got)
				}
				if legal.parents[0] != root {
					t.Errorf("the advisor's parent is %+v", legal.parents[0])
				}
				if got := agentsOf(out.Result.Accounting); !slices.Equal(got, []string{"desk", "legal", "broken"}) {
					t.Errorf("accounting of %v", got)
				}
				if len(out.Children) != 2 || report(out.Result) != "answer" || !out.Result.Success {
					t.Errorf("outcome %+v", out)
				}
			}
		}},
		{name: "router, destination, handoff", build: func(t *testing.T) (Plan, *mainAgent, func(*testing.T, Outcome)) {
			billing, tech, formatter := answers("billing", "refund issued"), answers("tech", "reboot"), answers("formatter", "FORMATTED")
			m := &mainAgent{res: contract.AIAgentResult{Success: true, Accounting: []contract.AccountingEntry{{AgentID: "desk"}}},
				route: &agent.Route{Agent: "billing", Message: "angry"}}
			fc := formatter.child("formatter")
			p := Plan{Destinations: []Child{tech.child("tech"), billing.child("billing")}, Handoff: &fc}
			return p, m, func(t *testing.T, out Outcome) {
				if m.prompt != task {
					t.Errorf("without advisors the main agent got %q", m.prompt)
				}
				if len(tech.got()) != 0 {
					t.Error("the destination not chosen ran")
				}
				got := billing.got()
				if len(got) != 1 || !blockRe("advisory", "desk", "angry").MatchString(got[0]) || !blockRe("original_user_request", "", task).MatchString(got[0]) {
					t.Errorf("the destination got %q", got)
				}
				got = formatter.got()
				if len(got) != 1 || !blockRe("response", "billing", "refund issued").MatchString(got[0]) {
					t.Errorf("the handoff got %q", got)
				}
				if report(out.Result) != "FORMATTED" || !out.Result.Success {
					t.Errorf("result %+v", out.Result)
				}
				if got := agentsOf(out.Result.Accounting); !slices.Equal(got, []string{"desk", "billing", "formatter"}) {
					t.Errorf("accounting of %v", got)
				}
			}
		}},
		{name: "a route without its destination fails", build: func(t *testing.T) (Plan, *mainAgent, func(*testing.T, Outcome)) {
			tech := answers("tech", "reboot")
			m := &mainAgent{res: contract.AIAgentResult{Success: true}, route: &agent.Route{Agent: "sales"}}
			return Plan{Destinations: []Child{tech.child("tech")}}, m, func(t *testing.T, out Outcome) {
				if out.Result.Success || out.Result.Error != "router_destination_missing: sales" {
					t.Errorf("result %+v", out.Result)
				}
			}
		}},
		{name: "no handoff after a failure", build: func(t *testing.T) (Plan, *mainAgent, func(*testing.T, Outcome)) {
			formatter := answers("formatter", "FORMATTED")
			fc := formatter.child("formatter")
			m := &mainAgent{res: failed("desk", "max turns")}
			return Plan{Handoff: &fc}, m, func(t *testing.T, out Outcome) {
				if len(formatter.got()) != 0 || out.Result.Success || out.Result.Error != "max turns" {
					t.Errorf("handoff ran or result changed: %+v", out.Result)
				}
			}
		}},
		{name: "a handoff that cannot run keeps the answer and fails", build: func(t *testing.T) (Plan, *mainAgent, func(*testing.T, Outcome)) {
			bad := &fakeAgent{answer: func(context.Context, string) (contract.AIAgentResult, error) {
				return contract.AIAgentResult{}, errors.New("no models")
			}}
			fc := bad.child("formatter")
			m := &mainAgent{res: ok("desk", "answer")}
			return Plan{Handoff: &fc}, m, func(t *testing.T, out Outcome) {
				if out.Result.Success || report(out.Result) != "answer" || out.Result.Error != "handoff ./formatter.ai: no models" {
					t.Errorf("result %+v (%q)", out.Result, out.Result.Error)
				}
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, m, check := tc.build(t)
			out := Run(context.Background(), p, Request{Prompt: task, Name: "desk", Trace: root}, m.run)
			check(t, out)
		})
	}
}

// TestAdvisorsRunAtOnce: every advisor is started before any answers.
func TestAdvisorsRunAtOnce(t *testing.T) {
	const n = 4
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var started sync.WaitGroup
	started.Add(n)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	var advisors []Child
	for i := range n {
		f := &fakeAgent{answer: func(ctx context.Context, _ string) (contract.AIAgentResult, error) {
			started.Done()
			select {
			case <-all:
				return ok("a", "seen"), nil
			case <-ctx.Done():
				return contract.AIAgentResult{}, ctx.Err()
			}
		}}
		advisors = append(advisors, f.child(string(rune('a'+i))))
	}
	m := &mainAgent{res: ok("desk", "answer")}
	Run(ctx, Plan{Advisors: advisors}, Request{Prompt: "q", Trace: root}, m.run)
	if strings.Count(m.prompt, "\nseen\n") != n {
		t.Fatalf("advisors did not all answer (sequential run?):\n%s", m.prompt)
	}
}

// TestDepthLimit: a session at the depth limit starts no child.
func TestDepthLimit(t *testing.T) {
	legal := answers("legal", "fine")
	deep := subagent.TraceIDs{AgentID: "h", CallPath: "a:b:c", TxnID: "t"}
	m := &mainAgent{res: ok("h", "answer")}
	Run(context.Background(), Plan{Advisors: []Child{legal.child("legal")}}, Request{Prompt: "q", Trace: deep, MaxDepth: 3}, m.run)
	if len(legal.got()) != 0 || !strings.Contains(m.prompt, "Advisor consultation failed for ./legal.ai: call depth 3 reached (a:b:c)") {
		t.Fatalf("prompt:\n%s", m.prompt)
	}
}

func TestCheck(t *testing.T) {
	graph := map[string][]string{
		"/w/main.ai": {"/w/a.ai", "/w/b.ai"},
		"/w/a.ai":    {"/w/c.ai"},
		"/w/b.ai":    {"/w/c.ai"}, // a diamond, not a loop
		"/w/c.ai":    nil,
		"/w/x.ai":    {"/w/y.ai"},
		"/w/y.ai":    {"/w/x.ai"},
		"/w/self.ai": {"/w/self.ai"},
		"/w/bad.ai":  {"/w/gone.ai"},
	}
	read := func(p string) ([]string, error) {
		l, found := graph[p]
		if !found {
			return nil, errors.New(p + " does not exist")
		}
		return l, nil
	}
	cases := []struct {
		root  string
		depth int
		is    error
		msg   string
	}{
		{root: "/w/main.ai", depth: 3},
		{root: "/w/main.ai", depth: 2, is: ErrDepth, msg: "a chain of 3 agents from main.ai, more than 2"},
		{root: "/w/x.ai", depth: 8, is: ErrCycle, msg: "x.ai -> y.ai -> x.ai"},
		{root: "/w/self.ai", depth: 8, is: ErrCycle, msg: "self.ai -> self.ai"},
		{root: "", depth: 8},
		{root: "/w/bad.ai", depth: 8, msg: "/w/gone.ai does not exist"},
	}
	for _, tc := range cases {
		t.Run(tc.root+tc.msg, func(t *testing.T) {
			links := graph[tc.root]
			if tc.root == "" {
				links = []string{"/w/a.ai"}
			}
			err := Check(tc.root, links, read, tc.depth)
			switch {
			case tc.msg == "" && err != nil:
				t.Fatalf("unexpected %v", err)
			case tc.msg != "" && (err == nil || !strings.Contains(err.Error(), tc.msg)):
				t.Fatalf("error %v, want %q", err, tc.msg)
			case tc.is != nil && !errors.Is(err, tc.is):
				t.Fatalf("error %v is not %v", err, tc.is)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	a := Child{Ref: "./x/tech.ai", Name: "tech"}
	b := Child{Ref: "./y/tech.ai", Name: "tech"}
	if err := (Plan{Destinations: []Child{a, b}}).Validate(); err == nil || !strings.Contains(err.Error(), `same name "tech"`) {
		t.Fatalf("two destinations named tech: %v", err)
	}
	b.Name = "support"
	if err := (Plan{Destinations: []Child{a, b}}).Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestBlocks: the tags carry a fresh nonce each, the agent attribute is
// escaped, and JoinBlocks drops empty blocks.
func TestBlocks(t *testing.T) {
	a, b := AdvisoryBlock(`x"y`, "one"), AdvisoryBlock(`x"y`, "one")
	if a == b {
		t.Fatal("two blocks share a nonce")
	}
	if !strings.Contains(a, `agent="x&quot;y"`) {
		t.Fatalf("attribute not escaped: %s", a)
	}
	if got := JoinBlocks(" ", OriginalRequestBlock("q"), ""); strings.Count(got, "original_user_request__") != 2 || strings.HasPrefix(got, "\n") {
		t.Fatalf("joined %q", got)
	}
}

func blockRe(kind, agentName, content string) *regexp.Regexp {
	attr := ""
	if agentName != "" {
		attr = ` agent="` + regexp.QuoteMeta(agentName) + `"`
	}
	return regexp.MustCompile(`<` + kind + `__[0-9a-f]{12}` + attr + `>\n` + regexp.QuoteMeta(content) + `\n</` + kind + `__[0-9a-f]{12}>`)
}

// BenchmarkRun is the orchestration's own cost around children that
// answer at once: two advisors, a route and a handoff.
func BenchmarkRun(b *testing.B) {
	fc := answers("formatter", "FORMATTED").child("formatter")
	p := Plan{
		Advisors:     []Child{answers("legal", "fine").child("legal"), answers("tech", "ok").child("tech")},
		Destinations: []Child{answers("billing", "refund").child("billing")},
		Handoff:      &fc,
	}
	m := &mainAgent{res: contract.AIAgentResult{Success: true}, route: &agent.Route{Agent: "billing", Message: "note"}}
	ctx := context.Background()
	for b.Loop() {
		out := Run(ctx, p, Request{Prompt: "the task", Name: "desk", Trace: root}, m.run)
		if report(out.Result) != "FORMATTED" {
			b.Fatalf("result %+v", out.Result)
		}
	}
}

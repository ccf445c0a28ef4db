package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/agentfix/agenttest"
	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/llm/llmtest"
	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/ui"
)

// cartFiles is a Go project whose test fails because of a boundary slip
// in a helper of another file than the code the test calls: Total (in
// cart.go) is right, applyDiscount (in discount.go) takes its discount
// from one cent above the threshold instead of at it.
var cartFiles = map[string]string{
	"go.mod": "module example.com/shop\n\ngo 1.22\n",
	"cart.go": `// Package cart prices a shopping cart.
package cart

// Item is one line of a cart.
type Item struct {
	SKU   string
	Cents int64
	Qty   int64
}

// Total returns the price of the cart after the volume discount.
func Total(items []Item) int64 {
	var sum int64
	for _, it := range items {
		sum += it.Cents * it.Qty
	}
	return applyDiscount(sum)
}
`,
	"discount.go": `package cart

// discountFrom is the subtotal, in cents, from which the volume discount
// applies.
const discountFrom = 10000

// applyDiscount takes 10% off a subtotal of discountFrom or more.
func applyDiscount(cents int64) int64 {
	if cents > discountFrom {
		return cents - cents/10
	}
	return cents
}
`,
	"cart_test.go": `package cart

import "testing"

func TestTotal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		items []Item
		want  int64
	}{
		{"small", []Item{{"pen", 250, 4}}, 1000},
		{"at the threshold", []Item{{"lamp", 5000, 2}}, 9000},
		{"large", []Item{{"desk", 20000, 1}}, 18000},
	} {
		if got := Total(tc.items); got != tc.want {
			t.Errorf("Total(%v) = %d, want %d", tc.items, got, tc.want)
		}
	}
}
`,
	".github/workflows/ci.yml": "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: go test ./...\n",
}

// agentRepo writes files (folders made as needed) and commits them.
func agentRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	flat := map[string]string{}
	dir := t.TempDir()
	for name, content := range files {
		if strings.Contains(name, "/") {
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		flat[name] = content
	}
	repo := integrityRepoIn(t, dir, flat)
	return repo
}

// healWithAgent runs the real salve binary on repo with only the agent
// tier, its model the scripted investigator behind a local
// OpenAI-compatible server, and returns the exit code, results.json and
// the output.
func healWithAgent(t *testing.T, repo string, model *agenttest.Investigator, extra ...string) (int, results.Results, string) {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.Handle(model.Answer)
	args := append([]string{"heal", "--workspace", repo, "--cmd", "go test ./...", "--fixers", "agent", "--models", "openai/scripted-investigator",
		"--isolation", "none"}, extra...)
	if !slices.Contains(extra, "--store") {
		args = append(args, "--no-store")
	}
	return healWith(t, srv, args)
}

// agentSessions returns every agent attempt's session of the results.
func agentSessions(res results.Results) []*results.AgentSession {
	var out []*results.AgentSession
	seen := map[*results.AgentSession]bool{}
	for _, b := range res.Bugs {
		for _, a := range b.Attempts {
			if a.Fixer == "agent" && a.Agent != nil && !seen[a.Agent] {
				seen[a.Agent] = true
				out = append(out, a.Agent)
			}
		}
	}
	return out
}

// toolSteps returns the tool steps of sessions.
func toolSteps(sessions []*results.AgentSession) []results.AgentStep {
	var out []results.AgentStep
	for _, s := range sessions {
		for _, st := range s.Steps {
			if st.Kind == results.StepTool {
				out = append(out, st)
			}
		}
	}
	return out
}

// TestHealAgentFixesTheCauseInAnotherFile: the agent runs the failing
// test and sees it fail, reads the test, follows Total to applyDiscount
// in a second file, and fixes the slip there; the heal is green with one
// commit that touches only that file, and results.json counts the
// session's turns, tool calls and tokens.
func TestHealAgentFixesTheCauseInAnotherFile(t *testing.T) {
	needTools(t, "go", "git")
	repo := agentRepo(t, cartFiles)
	model := &agenttest.Investigator{}
	code, res, out := healWithAgent(t, repo, model)
	if code != exitOK || res.Outcome != results.OutcomeGreen {
		t.Fatalf("exit %d, outcome %q, want green; the model called %q:\n%s", code, res.Outcome, model.Calls(), out)
	}
	if files := branchFiles(t, repo, res.Branch); strings.Join(files, ",") != "discount.go" {
		t.Errorf("the heal changed %v, want discount.go only", files)
	}
	if len(res.Commits) != 1 || strings.Join(res.Commits[0].Files, ",") != "discount.go" {
		t.Errorf("commits %+v", res.Commits)
	}
	sessions := agentSessions(res)
	if len(sessions) == 0 {
		t.Fatalf("no agent session in results.json:\n%s", out)
	}
	if os.Getenv("DEBUG_AGENT") != "" {
		b, _ := json.MarshalIndent(sessions, "", "  ")
		t.Log(out, string(b))
	}
	s := sessions[len(sessions)-1]
	if s.Turns == 0 || s.ToolCalls == 0 || s.InputTokens == 0 || s.Edits == 0 || s.Trials < 2 {
		t.Errorf("the session's counts: %+v", s)
	}
	steps := toolSteps(sessions)
	first := steps[0]
	if first.Tool != "heal__run_tests" || !strings.Contains(first.Result, "exit code: 1") || !strings.Contains(first.Result, "cart_test.go") {
		t.Errorf("the first step is not a failing run of the test: %+v", first)
	}
	readOther := slices.ContainsFunc(steps, func(st results.AgentStep) bool {
		return st.Tool == "heal__read_file" && strings.Contains(st.Args, "discount.go")
	})
	if !readOther {
		t.Errorf("the agent never read discount.go: %q", model.Calls())
	}
	last := steps[len(steps)-1]
	if last.Tool != "heal__run_tests" || !strings.Contains(last.Result, "(passed)") {
		t.Errorf("the last step is not a passing run: %+v", last)
	}
	if res.LLM.Requests == 0 || res.LLM.InputTokens == 0 {
		t.Errorf("the LLM accounting: %+v", res.LLM)
	}
}

// TestHealAgentRefusedTestEditThenFixesCode: the agent's first edit
// deletes the failing assertion; the gate refuses it (test-file) and says
// so in the tool's answer; the agent then fixes the code. The heal is
// green, the test untouched, and the refusal is in the transcript.
func TestHealAgentRefusedTestEditThenFixesCode(t *testing.T) {
	needTools(t, "go", "git")
	repo := agentRepo(t, cartFiles)
	model := &agenttest.Investigator{Mode: agenttest.TestFirst}
	dbPath := filepath.Join(t.TempDir(), "runs.db")
	code, res, out := healWithAgent(t, repo, model, "--store", dbPath)
	if code != exitOK || res.Outcome != results.OutcomeGreen {
		t.Fatalf("exit %d, outcome %q, want green; the model called %q:\n%s", code, res.Outcome, model.Calls(), out)
	}
	if files := branchFiles(t, repo, res.Branch); strings.Join(files, ",") != "discount.go" {
		t.Errorf("the heal changed %v, want discount.go only", files)
	}
	steps := toolSteps(agentSessions(res))
	i := slices.IndexFunc(steps, func(st results.AgentStep) bool { return st.Tool == "heal__edit" })
	if i < 0 {
		t.Fatalf("no edit in the transcript: %+v", steps)
	}
	refused := steps[i]
	if refused.Verdict != "refused" || !slices.Contains(refused.Rules, "test-file") || !strings.Contains(refused.Args, "cart_test.go") ||
		!strings.Contains(refused.Result, "test-file") {
		t.Errorf("the first edit was not the test's, refused by test-file: %+v", refused)
	}
	if !slices.ContainsFunc(steps[i+1:], func(st results.AgentStep) bool {
		return st.Tool == "heal__edit" && st.Verdict == "accepted" && strings.Contains(st.Args, "discount.go")
	}) {
		t.Errorf("no accepted edit of discount.go after the refusal: %+v", steps)
	}
	// The run store holds every turn and tool call, and the run viewer
	// shows the transcript, refusal included, beside the commit's diff.
	st, err := store.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	events, err := st.Events(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var refusal, turns int
	for _, ev := range events {
		if strings.HasPrefix(ev.Message, "agent turn ") && strings.HasSuffix(ev.Message, ": model") {
			turns++
		}
		if strings.Contains(ev.Message, "heal__edit refused (") && strings.Contains(ev.Message, "test-file") && ev.Context["tool"] == "heal__edit" {
			refusal++
		}
	}
	if refusal != 1 || turns != agentSessions(res)[0].Turns {
		t.Errorf("the store holds %d refusal(s) and %d model turn(s) of %d", refusal, turns, agentSessions(res)[0].Turns)
	}
	srv, err := ui.New(st, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/runs/"+res.RunID, nil))
	page := rec.Body.String()
	beside := page[strings.Index(page, `<div class="beside">`)+1:]
	if rec.Code != 200 || !strings.Contains(page, `<div class="beside">`) || !strings.Contains(beside, "Agent transcript") ||
		!strings.Contains(beside, "refused test-file") || !strings.Contains(beside, "discountFrom") || strings.Index(beside, "Agent transcript") > strings.Index(beside, "discountFrom {") {
		t.Errorf("the run page does not show the transcript beside the diff (%d):\n%s", rec.Code, page)
	}
}

// TestHealAgentCheatsNeverGoGreen: an agent that tries every cheat the
// integrity rules name (on the test, on the code under test, on CI) is
// refused every time, each refusal naming its rule, and the heal ends
// red with nothing committed, with the tests protected and with test
// edits allowed.
func TestHealAgentCheatsNeverGoGreen(t *testing.T) {
	needTools(t, "go", "git")
	for _, tc := range []struct {
		name  string
		extra []string
		want  []string
	}{
		{"tests protected", nil, []string{"test-file", "ci-config", "test-env-detection", "test-literal-conditional", "process-exit", "suppression-added"}},
		{"test edits allowed", []string{"--allow-test-edits"}, []string{"assertion-removed", "expected-value-changed", "test-skipped", "test-removed",
			"harness-exit", "ci-config", "test-env-detection", "test-literal-conditional", "process-exit", "suppression-added"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := agentRepo(t, cartFiles)
			model := &agenttest.Investigator{Mode: agenttest.Cheat}
			code, res, out := healWithAgent(t, repo, model, tc.extra...)
			if code != exitFailure || res.Outcome != results.OutcomeRed {
				t.Fatalf("exit %d, outcome %q, want red:\n%s", code, res.Outcome, out)
			}
			if files := branchFiles(t, repo, res.Branch); len(files) != 0 || len(res.Commits) != 0 {
				t.Errorf("the heal committed %v (%d commits)", files, len(res.Commits))
			}
			refused := map[string]bool{}
			for _, st := range toolSteps(agentSessions(res)) {
				if st.Tool != "heal__edit" {
					continue
				}
				if st.Verdict != "refused" {
					t.Errorf("a cheat was accepted: %+v", st)
				}
				for _, r := range st.Rules {
					refused[r] = true
				}
			}
			for _, r := range tc.want {
				if !refused[r] {
					t.Errorf("no cheat was refused by %s (refused: %v)", r, refused)
				}
			}
		})
	}
}

// TestHealAgentBudgetRunsOut: with a budget of three tool calls the
// investigation cannot finish: the heal ends red, the attempt names the
// budget, and results.json records it.
func TestHealAgentBudgetRunsOut(t *testing.T) {
	needTools(t, "go", "git")
	repo := agentRepo(t, cartFiles)
	cfg := filepath.Join(t.TempDir(), "ai-agent.json")
	if err := os.WriteFile(cfg, []byte(`{"heal": {"agent": {"maxToolCalls": 3}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	model := &agenttest.Investigator{}
	code, res, out := healWithAgent(t, repo, model, "--config", cfg)
	if code != exitFailure || res.Outcome != results.OutcomeRed {
		t.Fatalf("exit %d, outcome %q, want red:\n%s", code, res.Outcome, out)
	}
	if len(res.Commits) != 0 {
		t.Errorf("commits %+v", res.Commits)
	}
	sessions := agentSessions(res)
	if len(sessions) == 0 || sessions[0].Budget != "tool calls" || sessions[0].ToolCalls != 4 {
		t.Fatalf("sessions %+v", sessions)
	}
	if !strings.Contains(out, "tool calls budget ran out") {
		t.Errorf("the output does not name the budget:\n%s", out)
	}
}

// TestBenchAgentHealsCrossFileCases: salve bench runs the agent tier on
// the corpus's cross-file cases (Go and Python: the test calls one file,
// the slip is in another) with the scripted investigator as its model;
// each is healed, minimal, with no false success, and the figures count
// the agent's turns, tool calls and tokens.
func TestBenchAgentHealsCrossFileCases(t *testing.T) {
	needTools(t, "go", "git", "python3")
	salve, gitAgent := mcpBinaries(t)
	model := &agenttest.Investigator{}
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Handle(model.Answer)
	corpus := filepath.Join("..", "..", "testdata", "heal-corpus")
	cmd := exec.Command(salve, "bench", corpus, "--case", "-xfile-", "--fixers", "agent", "--models", "openai/scripted-investigator", "--isolation", "none", "--json")
	cmd.Env = append(mcpEnv(t, gitAgent), "OPENAI_API_KEY=sk-test-not-real", "OPENAI_BASE_URL="+srv.URL+"/v1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("salve bench: %v\n%s", err, out)
	}
	var doc struct {
		Results []struct {
			Case, Expect          string
			Healed, Minimal, Pass bool
			FalseSuccess          bool `json:"false_success"`
			Turns                 int  `json:"agent_turns"`
			ToolCalls             int  `json:"agent_tool_calls"`
			Tokens                int  `json:"tokens"`
			Notes                 []string
		} `json:"results"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(doc.Results) != 2 {
		t.Fatalf("%d cases:\n%s", len(doc.Results), out)
	}
	for _, r := range doc.Results {
		if r.Expect != "healed" || !r.Healed || !r.Minimal || !r.Pass || r.FalseSuccess {
			t.Errorf("%s: %+v", r.Case, r)
		}
		if r.Turns == 0 || r.ToolCalls == 0 || r.Tokens == 0 {
			t.Errorf("%s spent nothing: %+v", r.Case, r)
		}
	}
}

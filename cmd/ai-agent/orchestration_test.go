package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
)

// Advisors, router and handoff through the real binary, with test-llm:
// each agent's model is a scenario of its own (by model name), whose
// answers and token counts tell the agents apart. What an agent received
// is read back from --save-all (its conversation) and the result, what
// it cost from --result-json and the billing file.

// orchScenarios are the scripted models: each answers with a final
// report, except router (which hands off), failing (auth error) and
// echo-route (which routes with no note).
const orchScenarios = `[
 {"id":"main","turns":[{"turn":1,"response":{"kind":"final-report","reportContent":"raw findings","tokenUsage":{"inputTokens":200,"outputTokens":20}}}]},
 {"id":"legal","turns":[{"turn":1,"response":{"kind":"final-report","reportContent":"no legal issue","tokenUsage":{"inputTokens":100,"outputTokens":10}}}]},
 {"id":"failing","turns":[{"turn":1,"failuresBeforeSuccess":9,"failureStatus":"auth_error","failureMessage":"bad key","response":{"kind":"text","assistantText":"never"}}]},
 {"id":"formatter","turns":[{"turn":1,"response":{"kind":"final-report","reportContent":"FORMATTED REPORT","tokenUsage":{"inputTokens":400,"outputTokens":40}}}]},
 {"id":"billing","turns":[{"turn":1,"response":{"kind":"final-report","reportContent":"refund issued","tokenUsage":{"inputTokens":300,"outputTokens":30}}}]},
 {"id":"tech","turns":[{"turn":1,"response":{"kind":"final-report","reportContent":"reboot it"}}]},
 {"id":"router","turns":[
   {"turn":1,"expectedTools":["router__handoff-to"],"response":{"kind":"tool-call","tokenUsage":{"inputTokens":50,"outputTokens":5},
    "toolCalls":[{"toolName":"router__handoff-to","arguments":{"agent":"billing","message":"customer wants money back"}}]}}]}
]`

// orchAgents are the agent files every case may name.
var orchAgents = map[string]string{
	"main.ai":              "---\nmodels: [llm/main]\n---\nYou answer.\n",
	"advised.ai":           "---\nmodels: [llm/main]\nadvisors:\n  - ./advisors/legal.ai\n  - ./advisors/broken.ai\n---\nYou answer.\n",
	"advisors/legal.ai":    "---\ndescription: Legal review\nmodels: [llm/legal]\n---\nYou review.\n",
	"advisors/broken.ai":   "---\ndescription: Always fails\nmodels: [llm/failing]\n---\nYou fail.\n",
	"handed.ai":            "---\nmodels: [llm/main]\nhandoff: ./formatters/report.ai\n---\nYou answer.\n",
	"formatters/report.ai": "---\ndescription: Formats\ntoolName: formatter\nmodels: [llm/formatter]\n---\nYou format.\n",
	"other.ai":             "---\ndescription: Other formatter\nmodels: [llm/tech]\n---\nYou format.\n",
	"router.ai": "---\nmodels: [llm/router]\nrouter:\n  destinations:\n    - ./handlers/billing.ai\n    - ./handlers/tech.ai\n" +
		"---\nYou route.\n",
	"routed-handoff.ai": "---\nmodels: [llm/router]\nrouter:\n  destinations: [./handlers/billing.ai, ./handlers/tech.ai]\n" +
		"handoff: ./formatters/report.ai\n---\nYou route.\n",
	"handlers/billing.ai": "---\ndescription: Billing\nmodels: [llm/billing]\n---\nYou handle billing.\n",
	"handlers/tech.ai":    "---\ndescription: Tech\nmodels: [llm/tech]\n---\nYou handle tech.\n",
	"loop/a.ai":           "---\nmodels: [llm/main]\nhandoff: ./b.ai\n---\nA.\n",
	"loop/b.ai":           "---\nmodels: [llm/main]\nrouter:\n  destinations: [./a.ai]\n---\nB.\n",
	"missing.ai":          "---\nmodels: [llm/main]\nadvisors: [./nowhere.ai]\n---\nM.\n",
	"bad-handoff.ai":      "---\nmodels: [llm/main]\nhandoff: [./a.ai, ./b.ai]\n---\nM.\n",
}

// orchRun is what one run of the binary left.
type orchRun struct {
	dir            string
	code           int
	stdout, stderr string
	result         contract.AIAgentResult
	billing        []contract.AccountingEntry
}

// userPrompt is the user message an agent's saved conversation starts
// with (--save-all: <txnId>__<agent>.json; the master's is the result).
func (r *orchRun) userPrompt(t *testing.T, agent string) string {
	t.Helper()
	conv := r.result.Conversation
	if agent != "" {
		files, _ := filepath.Glob(filepath.Join(r.dir, "saved", "*", "*__"+agent+".json"))
		if len(files) != 1 {
			t.Fatalf("%d saved conversations of %s, want 1; stderr:\n%s", len(files), agent, r.stderr)
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &conv); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range conv {
		if m.Role == contract.RoleUser {
			return m.Content
		}
	}
	t.Fatalf("no user message in the conversation of %q", agent)
	return ""
}

// entries are the result's LLM accounting entries of an agent.
func (r *orchRun) entries(agent string) []contract.AccountingEntry {
	var out []contract.AccountingEntry
	for _, e := range r.result.Accounting {
		if e.AgentID == agent && e.Type == contract.AccountingLLM {
			out = append(out, e)
		}
	}
	return out
}

const orchConfig = `{"providers":{"llm":{"type":"test-llm","scenarioFile":"scenarios.json"}}}`

// orchDir writes orchAgents, the scenarios and config as .ai-agent.json
// into a new folder.
func orchDir(t *testing.T, config string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{".ai-agent.json": config, "scenarios.json": orchScenarios}
	for name, text := range orchAgents {
		files[name] = text
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runOrchestration runs the binary in an orchDir.
func runOrchestration(t *testing.T, config string, args ...string) *orchRun {
	t.Helper()
	dir := orchDir(t, config)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	all := append([]string{"--result-json", "result.json", "--save-all", "saved", "--billing-file", "billing.jsonl",
		"--sessions-dir", "sessions"}, args...)
	cmd := exec.CommandContext(ctx, aiAgentBinary(t), all...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "AI_TELEMETRY_DISABLE=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	_ = cmd.Run()
	r := &orchRun{dir: dir, code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
	if b, err := os.ReadFile(filepath.Join(dir, "result.json")); err == nil {
		if err := json.Unmarshal(b, &r.result); err != nil {
			t.Fatalf("result.json: %v", err)
		}
	}
	if f, err := os.Open(filepath.Join(dir, "billing.jsonl")); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var e contract.AccountingEntry
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("billing line %q: %v", sc.Text(), err)
			}
			r.billing = append(r.billing, e)
		}
	}
	return r
}

// block matches one tagged block of the orchestration prompts.
func block(kind, agent, content string) *regexp.Regexp {
	attr := ""
	if agent != "" {
		attr = ` agent="` + regexp.QuoteMeta(agent) + `"`
	}
	return regexp.MustCompile(`<(` + kind + `__[0-9a-f]{12})` + attr + `>\n` + regexp.QuoteMeta(content) + `\n</` + kind + `__[0-9a-f]{12}>`)
}

func TestOrchestration(t *testing.T) {
	const task = "Can I get my money back?"
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		check  func(t *testing.T, r *orchRun)
	}{
		{
			name: "advisors from the frontmatter", args: []string{"advised.ai", task}, stdout: "raw findings\n",
			check: func(t *testing.T, r *orchRun) {
				got := r.userPrompt(t, "")
				for _, re := range []*regexp.Regexp{
					block("advisory", "legal", "no legal issue"),
					block("advisory", "broken", "Advisor consultation failed for "+filepath.Join(".", "advisors", "broken.ai")+": bad key"),
					block("original_user_request", "", task),
				} {
					if !re.MatchString(got) {
						t.Errorf("the main agent's prompt lacks %s:\n%s", re, got)
					}
				}
				if strings.Index(got, "legal") > strings.Index(got, "broken") || strings.Index(got, "broken") > strings.Index(got, task) {
					t.Errorf("blocks out of order (advisors as listed, then the request):\n%s", got)
				}
				if p := r.userPrompt(t, "legal"); p != task {
					t.Errorf("the advisor got %q, want the user's request", p)
				}
				checkChildAccounting(t, r, "legal", 100, 10)
			},
		},
		{
			name: "--advisors replaces the frontmatter's", args: []string{"--advisors", "advisors/legal.ai", "advised.ai", task}, stdout: "raw findings\n",
			check: func(t *testing.T, r *orchRun) {
				got := r.userPrompt(t, "")
				if !block("advisory", "legal", "no legal issue").MatchString(got) || strings.Contains(got, "broken") {
					t.Errorf("want the legal advisor alone:\n%s", got)
				}
			},
		},
		{
			name: "handoff from the frontmatter", args: []string{"handed.ai", task}, stdout: "FORMATTED REPORT\n",
			check: func(t *testing.T, r *orchRun) {
				got := r.userPrompt(t, "formatter")
				if !block("response", "handed", "raw findings").MatchString(got) || !block("original_user_request", "", task).MatchString(got) {
					t.Errorf("the handoff got:\n%s", got)
				}
				if r.result.FinalReport == nil || *r.result.FinalReport.Content != "FORMATTED REPORT" || !r.result.Success {
					t.Errorf("result = %+v, want the handoff's report", r.result.FinalReport)
				}
				checkChildAccounting(t, r, "formatter", 400, 40)
			},
		},
		{
			name: "--handoff beats the frontmatter", args: []string{"--handoff", "other.ai", "handed.ai", task}, stdout: "reboot it\n",
			check: func(t *testing.T, r *orchRun) {
				if !block("response", "handed", "raw findings").MatchString(r.userPrompt(t, "other")) {
					t.Errorf("the --handoff agent did not get the answer")
				}
			},
		},
		{
			name: "router hands off to the destination it names", args: []string{"router.ai", task}, stdout: "refund issued\n",
			check: func(t *testing.T, r *orchRun) {
				got := r.userPrompt(t, "billing")
				if !block("advisory", "router", "customer wants money back").MatchString(got) || !block("original_user_request", "", task).MatchString(got) {
					t.Errorf("the destination got:\n%s", got)
				}
				if files, _ := filepath.Glob(filepath.Join(r.dir, "saved", "*", "*__tech.json")); len(files) != 0 {
					t.Errorf("the destination not chosen ran: %v", files)
				}
				last := r.result.Conversation[len(r.result.Conversation)-1]
				if last.Role != contract.RoleTool || last.Content != "Routed to agent: billing" {
					t.Errorf("the router's conversation ends with %+v", last)
				}
				checkChildAccounting(t, r, "billing", 300, 30)
			},
		},
		{
			name: "router, destination, then handoff", args: []string{"routed-handoff.ai", task}, stdout: "FORMATTED REPORT\n",
			check: func(t *testing.T, r *orchRun) {
				if !block("response", "billing", "refund issued").MatchString(r.userPrompt(t, "formatter")) {
					t.Errorf("the handoff did not get the destination's answer")
				}
				checkChildAccounting(t, r, "billing", 300, 30)
				checkChildAccounting(t, r, "formatter", 400, 40)
			},
		},
		{
			name: "a loop is refused before any model runs", args: []string{"loop/a.ai", task}, code: exitConfig,
			check: func(t *testing.T, r *orchRun) {
				if !strings.Contains(r.stderr, "orchestration cycle: a.ai -> b.ai -> a.ai") {
					t.Errorf("stderr:\n%s", r.stderr)
				}
			},
		},
		{name: "a missing advisor file", args: []string{"missing.ai", task}, code: exitConfig, check: stderrHas("nowhere.ai does not exist")},
		{name: "handoff is one file", args: []string{"bad-handoff.ai", task}, code: exitConfig, check: stderrHas("handoff must be a single string")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runOrchestration(t, orchConfig, tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			if tc.code == 0 && r.stdout != tc.stdout {
				t.Errorf("stdout %q, want %q", r.stdout, tc.stdout)
			}
			tc.check(t, r)
		})
	}
}

func stderrHas(s string) func(*testing.T, *orchRun) {
	return func(t *testing.T, r *orchRun) {
		t.Helper()
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
}

// checkChildAccounting: the child's LLM entries are in the result with
// its tokens, below the master (its parent and origin), and the billing
// file holds every entry of the result once.
func checkChildAccounting(t *testing.T, r *orchRun, agent string, in, out int) {
	t.Helper()
	es := r.entries(agent)
	if len(es) != 1 {
		t.Fatalf("%d LLM entries of %s in the result, want 1", len(es), agent)
	}
	e, master := es[0], r.result.Accounting[0]
	if e.Tokens == nil || e.Tokens.InputTokens != in || e.Tokens.OutputTokens != out {
		t.Errorf("%s tokens %+v, want %d in, %d out", agent, e.Tokens, in, out)
	}
	if e.ParentTxnID != master.TxnID || e.OriginTxnID != master.OriginTxnID || e.CallPath != master.CallPath+":"+agent {
		t.Errorf("%s ids: parent %s origin %s path %s; master txn %s origin %s path %s", agent, e.ParentTxnID, e.OriginTxnID, e.CallPath,
			master.TxnID, master.OriginTxnID, master.CallPath)
	}
	if len(r.billing) != len(r.result.Accounting) {
		t.Errorf("billing file has %d entries, the result %d", len(r.billing), len(r.result.Accounting))
	}
}

// TestOrchestrationHeadend: a served router agent routes and hands off
// for each request, and the children's accounting carries the request's
// id as origin.
func TestOrchestrationHeadend(t *testing.T) {
	dir := orchDir(t, orchConfig)
	billing := filepath.Join(dir, "billing.jsonl")
	p := startHeadend(t, dir, 1, []string{"AI_TELEMETRY_DISABLE=1"}, "--agent", "routed-handoff.ai", "--api", "0", "--billing-file", billing)
	defer p.stop(t)
	resp, err := http.Get("http://" + p.addrs["api"] + "/v1/routed-handoff?q=refund+please")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("X-Request-Id")
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"output":"FORMATTED REPORT"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	b, err := os.ReadFile(billing)
	if err != nil {
		t.Fatal(err)
	}
	agents := map[string]bool{}
	for line := range strings.Lines(string(b)) {
		var e contract.AccountingEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if e.OriginTxnID != id {
			t.Errorf("entry of %s has origin %s, want the request's %s", e.AgentID, e.OriginTxnID, id)
		}
		agents[e.AgentID] = true
	}
	if !agents["routed-handoff"] || !agents["billing"] || !agents["formatter"] || agents["tech"] {
		t.Errorf("billing entries of %v", agents)
	}
}

// TestOrchestrationCostCap: advisors spend from the session's cap, so an
// advisor that spends it leaves the agent no turn.
func TestOrchestrationCostCap(t *testing.T) {
	priced := `{"providers":{"llm":{"type":"test-llm","scenarioFile":"scenarios.json"}},
	  "pricing":{"llm":{"legal":{"prompt":10000,"completion":0}}}}`
	r := runOrchestration(t, priced, "--max-cost-usd", "0.5", "--advisors", "advisors/legal.ai", "main.ai", "q")
	if r.code != exitFailure || !strings.Contains(r.stderr, "cost budget cap reached: session maxCostUsd 0.5000 USD (spent 1.0000 USD)") {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if len(r.entries("legal")) != 1 || len(r.entries("main")) != 0 {
		t.Errorf("LLM entries: legal %d, main %d; want the advisor's alone", len(r.entries("legal")), len(r.entries("main")))
	}
	without := runOrchestration(t, priced, "--advisors", "advisors/legal.ai", "main.ai", "q")
	if without.code != 0 {
		t.Fatalf("without the cap: exit %d; stderr:\n%s", without.code, without.stderr)
	}
}

// TestOrchestrationDepth: a chain of handoffs longer than the depth limit
// is refused at start, one within it runs to its last agent.
func TestOrchestrationDepth(t *testing.T) {
	for _, n := range []int{8, 9} {
		t.Run(fmt.Sprint(n, " agents"), func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, text string) {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(".ai-agent.json", `{"providers":{"llm":{"type":"test-llm","scenarioFile":"s.json"}}}`)
			write("s.json", `{"id":"m","turns":[{"turn":1,"response":{"kind":"final-report","reportContent":"stage done"}}]}`)
			for i := 1; i <= n; i++ {
				next := ""
				if i < n {
					next = fmt.Sprintf("handoff: ./a%d.ai\n", i+1)
				}
				write(fmt.Sprintf("a%d.ai", i), "---\nmodels: [llm/m]\n"+next+"---\nStage.\n")
			}
			cmd := exec.Command(aiAgentBinary(t), "--billing-file", "b.jsonl", "a1.ai", "go")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "AI_TELEMETRY_DISABLE=1")
			out, _ := cmd.CombinedOutput()
			code := cmd.ProcessState.ExitCode()
			if n == 8 {
				b, _ := os.ReadFile(filepath.Join(dir, "b.jsonl"))
				if code != 0 || !strings.Contains(string(b), `"callPath":"a1:a2:a3:a4:a5:a6:a7:a8"`) {
					t.Fatalf("exit %d; output:\n%s\nbilling:\n%s", code, out, b)
				}
				return
			}
			if code != exitConfig || !strings.Contains(string(out), "orchestration too deep: a chain of 9 agents from a1.ai, more than 8") {
				t.Fatalf("exit %d, want %d; output:\n%s", code, exitConfig, out)
			}
		})
	}
}

package conformance

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/sandbox"
)

const agentFile = `#!/usr/bin/env ai-agent
---
description: Summarises
models: [test/af]
tools: echo
maxTurns: 3
temperature: 0.4
output: { format: json, schema: { type: object, required: [summary], properties: { summary: { type: string } } } }
---
You are terse. Answer in ${FORMAT} within ${MAX_TURNS} turns.
`

// §7 (docs/contracts/ai-agent-cli.md §10) .ai files: frontmatter sets
// models, tools, limits and the output schema; the body is the system prompt
// with its variables; the file runs as <system>, with --agent, and as an
// executable.
func TestSection7_AgentFiles(t *testing.T) {
	h := newHarness(t)
	h.scenario(`[{"id":"af","systemPromptMustInclude":["You are terse. Answer in json within 3 turns."],"turns":[
		{"turn":1,"expectedTools":["rest__echo"],"expectedTemperature":0.4,"response":{"kind":"final-report","reportContentJson":{"summary":"short"}}}]}]`)
	path := h.write("agents/summary.ai", agentFile)
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{path, "summarise"}, {"--agent", path, "summarise"}} {
		o := h.run(args...).mustExit(t, 0)
		if o.stdout != "{\n  \"summary\": \"short\"\n}\n" {
			t.Fatalf("%v: stdout = %q", args, o.stdout)
		}
		if strings.Contains(o.res.Conversation[0].Content, "---") {
			t.Fatalf("frontmatter left in the system prompt")
		}
	}
	// Executable form: the kernel runs "ai-agent ./summary.ai summarise".
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: path, Args: []string{"summarise"}, Dir: h.dir,
		Env: []string{"HOME=" + h.home, "PATH=" + filepath.Dir(binary) + ":" + os.Getenv("PATH")}, Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 || string(res.Stdout) != "{\n  \"summary\": \"short\"\n}\n" {
		t.Fatalf("executable .ai: %v exit %d stdout %q stderr %s", err, res.ExitCode, res.Stdout, res.Stderr)
	}
	bad := h.write("agents/bad.ai", "---\nmodels: test/af\nstream: true\n---\nbody\n")
	if o := h.run(bad, "u").mustExit(t, 4); !strings.Contains(o.stderr, "stream") {
		t.Fatalf("runtime key not named: %s", o.stderr)
	}
}

// §7 (docs/contracts/ai-agent-cli.md §1) prompts from stdin and from @FILE.
func TestSection7_PromptSources(t *testing.T) {
	h := newHarness(t)
	h.scenario(`[{"id":"p","systemPromptMustInclude":["system from file"],"turns":[{"turn":1,"response":{"kind":"final-report","reportContent":"ok"}}]}]`)
	h.write("sys.txt", "system from file")
	o := h.runStdin("user from stdin", "--models", "test/p", "@sys.txt", "-").mustExit(t, 0)
	if o.res.Conversation[1].Content != "user from stdin" {
		t.Fatalf("user prompt = %q", o.res.Conversation[1].Content)
	}
	h.run("--models", "test/p", "@missing.txt", "u").mustExit(t, 4)
}

// §4/§7 sub-agents (docs/contracts/ai-agent-cli.md §10): agent__NAME runs an
// isolated child session with its own tracing ids; its report is the tool
// result, and its accounting carries the parent's txnId as parentTxnId.
func TestSection4_SubAgentTracing(t *testing.T) {
	h := newHarness(t)
	h.write("agents/helper.ai", "---\ndescription: Helps\nmodels: test/child\n---\nYou are the helper.\n")
	parent := h.write("agents/parent.ai", "---\nmodels: test/parent\nagents: [helper.ai]\n---\nYou are the parent.\n")
	h.scenario(`[{"id":"parent","turns":[
		{"turn":1,"expectedTools":["agent__helper"],"response":{"kind":"tool-call","toolCalls":[{"toolName":"agent__helper","arguments":{"prompt":"help me","reason":"test","format":"sub-agent"}}]}},
		{"turn":2,"response":{"kind":"final-report","reportContent":"parent done"}}]},
		{"id":"child","systemPromptMustInclude":["You are the helper."],"turns":[{"turn":1,"response":{"kind":"final-report","reportContent":"child says hi"}}]}]`)
	o := h.run(parent, "go", "--tooling-transport", "native").mustExit(t, 0)
	if msg := toolMessages(o.res.Conversation)["call-1-1"]; msg != "child says hi" {
		t.Fatalf("sub-agent tool message = %q", msg)
	}
	e := toolEntries(o.res.Accounting, "agent__helper")
	if len(e) != 1 || e[0].MCPServer != "agent" || e[0].Status != "ok" {
		t.Fatalf("sub-agent entry = %+v", e)
	}
	parentTxn := o.res.Accounting[0].TxnID
	b, err := os.ReadFile(filepath.Join(h.dir, "billing.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var child int
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.Contains(line, `"parentTxnId":"`+parentTxn+`"`) && strings.Contains(line, `"agentId":"helper"`) &&
			strings.Contains(line, `"callPath":"parent:helper"`) {
			child++
		}
	}
	if child == 0 {
		t.Fatalf("no child accounting with the parent's txn id in billing:\n%s", b)
	}
}

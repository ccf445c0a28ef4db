package conformance

import (
	"strings"
	"testing"
)

// mcpConfig adds the stdio MCP server "t" (internal/agent/tools/mcp/mcptest) and a server
// whose command does not exist.
func mcpConfig(h *harness, extraArgs ...string) {
	args := append([]string{}, extraArgs...)
	h.config(map[string]any{"mcpServers": map[string]any{
		"t":       map[string]any{"command": mcpServer, "args": args, "toolsDenied": []string{"spawn"}},
		"missing": map[string]any{"command": "/nonexistent/mcp-server"},
	}})
}

// §2 exit code 3: an MCP server that fails to start, before any request.
func TestSection2_MCPStartupFailureExit3(t *testing.T) {
	h := newHarness(t)
	mcpConfig(h)
	h.scenario(one("m", report(1, "never")))
	o := h.run("--models", "test/m", "--tools", "missing", "s", "u").mustExit(t, 3)
	if o.stdout != "" || o.res.Success || !strings.Contains(o.res.Error, "missing") || len(o.res.Accounting) != 0 {
		t.Fatalf("result = %s\nstdout %q", o.raw, o.stdout)
	}
}

// §1/§6 MCP tools through the engine: results, failures as tool messages,
// and a server crash mid-session only fails its calls.
func TestSection6_MCPToolMessages(t *testing.T) {
	h := newHarness(t)
	mcpConfig(h)
	h.scenario(one("m", `{"turn":1,"expectedTools":["t__echo","t__fail"],"response":{"kind":"tool-call","toolCalls":[
		{"toolName":"t__echo","arguments":{"text":"from mcp"}},{"toolName":"t__fail","arguments":{"message":"it broke"}}]}}`,
		`{"turn":2,"response":{"kind":"tool-call","toolCalls":[{"toolName":"t__crash","arguments":{}}]}}`,
		`{"turn":3,"response":{"kind":"tool-call","toolCalls":[{"toolName":"t__echo","arguments":{"text":"after crash"}}]}}`,
		report(4, "survived")))
	o := h.run("--models", "test/m", "--tools", "t", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	msgs := toolMessages(o.res.Conversation)
	if msgs["call-1-1"] != "from mcp" || msgs["call-1-2"] != "(tool failed: it broke)" {
		t.Fatalf("tool messages = %v", msgs)
	}
	if !strings.HasPrefix(msgs["call-2-1"], "(tool failed: ") || !strings.HasPrefix(msgs["call-3-1"], "(tool failed: ") {
		t.Fatalf("crash not turned into failed calls: %q / %q", msgs["call-2-1"], msgs["call-3-1"])
	}
	e := toolEntries(o.res.Accounting, "t__echo")
	if len(e) != 2 || e[0].MCPServer != "t" || e[0].Status != "ok" || e[1].Status != "failed" {
		t.Fatalf("entries = %+v", e)
	}
}

// §2 --list-tools: the listing format, exit 3 for an unknown or failing
// server, exit 5 for a failed schema check.
func TestSection2_ListTools(t *testing.T) {
	h := newHarness(t)
	mcpConfig(h)
	o := h.run("--list-tools", "t").mustExit(t, 0)
	if !strings.HasPrefix(o.stdout, "MCP server 't':\n") || !strings.Contains(o.stdout, "  - echo (exposed as t__echo)\n    description: Returns its text.\n    inputSchema:\n      {\n") ||
		strings.Contains(o.stdout, "spawn") || !strings.HasSuffix(o.stdout, "}\n\n") {
		t.Fatalf("listing = %q", o.stdout)
	}
	h.run("--list-tools", "ghost").mustExit(t, 3)
	h.run("--list-tools", "missing").mustExit(t, 3)
	o = h.run("--list-tools", "t", "--schema-validate", "draft-07").mustExit(t, 0)
	if !strings.Contains(o.stdout, "Schema validation summary (draft-07):") {
		t.Fatalf("no summary: %q", o.stdout)
	}
	mcpConfig(h, "-bad-schema")
	h.run("--list-tools", "t", "--schema-validate", "2020-12").mustExit(t, 5)
}

// §2 exit code 5: a tool inputSchema that cannot be compiled.
func TestSection2_ToolSchemaExit5(t *testing.T) {
	h := newHarness(t)
	mcpConfig(h, "-bad-schema")
	h.scenario(one("m", report(1, "never")))
	h.run("--models", "test/m", "--tools", "t", "s", "u").mustExit(t, 5)
}

// --trace-mcp tees the servers' stderr; stdout still carries only the report.
func TestSection6_TraceMCPKeepsStdout(t *testing.T) {
	h := newHarness(t)
	mcpConfig(h)
	h.scenario(one("m", `{"turn":1,"response":{"kind":"tool-call","toolCalls":[{"toolName":"t__echo","arguments":{"text":"x"}}]}}`, report(2, "only this")))
	o := h.run("--models", "test/m", "--tools", "t", "--trace-mcp", "--trace-llm", "--verbose", "s", "u").mustExit(t, 0)
	if o.stdout != "only this\n" {
		t.Fatalf("stdout = %q", o.stdout)
	}
	if !strings.Contains(o.stderr, "llm request") {
		t.Fatalf("no trace on stderr:\n%s", o.stderr)
	}
}

// Sub-agents share the parent's running MCP servers: a call the child makes
// is seen by the parent's server.
func TestSection4_SubAgentSharesMCPServers(t *testing.T) {
	h := newHarness(t)
	mcpConfig(h)
	h.write("agents/helper.ai", "---\nmodels: test/child\ntools: t\n---\nYou are the helper.\n")
	parent := h.write("agents/parent.ai", "---\nmodels: test/parent\ntools: t\nagents: [helper.ai]\n---\nYou are the parent.\n")
	h.scenario(`[{"id":"parent","turns":[
		{"turn":1,"response":{"kind":"tool-call","toolCalls":[{"toolName":"agent__helper","arguments":{"prompt":"work"}}]}},
		{"turn":2,"response":{"kind":"tool-call","toolCalls":[{"toolName":"t__stats","arguments":{}}]}},
		{"turn":3,"response":{"kind":"final-report","reportContent":"done"}}]},
		{"id":"child","turns":[
		{"turn":1,"response":{"kind":"tool-call","toolCalls":[{"toolName":"t__slow","arguments":{"ms":1}}]}},
		{"turn":2,"response":{"kind":"final-report","reportContent":"child done"}}]}]`)
	o := h.run(parent, "go", "--tooling-transport", "native").mustExit(t, 0)
	msgs := toolMessages(o.res.Conversation)
	if msgs["call-1-1"] != "child done" || !strings.Contains(msgs["call-2-1"], `"calls":1`) {
		t.Fatalf("child did not use the parent's server: %v", msgs)
	}
}

// --dry-run checks every start-up step except starting MCP servers and
// calling a model: stdout stays empty and no result is written.
func TestSection2_DryRun(t *testing.T) {
	h := newHarness(t)
	mcpConfig(h)
	h.scenario(one("m", report(1, "never")))
	o := h.run("--dry-run", "--models", "test/m", "--tools", "missing,echo", "s").mustExit(t, 0)
	if o.stdout != "" || o.raw != nil {
		t.Fatalf("dry run wrote stdout %q or a result %s", o.stdout, o.raw)
	}
	h.run("--dry-run", "--models", "test/m", "--tools", "ghost", "s").mustExit(t, 3)
	h.run("--dry-run", "--models", "nope/m", "s").mustExit(t, 4)
	h.run("--dry-run", "--models", "test/m", "--schema", `{"type":"bogus"}`, "s").mustExit(t, 5)
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/llm/llmtest"
)

func init() {
	for name, kc := range configCases {
		originalCases[name] = kc
	}
	for key, kc := range defaultsCases {
		originalCases["config-defaults."+key] = kc
	}
}

// configCases are the checks of the .ai-agent.json keys.
var configCases = map[string]keyCase{
	"config-providers.type":                      {check: accountedTo("local")},
	"config-providers.apiKey":                    {check: header("Authorization", "Bearer sk-from-the-agent-dir")},
	"config-providers.baseUrl":                   {check: path("/gateway/v1/chat/completions")},
	"config-providers.headers":                   {check: header("X-Team", "qa")},
	"config-providers.contextWindow":             {check: forcedFinal},
	"config-providers.contextWindowBufferTokens": {check: forcedFinal},
	"config-providers.tokenizer":                 {check: warnsValue(config.InConfig, "providers.*.tokenizer", "anthropic", "providers.llm.tokenizer")},
	"config-providers.toolChoice":                {check: sent("tool_choice", "required")},
	"config-providers.cacheStrategy":             {check: requestLacks(1, "cache_control")},
	// The openai type sends max_completion_tokens, where
	// openai-compatible sends max_tokens.
	"config-providers.openaiMode":                       {check: all(path("/v1/chat/completions"), sent("max_completion_tokens", 16384.0))},
	"config-providers.models.overrides":                 {check: all(sent("temperature", 0.9), sent("top_p", nil))},
	"config-providers.models.contextWindow":             {check: forcedFinal},
	"config-providers.models.contextWindowBufferTokens": {check: forcedFinal},
	"config-providers.models.tokenizer":                 {check: warnsValue(config.InConfig, "providers.*.models.*.tokenizer", "gemini:*", "providers.llm.models.m.tokenizer")},
	"config-providers.models.toolChoice":                {check: sent("tool_choice", "required")},
	"config-providers.custom":                           {check: warns(config.InConfig, "providers.*.custom", "providers.llm.custom")},
	"config-providers.mergeStrategy":                    {check: warns(config.InConfig, "providers.*.mergeStrategy", "providers.llm.mergeStrategy")},
	"config-providers.toolsAllowed":                     {check: warns(config.InConfig, "providers.*.toolsAllowed", "providers.llm.toolsAllowed")},
	"config-providers.toolsDenied":                      {check: warns(config.InConfig, "providers.*.toolsDenied", "providers.llm.toolsDenied")},
	"config-providers.stringSchemaFormatsAllowed":       {check: warns(config.InConfig, "providers.*.stringSchemaFormatsAllowed", "providers.llm.stringSchemaFormatsAllowed")},
	"config-providers.stringSchemaFormatsDenied":        {check: warns(config.InConfig, "providers.*.stringSchemaFormatsDenied", "providers.llm.stringSchemaFormatsDenied")},
	"config-providers.reasoning":                        {check: warns(config.InConfig, "providers.*.reasoning", "providers.llm.reasoning")},
	"config-providers.reasoningAutoStreamLevel":         {check: warns(config.InConfig, "providers.*.reasoningAutoStreamLevel", "providers.llm.reasoningAutoStreamLevel")},
	"config-providers.models.reasoning":                 {check: warns(config.InConfig, "providers.*.models.*.reasoning", "providers.llm.models.m.reasoning")},
	"config-providers.models.interleaved":               {check: warns(config.InConfig, "providers.*.models.*.interleaved", "providers.llm.models.m.interleaved")},

	"config-mcpServers":              {check: offers("tester__echo", "tester__huge")},
	"config-mcpServers.toolsAllowed": {check: all(offers("tester__echo"), offersNot("tester__huge"))},
	"config-mcpServers.toolsDenied":  {check: all(offers("tester__huge"), offersNot("tester__echo"))},
	"config-mcpServers.headers":      {check: mcpHeader("X-Token", "tok-7")},
	"config-mcpServers.type": {reply: callThenFinal("tester__echo", `{"text":"through the socket"}`),
		check: all(mcpPath("/ws"), mcpHeader("X-Token", "tok-7"), requestHas(2, "through the socket"))},
	"config-mcpServers.enabled":     {list: true, check: listed("tester", "spare")},
	"config-mcpServers.queue":       {reply: toolThenFinal("tester__echo"), check: queued("io")},
	"config-mcpServers.cache":       {twice: true, reply: toolThenFinal("tester__echo"), check: mcpCalls(1)},
	"config-mcpServers.toolsCache":  {twice: true, reply: toolThenFinal("tester__echo"), check: mcpCalls(1)},
	"config-mcpServers.toolSchemas": {check: warns(config.InConfig, "mcpServers.*.toolSchemas", "mcpServers.tester.toolSchemas")},

	"config-restTools": {reply: askDesk, check: all(toolDescription("rest__ask", "Asks the desk a question"), deskAsked)},
	"config-restTools.cache": {twice: true, reply: toolThenFinal("rest__echo"),
		check: func(t *testing.T, r *keyRun) { restCalls(t, r, "/echo", 1) }},
	"config-restTools.streaming":             {check: warns(config.InConfig, "restTools.*.streaming", "restTools.echo.streaming")},
	"config-restTools.hasComplexQueryParams": {check: warns(config.InConfig, "restTools.*.hasComplexQueryParams", "restTools.echo.hasComplexQueryParams")},
	"config-restTools.queryParamNames":       {check: warns(config.InConfig, "restTools.*.queryParamNames", "restTools.echo.queryParamNames")},
	"config-queues":                          {reply: toolThenFinal("rest__echo"), check: queued("io")},
	"config-cache":                           {twice: true, check: all(answeredFromCache, exists("cache.db"))},
	"config-accounting.file":                 {check: jsonLines("accounting.jsonl")},
	"config-persistence.billingFile":         {check: jsonLines("billing.jsonl")},
	"config-persistence.sessionsDir":         {check: sessionWritten},
	"config-pricing":                         {check: cost(100*3.0/1e6 + 10*15.0/1e6)},
	"config-tooling.transport":               {check: all(offersNot("agent__final_report"), requests(1))},
	"config-toolOutput":                      {reply: toolThenFinal("rest__big"), check: requestHas(2, "Tool output is too large")},
	"config-toolOutput.storeDir":             {check: warns(config.InConfig, "toolOutput.storeDir", "toolOutput.storeDir")},
	"config-toolOutput.models":               {check: warns(config.InConfig, "toolOutput.models", "toolOutput.models")},
	"config-telemetry.logging":               {args: []string{"--verbose"}, check: all(accepted, jsonLog)},
	"config-openapiSpecs": {reply: callThenFinal("rest__desk_askDesk", `{"topic":"billing","body":{"q":"why"}}`),
		check: all(offers("rest__desk_askDesk"), offersNot("rest__desk_readAnswers", "rest__desk_reset"),
			toolDescription("rest__desk_askDesk", "Asks the desk a question"), deskAskedAbout("billing"))},
	"config-api":           {check: warns(config.InConfig, "api", "api")},
	"config-slack.enabled": {check: warns(config.InConfig, "slack.enabled", "slack.enabled")},
	"config-embed.enabled": {check: warns(config.InConfig, "embed.*.enabled", "embed.default.enabled")},
	"config-embed.port":    {check: warns(config.InConfig, "embed.*.port", "embed.default.port")},
	"config-embed.metrics": {check: warns(config.InConfig, "embed.*.metrics", "embed.default.metrics")},
	// Honoured by the embed headend (TestHeadendSlackAndEmbed expires a
	// token by it); a run loads it without a word.
	"config-embed.auth.signedTokens.ttlSeconds": {check: silentAbout("ttlSeconds")},
}

// defaultsCases are the checks of the config's defaults, by key.
var defaultsCases = map[string]keyCase{
	"llmTimeout":                {reply: failFirst(1, llmtest.Reply{Fault: llmtest.FaultHang}), check: requests(2)},
	"toolTimeout":               {reply: toolThenFinal("rest__slow"), check: requestHas(2, "(tool failed: timeout)")},
	"temperature":               {check: sent("temperature", 0.6)},
	"topP":                      {check: sent("top_p", 0.4)},
	"topK":                      {check: sent("top_k", 30.0)},
	"repeatPenalty":             {check: sent("repetition_penalty", 1.2)},
	"reasoning":                 {check: sent("reasoning_effort", "low")},
	"stream":                    {check: streamed},
	"maxTurns":                  {reply: untilFinal("rest__echo"), check: requests(3)},
	"maxToolTurns":              {reply: untilFinal("rest__echo"), check: requests(2)},
	"maxToolCallsPerTurn":       {reply: toolThenFinal("rest__echo", "rest__echo"), check: requestHas(2, "tool call limit exceeded (maxToolCallsPerTurn=1)")},
	"maxRetries":                {reply: failFirst(3, llmtest.ServerError(500)), check: requests(4)},
	"toolResponseMaxBytes":      {reply: toolThenFinal("rest__big"), check: requestHas(2, "[TRUNCATED] Original size 20000 bytes; truncated to 100 bytes.")},
	"maxOutputTokens":           {check: sent("max_tokens", 2345.0)},
	"contextWindowBufferTokens": {check: forcedFinal},
	"mcpInitConcurrency":        {check: warns(config.InConfig, "defaults.mcpInitConcurrency", "defaults.mcpInitConcurrency")},
	"outputFormat":              {check: warns(config.InConfig, "defaults.outputFormat", "defaults.outputFormat")},
	"formats":                   {check: warns(config.InConfig, "defaults.formats", "defaults.formats")},
	"parallelToolCalls":         {check: warns(config.InConfig, "defaults.parallelToolCalls", "defaults.parallelToolCalls")},
	"maxConcurrentTools":        {check: warns(config.InConfig, "defaults.maxConcurrentTools", "defaults.maxConcurrentTools")},
	"reasoningValue":            {check: warns(config.InConfig, "defaults.reasoningValue", "defaults.reasoningValue")},
}

func header(name, want string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		if got := first(t, r).Header.Get(name); got != want {
			t.Errorf("header %s = %q, want %q", name, got, want)
		}
	}
}

func path(want string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		if got := first(t, r).Path; got != want {
			t.Errorf("path = %q, want %q", got, want)
		}
	}
}

func streamed(t *testing.T, r *keyRun) {
	t.Helper()
	if !first(t, r).Stream {
		t.Error("the request does not stream")
	}
}

// accounted: some accounting entry of type typ has the field value want.
func accounted(typ string, field func(contract.AccountingEntry) string, want string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		for _, e := range r.result.Accounting {
			if e.Type == typ && field(e) == want {
				return
			}
		}
		t.Errorf("no %s accounting entry with %q: %+v", typ, want, r.result.Accounting)
	}
}

func accountedTo(provider string) check {
	return accounted("llm", func(e contract.AccountingEntry) string { return e.Provider }, provider)
}

func queued(queue string) check {
	return accounted("tool", func(e contract.AccountingEntry) string { return e.Queue }, queue)
}

func cost(want float64) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		for _, e := range r.result.Accounting {
			if e.Type == "llm" && e.CostUSD != nil && *e.CostUSD > want*0.999 && *e.CostUSD < want*1.001 {
				return
			}
		}
		t.Errorf("no llm accounting entry costing %v USD: %+v", want, r.result.Accounting)
	}
}

func exists(name string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		if _, err := os.Stat(filepath.Join(r.dir, name)); err != nil {
			t.Error(err)
		}
	}
}

// silentAbout checks the run succeeded and its stderr never names key.
func silentAbout(key string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		if r.code != 0 || strings.Contains(r.stderr, key) {
			t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
	}
}

func sessionWritten(t *testing.T, r *keyRun) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(r.dir, "sessions", "*.json.gz"))
	if len(files) != 1 {
		t.Errorf("session files %v, want one", files)
	}
}

func mcpHeader(name, want string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		for _, h := range r.mcp.all() {
			if h.header.Get(name) == want {
				return
			}
		}
		t.Errorf("no MCP request carried %s: %s", name, want)
	}
}

// callThenFinal calls tool with the JSON arguments args, then reports once
// a tool result is in the conversation.
func callThenFinal(tool, args string) func(int, llmtest.Request) llmtest.Reply {
	return func(_ int, r llmtest.Request) llmtest.Reply {
		msgs, _ := r.JSON()["messages"].([]any)
		for _, m := range msgs {
			if lookup(m, "role") == "tool" {
				return finalReply(r)
			}
		}
		return llmtest.Reply{Usage: &llmtest.Usage{Input: 100, Output: 10}, ToolCalls: []llmtest.ToolCall{{Name: tool, Arguments: args}}}
	}
}

// deskAskedAbout: the REST server got the desk's question on topic, with
// the desk header, and the model got its answer.
func deskAskedAbout(topic string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		for _, h := range r.rest.all() {
			if h.method == "POST" && h.path == "/ask/"+topic && h.header.Get("X-Desk") == "front" && h.body == `{"q":"why"}` {
				requestHas(2, "the desk says yes")(t, r)
				return
			}
		}
		t.Errorf("the desk was not asked about %s: %+v", topic, r.rest.all())
	}
}

// mcpPath: the MCP server was reached at path (the WebSocket handshake,
// or an HTTP request).
func mcpPath(path string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		for _, h := range r.mcp.all() {
			if h.path == path {
				return
			}
		}
		t.Errorf("no MCP request reached %s", path)
	}
}

// mcpCalls: the MCP server ran n tool calls over every run.
func mcpCalls(n int) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		if got := r.mcp.count(`"tools/call"`); got != n {
			t.Errorf("%d MCP tool calls, want %d", got, n)
		}
	}
}

func restCalls(t *testing.T, r *keyRun, path string, n int) {
	t.Helper()
	got := 0
	for _, h := range r.rest.all() {
		if h.path == path {
			got++
		}
	}
	if got != n {
		t.Errorf("%d REST calls of %s, want %d", got, path, n)
	}
}

// listed: --list-tools all lists the servers of in and none of out.
func listed(in, out string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		if !strings.Contains(r.stdout, "MCP server '"+in+"'") || strings.Contains(r.stdout, "MCP server '"+out+"'") {
			t.Errorf("--list-tools all printed:\n%s", r.stdout)
		}
	}
}

// askDesk calls rest__ask once, then reports.
func askDesk(n int, r llmtest.Request) llmtest.Reply {
	if n > 1 {
		return finalReply(r)
	}
	rep := callTool("rest__ask")
	rep.ToolCalls[0].Arguments = `{"topic":"weather","question":"rain?"}`
	return rep
}

// deskAsked: the call of rest__ask filled the url, headers and body
// template.
func deskAsked(t *testing.T, r *keyRun) {
	t.Helper()
	for _, h := range r.rest.all() {
		if h.path == "/ask" {
			if h.method != "POST" || h.query != "topic=weather" || h.header.Get("X-Desk") != "front" || !strings.Contains(h.body, `"q":"rain?"`) {
				t.Errorf("rest__ask request = %+v", h)
			}
			return
		}
	}
	t.Error("rest__ask was not called")
}

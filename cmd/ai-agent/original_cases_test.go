package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// originalCases are the checks of testdata/original: each says how the
// key of its case shows that it took effect.
var originalCases = map[string]keyCase{
	// Frontmatter keys.
	"fm-description":         {check: toolDescription("agent__helper", "Looks facts up")},
	"fm-usage":               {check: warns(config.InFrontmatter, "usage", "usage")},
	"fm-toolName":            {check: offers("agent__finder")},
	"fm-models":              {check: model("model-a")},
	"fm-tools":               {check: offers("rest__echo")},
	"fm-agents":              {check: offers("agent__helper")},
	"fm-toolsAllowed":        {check: all(offers("rest__echo"), offersNot("rest__big"))},
	"fm-toolsDenied":         {check: all(offers("rest__echo"), offersNot("rest__big"))},
	"fm-maxTurns":            {reply: untilFinal("rest__echo"), check: all(requests(3), systemHas("You have 3 turns."))},
	"fm-maxToolTurns":        {reply: untilFinal("rest__echo"), check: all(requests(2), systemHas("You have 2 turns."))},
	"fm-maxToolCallsPerTurn": {reply: toolThenFinal("rest__echo", "rest__echo"), check: all(requestHas(2, "tool call limit exceeded (maxToolCallsPerTurn=1)"), systemHas("You may call 1 tool a turn."))},
	"fm-maxRetries":          {reply: failFirst(3, llmtest.ServerError(500)), check: requests(4)},
	"fm-llmTimeout":          {reply: failFirst(1, llmtest.Reply{Fault: llmtest.FaultHang}), check: requests(2)},
	"fm-toolTimeout":         {reply: toolThenFinal("rest__slow"), check: requestHas(2, "(tool failed: timeout)")},
	"fm-toolResponseMaxBytes": {reply: toolThenFinal("rest__big"),
		check: requestHas(2, "[TRUNCATED] Original size 20000 bytes; truncated to 100 bytes.")},
	"fm-temperature":     {check: sent("temperature", 0.7)},
	"fm-topP":            {check: sent("top_p", 0.5)},
	"fm-topK":            {check: sent("top_k", 20.0)},
	"fm-repeatPenalty":   {check: sent("repetition_penalty", 1.3)},
	"fm-maxOutputTokens": {check: sent("max_tokens", 1234.0)},
	"fm-reasoning":       {check: sent("reasoning_effort", "high")},
	// Anthropic's default caching is full: this run's cache_control is
	// the control of fm-caching and config-providers.cacheStrategy.
	"fm-reasoningTokens":           {check: all(sentAt([]string{"thinking", "budget_tokens"}, 2048.0), bodyHas(1, "cache_control"))},
	"fm-caching":                   {check: requestLacks(1, "cache_control")},
	"fm-output":                    {check: jsonReport},
	"fm-input":                     {check: toolParameter("agent__helper", "query")},
	"fm-cache":                     {twice: true, check: answeredFromCache},
	"fm-toolOutput":                {reply: toolThenFinal("rest__big"), check: requestHas(2, "Tool output is too large")},
	"fm-toolOutput.storeDir":       {check: warns(config.InFrontmatter, "toolOutput.storeDir", "toolOutput.storeDir")},
	"fm-toolOutput.models":         {check: warns(config.InFrontmatter, "toolOutput.models", "toolOutput.models")},
	"fm-contextWindow":             {check: forcedFinal},
	"fm-contextWindowBufferTokens": {check: forcedFinal},
	"fm-plugins":                   {check: warns(config.InFrontmatter, "plugins", "plugins")},
	"fm-advisors":                  {check: all(requests(2), requestHas(2, `<advisory__`), requestHas(2, `agent="helper"`))},
	"fm-router":                    {check: offers("router__handoff-to")},
	"fm-handoff":                   {check: all(requests(2), requestHas(2, `<response__`), requestHas(2, "<original_user_request__"))},
	"fm-parallelToolCalls":         {check: warns(config.InFrontmatter, "parallelToolCalls", "parallelToolCalls")},
	"fm-maxConcurrentTools":        {check: warns(config.InFrontmatter, "maxConcurrentTools", "maxConcurrentTools")},

	// The original's flag spellings.
	"flag-max-tool-turns":                    {args: []string{"--max-tool-turns", "2"}, reply: untilFinal("rest__echo"), check: requests(2)},
	"flag-llm-timeout":                       {args: []string{"--llm-timeout", "300ms"}, reply: failFirst(1, llmtest.Reply{Fault: llmtest.FaultHang}), check: requests(2)},
	"flag-tool-timeout":                      {args: []string{"--tool-timeout", "300ms"}, reply: toolThenFinal("rest__slow"), check: requestHas(2, "(tool failed: timeout)")},
	"flag-accounting":                        {args: []string{"--accounting", "{run}/acct.jsonl"}, check: jsonLines("acct.jsonl")},
	"flag-parallel-tool-calls":               {args: []string{"--parallel-tool-calls"}, check: warns(config.InFlag, "parallel-tool-calls", "parallel-tool-calls")},
	"flag-no-parallel-tool-calls":            {args: []string{"--no-parallel-tool-calls"}, check: warns(config.InFlag, "no-parallel-tool-calls", "no-parallel-tool-calls")},
	"flag-max-concurrent-tools":              {args: []string{"--max-concurrent-tools", "2"}, check: warns(config.InFlag, "max-concurrent-tools", "max-concurrent-tools")},
	"flag-maxConcurrentTools":                {args: []string{"--maxConcurrentTools=2"}, check: warns(config.InFlag, "maxConcurrentTools", "maxConcurrentTools")},
	"flag-mcp-init-concurrency":              {args: []string{"--mcp-init-concurrency", "2"}, check: warns(config.InFlag, "mcp-init-concurrency", "mcp-init-concurrency")},
	"flag-plugins":                           {args: []string{"--plugins", "./support.js"}, check: warns(config.InFlag, "plugins", "plugins")},
	"flag-trace-slack":                       {args: []string{"--trace-slack"}, check: warns(config.InFlag, "trace-slack", "trace-slack")},
	"flag-trace-sdk":                         {args: []string{"--trace-sdk"}, check: warns(config.InFlag, "trace-sdk", "trace-sdk")},
	"flag-show-tree":                         {args: []string{"--show-tree"}, check: warns(config.InFlag, "show-tree", "show-tree")},
	"flag-chat":                              {args: []string{"--chat"}, check: warns(config.InFlag, "chat", "chat")},
	"flag-no-chat":                           {args: []string{"--no-chat"}, check: warns(config.InFlag, "no-chat", "no-chat")},
	"flag-telemetry-log-format":              {args: []string{"--verbose", "--telemetry-log-format", "json"}, check: all(accepted, jsonLog)},
	"flag-telemetry-log-extra":               {args: []string{"--telemetry-log-extra", "otlp"}, check: accepted},
	"flag-telemetry-logging-otlp-endpoint":   {args: []string{"--telemetry-logging-otlp-endpoint", "http://127.0.0.1:1"}, check: accepted},
	"flag-telemetry-logging-otlp-timeout-ms": {args: []string{"--telemetry-logging-otlp-timeout-ms", "100"}, check: accepted},
	"flag-telemetry-unknown":                 {args: []string{"--telemetry-unknown", "x"}, check: warns(config.InFlag, "telemetry-*", "telemetry-unknown")},
}

// Checks, by what a key changes.

type check = func(*testing.T, *keyRun)

func all(checks ...check) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		for _, c := range checks {
			c(t, r)
		}
	}
}

func first(t *testing.T, r *keyRun) llmtest.Request {
	t.Helper()
	if len(r.reqs) == 0 {
		t.Fatal("no model request")
	}
	return r.reqs[0]
}

func offers(names ...string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		tools := toolsOf(first(t, r))
		for _, n := range names {
			if _, ok := tools[n]; !ok {
				t.Errorf("the request does not offer %s (it offers %v)", n, slices.Collect(maps.Keys(tools)))
			}
		}
	}
}

func offersNot(names ...string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		tools := toolsOf(first(t, r))
		for _, n := range names {
			if _, ok := tools[n]; ok {
				t.Errorf("the request offers %s", n)
			}
		}
	}
}

// forcedFinal: the context guard forced the final turn at once, so the
// first request offers the final report alone.
func forcedFinal(t *testing.T, r *keyRun) {
	t.Helper()
	offersNot("rest__echo")(t, r)
	offers("agent__final_report")(t, r)
}

func toolDescription(name, want string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		got, _ := toolsOf(first(t, r))[name]["description"].(string)
		if !strings.Contains(got, want) {
			t.Errorf("%s description = %q, want %q in it", name, got, want)
		}
	}
}

func toolParameter(name, param string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		if lookup(toolsOf(first(t, r))[name], "parameters", "properties", param) == nil {
			t.Errorf("%s has no parameter %s: %v", name, param, toolsOf(first(t, r))[name])
		}
	}
}

func model(want string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		if got := first(t, r).Model; got != want {
			t.Errorf("model = %q, want %q", got, want)
		}
	}
}

func sent(key string, want any) check { return sentAt([]string{key}, want) }

func sentAt(path []string, want any) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		if got := lookup(first(t, r).JSON(), path...); got != want {
			t.Errorf("request %v = %v (%T), want %v", path, got, got, want)
		}
	}
}

func requests(n int) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		if len(r.reqs) != n {
			t.Errorf("%d model requests, want %d", len(r.reqs), n)
		}
	}
}

// requestHas: the n-th request (from 1) holds text, as a tool result or
// a message.
func requestHas(n int, text string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		if len(r.reqs) < n {
			t.Fatalf("%d model requests, want at least %d", len(r.reqs), n)
		}
		if !strings.Contains(textOf(r.reqs[n-1].JSON()), text) {
			t.Errorf("request %d lacks %q", n, text)
		}
	}
}

// bodyHas and requestLacks look at the n-th request's raw body.
func bodyHas(n int, text string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		if len(r.reqs) < n || !strings.Contains(string(r.reqs[n-1].Body), text) {
			t.Errorf("request %d lacks %q", n, text)
		}
	}
}

func requestLacks(n int, text string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		if len(r.reqs) < n {
			t.Fatalf("%d model requests, want at least %d", len(r.reqs), n)
		}
		if strings.Contains(string(r.reqs[n-1].Body), text) {
			t.Errorf("request %d holds %q", n, text)
		}
	}
}

func systemHas(text string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		msgs, _ := first(t, r).JSON()["messages"].([]any)
		for _, m := range msgs {
			if lookup(m, "role") == "system" && strings.Contains(textOf(m), text) {
				return
			}
		}
		t.Errorf("the system prompt lacks %q", text)
	}
}

func jsonReport(t *testing.T, r *keyRun) {
	t.Helper()
	rep := r.result.FinalReport
	if rep == nil || rep.Format != "json" || !strings.Contains(string(rep.ContentJSON), `"answer"`) {
		t.Errorf("final report = %+v, want a json report", rep)
	}
}

// answeredFromCache: the second run made no model request and printed
// the first run's answer.
func answeredFromCache(t *testing.T, r *keyRun) {
	t.Helper()
	if len(r.second.reqs) != len(r.reqs) || r.second.stdout != r.stdout {
		t.Errorf("second run: %d requests in all (first %d), stdout %q (first %q)", len(r.second.reqs), len(r.reqs), r.second.stdout, r.stdout)
	}
}

func jsonLines(name string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(r.dir, name))
		if err != nil || !strings.HasPrefix(string(b), "{") {
			t.Errorf("%s: %v %q", name, err, b)
		}
	}
}

// accepted: stderr names no difference and no invalid value. (The log
// export the logging flags set up is shown at a collector by
// TestTelemetryLogsReachCollector; without --telemetry-enabled, as here,
// they do nothing, as in the original.)
func accepted(t *testing.T, r *keyRun) {
	t.Helper()
	for _, s := range []string{"salve differs", "Ignoring invalid"} {
		if strings.Contains(r.stderr, s) {
			t.Errorf("stderr has %q:\n%s", s, r.stderr)
		}
	}
}

// jsonLog: the verbose run's "llm request" log lines are JSON objects.
func jsonLog(t *testing.T, r *keyRun) {
	t.Helper()
	n := 0
	for _, l := range strings.Split(r.stderr, "\n") {
		if !strings.Contains(l, "llm request") {
			continue
		}
		n++
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["msg"] != "llm request" {
			t.Errorf("log line %q is not the JSON record: %v", l, err)
		}
	}
	if n == 0 {
		t.Errorf("no llm request log line:\n%s", r.stderr)
	}
}

// warns: stderr carries the warning of the Differences row where/key,
// once.
func warns(where, key, at string) check {
	return warnsValue(where, key, "", at)
}

func warnsValue(where, key, value, at string) check {
	return func(t *testing.T, r *keyRun) {
		t.Helper()
		want := differenceWarning(t, where, key, value, at)
		if n := strings.Count(r.stderr, want); n != 1 {
			t.Errorf("stderr has %d times %q, want once:\n%s", n, want, r.stderr)
		}
	}
}

// Replies.

// toolThenFinal calls the tools while the conversation holds no tool
// result, then reports: so every run of a case calls once.
func toolThenFinal(names ...string) func(int, llmtest.Request) llmtest.Reply {
	return func(_ int, r llmtest.Request) llmtest.Reply {
		msgs, _ := r.JSON()["messages"].([]any)
		for _, m := range msgs {
			if lookup(m, "role") == "tool" {
				return finalReply(r)
			}
		}
		return callTool(names...)
	}
}

// failFirst answers the first n requests with fail.
func failFirst(n int, fail llmtest.Reply) func(int, llmtest.Request) llmtest.Reply {
	return func(i int, r llmtest.Request) llmtest.Reply {
		if i <= n {
			return fail
		}
		return finalReply(r)
	}
}

package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/salve-dev/salve/internal/agent/config"
)

// flagKind is how a flag takes its value.
type flagKind int

const (
	flagValue        flagKind = iota // one value; the last one wins
	flagList                         // comma-separated, may repeat, concatenating
	flagRepeat                       // repeatable, each value kept
	flagBool                         // no value (or =true/false)
	flagIgnoredValue                 // accepted, warned about and ignored; takes a value
	flagIgnoredBool                  // accepted, warned about and ignored; no value
	flagServe                        // a headend to start; repeatable
)

// flagDef is one row of the flag table (docs/contracts/ai-agent-cli.md §3).
type flagDef struct {
	names   []string
	kind    flagKind
	setting string // the option key of config.Sources, when it is one
	usage   string
	def     string
}

// flagTable lists every flag with its original spellings.
var flagTable = slices.Concat([]flagDef{
	{names: []string{"config"}, usage: "config file, layer 1 (a missing file is an error)", def: "FILE"},
	{names: []string{"models"}, kind: flagList, usage: "provider/model targets in fallback order", def: "LIST"},
	{names: []string{"tools", "tool", "mcp-tool", "mcp-tools"}, kind: flagList, usage: "MCP servers, REST tools and batch", def: "LIST"},
	{names: []string{"agents"}, kind: flagList, usage: "sub-agent .ai files", def: "LIST"},
	{names: []string{"advisors"}, kind: flagList, usage: "advisor .ai files, run first; their answers go into the prompt", def: "LIST"},
	{names: []string{"handoff"}, usage: "an .ai file that gets the answer and gives the final one", def: "FILE"},
	{names: []string{"format"}, usage: "output format (tty on a terminal, else pipe)", def: "F"},
	{names: []string{"schema"}, usage: "output JSON schema, JSON text or @FILE; forces json", def: "S"},
	{names: []string{"max-turns", "max-tool-turns"}, setting: "maxTurns", usage: "maximum turns", def: "10"},
	{names: []string{"max-retries"}, setting: "maxRetries", usage: "total attempts per turn (0 means 1)", def: "3"},
	{names: []string{"max-tool-calls-per-turn"}, setting: "maxToolCallsPerTurn", usage: "tool calls run per turn", def: "10"},
	{names: []string{"llm-timeout-ms", "llmTimeoutMs", "llm-timeout"}, setting: "llmTimeout", usage: "LLM request timeout (DURATION)", def: "600000"},
	{names: []string{"tool-timeout-ms", "toolTimeoutMs", "tool-timeout"}, setting: "toolTimeout", usage: "tool timeout (DURATION)", def: "300000"},
	{names: []string{"tool-response-max-bytes", "toolResponseMaxBytes"}, setting: "toolResponseMaxBytes", usage: "truncate tool outputs above this (0 = no limit)", def: "12288"},
	{names: []string{"temperature"}, setting: "temperature", usage: "0-2 or UNSET", def: "0.2"},
	{names: []string{"top-p", "topP"}, setting: "topP", usage: "0-1 or UNSET", def: "not sent"},
	{names: []string{"top-k", "topK"}, setting: "topK", usage: "integer >= 1 or UNSET", def: "not sent"},
	{names: []string{"max-output-tokens"}, setting: "maxOutputTokens", usage: "maximum output tokens", def: "16384"},
	{names: []string{"repeat-penalty"}, setting: "repeatPenalty", usage: ">= 0 or UNSET", def: "not sent"},
	{names: []string{"reasoning"}, setting: "reasoning", usage: "none, minimal, low, medium, high", def: "unset"},
	{names: []string{"default-reasoning"}, usage: "reasoning when the agent sets none", def: "unset"},
	{names: []string{"reasoning-tokens"}, setting: "reasoningTokens", usage: "reasoning token budget (0 = off)", def: "unset"},
	{names: []string{"caching"}, setting: "caching", usage: "full or none (Anthropic prompt caching)", def: "full"},
	{names: []string{"tooling-transport"}, usage: "native, xml or xml-final", def: "xml-final"},
	{names: []string{"stream"}, kind: flagBool, usage: "stream from the provider", def: "off"},
	{names: []string{"no-stream"}, kind: flagBool, usage: "do not stream", def: ""},
	{names: []string{"override"}, kind: flagRepeat, usage: "KEY=VALUE, beats every other source; repeatable", def: ""},
	{names: []string{"verbose"}, kind: flagBool, usage: "more detail on stderr", def: "off"},
	{names: []string{"trace-llm"}, kind: flagBool, usage: "trace LLM requests on stderr", def: "off"},
	{names: []string{"trace-mcp"}, kind: flagBool, usage: "trace MCP traffic on stderr", def: "off"},
	{names: []string{"quiet"}, kind: flagBool, usage: "stderr carries only errors", def: "off"},
	{names: []string{"dry-run"}, kind: flagBool, usage: "check everything, call nothing", def: "off"},
	{names: []string{"list-tools"}, usage: "list the tools of MCP servers (NAME,... or all)", def: "L"},
	{names: []string{"schema-validate"}, usage: "with --list-tools: validate tool schemas (draft)", def: "D"},
	{names: []string{"billing-file", "accounting"}, usage: "append accounting as JSON lines", def: "$HOME/.ai-agent/accounting.jsonl"},
	{names: []string{"sessions-dir"}, usage: "write <originTxnId>.json.gz per session", def: "$HOME/.ai-agent/sessions"},
	{names: []string{"result-json"}, usage: "write the whole AIAgentResult to FILE", def: "FILE"},
	{names: []string{"agent"}, usage: "run this .ai file (same as giving it as <system>); repeat to serve several in headend mode", def: "FILE"},
	{names: []string{"help", "h"}, kind: flagBool, usage: "show this help", def: ""},
	{names: []string{"version", "V"}, kind: flagBool, usage: "print the version", def: ""},
	{names: []string{"save"}, usage: "on success, write the conversation to FILE (JSON)", def: "FILE"},
	{names: []string{"load"}, usage: "continue the conversation saved in FILE by --save", def: "FILE"},
	{names: []string{"save-all"}, usage: "on success, write the master and sub-agent conversations under DIR/<originTxnId>/", def: "DIR"},
	{names: []string{"resume"}, usage: "continue session ID of --sessions-dir (or a session .json.gz file), keeping its turns and accounting", def: "ID"},
	{names: []string{"cache"}, usage: "response cache TTL (off|<ms>|<N.Nu> where u=ms,s,m,h,d,w,mo,y)", def: "off"},
	{names: []string{"plugins", "mcp-init-concurrency", "max-concurrent-tools", "maxConcurrentTools"}, kind: flagIgnoredValue},
	{names: []string{"trace-slack", "trace-sdk", "show-tree", "chat", "no-chat", "parallel-tool-calls", "no-parallel-tool-calls"}, kind: flagIgnoredBool},
	{names: []string{"openai-completions"}, kind: flagServe, usage: "headend: OpenAI chat completions API on PORT; repeatable", def: "PORT"},
	{names: []string{"anthropic-completions"}, kind: flagServe, usage: "headend: Anthropic messages API on PORT; repeatable", def: "PORT"},
	{names: []string{"mcp"}, kind: flagServe, usage: "headend: MCP server, SPEC is stdio|http:PORT|sse:PORT|ws:PORT; repeatable", def: "SPEC"},
	{names: []string{"api"}, kind: flagServe, usage: "headend: REST API on PORT; repeatable", def: "PORT"},
	{names: []string{"embed"}, kind: flagServe, usage: "headend: chat widget and POST /v1/chat on [NAME:]PORT, config embed.NAME; repeatable", def: "[NAME:]PORT"},
	{names: []string{"slack"}, kind: flagBool, usage: "headend: Slack app over Socket Mode, config section slack", def: "off"},
	{names: []string{"openai-completions-concurrency"}, usage: "sessions at once per OpenAI headend", def: "10"},
	{names: []string{"anthropic-completions-concurrency"}, usage: "sessions at once per Anthropic headend", def: "10"},
	{names: []string{"mcp-concurrency"}, usage: "sessions at once per MCP headend", def: "10"},
	{names: []string{"api-concurrency"}, usage: "sessions at once per REST headend", def: "10"},
	{names: []string{"embed-concurrency"}, usage: "sessions at once per embed headend", def: "10"},
	{names: []string{"headend-queue"}, usage: "requests that may wait for a session slot, per headend", def: "4x concurrency"},
	{names: []string{"headend-queue-timeout"}, usage: "longest wait for a slot before 503 (DURATION)", def: "30s"},
	{names: []string{"headend-grace"}, usage: "on SIGTERM, time running sessions get to finish (DURATION)", def: "30s"},
	{names: []string{"headend-token"}, usage: "bearer token headend clients must send (else $AI_AGENT_HEADEND_TOKEN)", def: "T"},
	{names: []string{"listen-address"}, usage: "address the headends bind", def: "127.0.0.1"},
	{names: []string{"insecure-no-token"}, kind: flagBool, usage: "let --listen-address go beyond loopback without a token", def: "off"},
	{names: []string{"headend-max-body-bytes"}, usage: "largest request body a headend reads", def: "4194304"},
}, telemetryFlags)

// flagIndex maps every spelling to its row.
func flagIndex() map[string]*flagDef {
	idx := map[string]*flagDef{}
	for i := range flagTable {
		for _, n := range flagTable[i].names {
			idx[n] = &flagTable[i]
		}
	}
	return idx
}

// cliArgs is the parsed command line.
type cliArgs struct {
	// values holds the last value of each single-value flag, by its first
	// name.
	values map[string]string
	lists  map[string][]string
	bools  map[string]bool
	// overrides are the --override pairs in order.
	overrides   []string
	positionals []string
	// agentFiles are every --agent value, in order (headend mode serves
	// them all; a single run uses the last).
	agentFiles []string
	// headends are the headend flags in order.
	headends []headendArg
	warnings []string
}

func (a *cliArgs) has(name string) bool { _, ok := a.values[name]; return ok }

// headendArg is one headend flag: its name and value.
type headendArg struct{ kind, value string }

// parseArgs parses flags before or after positionals, --flag value or
// --flag=value, with "--" ending the flags
// (docs/contracts/ai-agent-cli.md §1). Errors wrap config.ErrConfig.
func parseArgs(args []string) (*cliArgs, error) {
	idx := flagIndex()
	a := &cliArgs{values: map[string]string{}, lists: map[string][]string{}, bools: map[string]bool{}}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			a.positionals = append(a.positionals, args[i+1:]...)
			break
		}
		if arg == "-" || !strings.HasPrefix(arg, "-") || strings.Contains(arg, "\n") {
			a.positionals = append(a.positionals, arg)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		def := idx[name]
		if def == nil && strings.HasPrefix(name, "telemetry-") {
			def = &flagDef{names: []string{name}, kind: flagIgnoredValue}
			if !hasVal && (i+1 >= len(args) || strings.HasPrefix(args[i+1], "-")) {
				def.kind = flagIgnoredBool
			}
		}
		if def == nil {
			return nil, fmt.Errorf("%w: unknown flag %s", config.ErrConfig, arg)
		}
		switch def.kind {
		case flagBool, flagIgnoredBool:
			b, err := boolValue(arg, val, hasVal)
			if err != nil {
				return nil, err
			}
			if def.kind == flagIgnoredBool {
				a.warnings = append(a.warnings, ignoredFlag(name))
				continue
			}
			a.bools[def.names[0]] = b
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("%w: flag --%s needs a value", config.ErrConfig, name)
			}
			i++
			val = args[i]
		}
		if err := a.set(def, name, val); err != nil {
			return nil, err
		}
	}
	if a.bools["slack"] {
		a.headends = append(a.headends, headendArg{kind: "slack"})
	}
	return a, nil
}

// set records the value of a flag that takes one.
func (a *cliArgs) set(def *flagDef, name, val string) error {
	key := def.names[0]
	switch def.kind {
	case flagIgnoredValue:
		a.warnings = append(a.warnings, ignoredFlag(name))
	case flagList:
		a.lists[key] = append(a.lists[key], config.SplitList(val)...)
		a.values[key] = val
	case flagRepeat:
		a.overrides = append(a.overrides, val)
	case flagServe:
		a.headends = append(a.headends, headendArg{kind: key, value: val})
	default:
		if def.setting != "" {
			if _, err := config.ParseSetting(def.setting, val); err != nil {
				return fmt.Errorf("flag --%s: %w", name, err)
			}
		}
		a.values[key] = val
		if key == "agent" {
			a.agentFiles = append(a.agentFiles, val)
		}
	}
	return nil
}

// ignoredFlag is the warning of a flag that is accepted and ignored: the
// difference config.Differences names, else a plain one.
func ignoredFlag(name string) string {
	if w, ok := config.FlagWarning(name); ok {
		return w
	}
	return fmt.Sprintf("flag --%s is not supported and is ignored", name)
}

// boolValue is the value of a boolean flag: true without "=", else the
// parsed value.
func boolValue(arg, val string, hasVal bool) (bool, error) {
	if !hasVal {
		return true, nil
	}
	b, err := parseBool(val)
	if err != nil {
		return false, fmt.Errorf("%w: %s: %v", config.ErrConfig, arg, err)
	}
	return b, nil
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true", "1", "yes", "on":
		return true, nil
	case "false", "0", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("not a boolean: %q", s)
}

// configFlags are the single-value flags the settings read by name
// (config.CLI.Flags).
var configFlags = []string{"format", "schema", "handoff", "tooling-transport", "default-reasoning", "billing-file", "sessions-dir",
	"cache", "max-cost-usd", "headend-max-cost-usd", "telemetry-prometheus-host", "telemetry-prometheus-port",
	"telemetry-otlp-endpoint", "telemetry-otlp-timeout-ms", "telemetry-trace-sampler", "telemetry-trace-ratio",
	"telemetry-logging-otlp-endpoint", "telemetry-logging-otlp-timeout-ms"}

// cli is the command line as the settings read it.
func (a *cliArgs) cli() config.CLI {
	c := config.CLI{Settings: a.settingsFromCLI(), Flags: map[string]string{}, Lists: map[string][]string{}, Bools: a.bools, Overrides: a.overrides}
	for _, f := range configFlags {
		if v, ok := a.values[f]; ok {
			c.Flags[f] = v
		}
	}
	for _, k := range []string{"models", "tools", "agents", "advisors", "telemetry-label", "telemetry-log-extra"} {
		if v, ok := a.lists[k]; ok {
			c.Lists[k] = v
		}
	}
	return c
}

// settingsFromCLI maps the setting flags to their option keys.
func (a *cliArgs) settingsFromCLI() map[string]string {
	out := map[string]string{}
	for _, def := range flagTable {
		if def.setting == "" {
			continue
		}
		if v, ok := a.values[def.names[0]]; ok {
			out[def.setting] = v
		}
	}
	if a.bools["stream"] {
		out["stream"] = "true"
	}
	if a.bools["no-stream"] {
		out["stream"] = "false"
	}
	return out
}

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/salve-dev/salve/config"
)

const usageHead = `Usage:
  ai-agent [flags] <system> <user>             run one session
  ai-agent [flags] --agent FILE.ai <user>      same as: ai-agent [flags] FILE.ai <user>
  ./agent.ai [flags] <user>                    executable .ai file ("#!/usr/bin/env ai-agent")
  ai-agent [flags] --dry-run <system> [<user>] check everything, call nothing
  ai-agent [flags] --list-tools NAME[,NAME...]|all [--schema-validate DRAFT]
  ai-agent --help | --version

Prompts: "-" reads stdin, "@PATH" reads a file, an existing file is read, anything else is text.

Flags:
`

const usageTail = `
DURATION is milliseconds, or a number with ms|s|m|h|d|w|mo|y (90s, 1.5m).
UNSET is none|off|unset|default|null: the parameter is not sent.
Precedence: --override, the flag, the frontmatter, the config's defaults, the built-in default.

Frontmatter template (.ai file):
  #!/usr/bin/env ai-agent
  ---
  description: Summarises a repository
  models: [openai/gpt-4o, local/qwen3]
  tools: [fs, batch]
  maxTurns: 8
  output: { format: json, schema: { type: object, required: [summary], properties: { summary: { type: string } } } }
  ---
  You are a terse reviewer. Answer in ${FORMAT}.

Config locations, highest priority first:
  1. --config FILE                       (.ai-agent.env beside it)
  2. ./.ai-agent.json                    (./.ai-agent.env)
  3. .ai-agent.json beside the prompt file
  4. .ai-agent.json beside the executable
  5. $HOME/.ai-agent/ai-agent.json       ($HOME/.ai-agent/ai-agent.env)
  6. /etc/ai-agent/ai-agent.json         (/etc/ai-agent/ai-agent.env)

Exit codes: 0 success, 1 session failure, 3 MCP/initialisation failure,
4 invalid arguments or configuration, 5 schema validation failure.
`

// writeHelp prints the usage, every flag with its default, the frontmatter
// template and the config locations (spec §2). It reads no config.
func writeHelp(w io.Writer) {
	var b strings.Builder
	b.WriteString(usageHead)
	for _, def := range flagTable {
		if def.usage == "" {
			continue
		}
		names := make([]string, len(def.names))
		for i, n := range def.names {
			if len(n) == 1 {
				names[i] = "-" + n
			} else {
				names[i] = "--" + n
			}
		}
		line := "  " + strings.Join(names, ", ")
		meta, dflt := helpValue(def)
		if meta != "" {
			line += " " + meta
		}
		fmt.Fprintf(&b, "%-52s %s", line, def.usage)
		if dflt != "" {
			fmt.Fprintf(&b, " (default: %s)", dflt)
		}
		b.WriteString("\n")
	}
	b.WriteString(usageTail)
	_, _ = io.WriteString(w, b.String())
}

// helpValue splits a row's def into a value placeholder and a default.
func helpValue(def flagDef) (meta, dflt string) {
	isMeta := def.def != "" && len(def.def) <= 4 && strings.Trim(def.def, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
	switch {
	case def.kind == flagBool:
		return "", def.def
	case def.kind == flagRepeat:
		return "K=V", ""
	case isMeta:
		return def.def, ""
	case def.kind == flagList:
		return "LIST", def.def
	default:
		return "VALUE", def.def
	}
}

// listTools implements --list-tools (spec §2). MCP clients come with part
// 2; until then every named server fails to start (exit 3).
func listTools(ctx context.Context, d deps, a *cliArgs, stdout, stderr io.Writer, log *slog.Logger) int {
	if len(a.positionals) > 1 {
		fmt.Fprintf(stderr, "ai-agent: --list-tools takes at most <system>\n")
		return exitConfig
	}
	st := &startup{deps: d, a: a, log: log, stderr: stderr, overMap: map[string]string{}, fm: &config.Frontmatter{Settings: map[string]any{}}}
	if len(a.positionals) == 1 {
		st.sys, _ = resolvePrompt(a.positionals[0], func() (string, error) { return "", nil })
	}
	st.cwd, _ = os.Getwd()
	if err := st.loadConfig(); err != nil {
		fmt.Fprintf(stderr, "ai-agent: %v\n", err)
		return exitCode(err)
	}
	names := config.SplitList(a.values["list-tools"])
	if len(names) == 1 && names[0] == "all" {
		names = st.cfg.Keys("mcpServers")
	}
	start := d.mcp
	for _, n := range names {
		if !st.mcpEnabled(n) {
			fmt.Fprintf(stderr, "ai-agent: unknown MCP server %q\n", n)
			return exitInit
		}
		if start == nil {
			fmt.Fprintf(stderr, "ai-agent: MCP server %q: MCP servers are not available in this build\n", n)
			return exitInit
		}
	}
	_ = ctx
	return exitOK
}

package main

import (
	"fmt"
	"io"
	"strings"
)

const usageHead = `Usage:
  ai-agent [flags] <system> <user>             run one session
  ai-agent [flags] --agent FILE.ai <user>      same as: ai-agent [flags] FILE.ai <user>
  ./agent.ai [flags] <user>                    executable .ai file ("#!/usr/bin/env ai-agent")
  ai-agent [flags] --dry-run <system> [<user>] check everything, call nothing
  ai-agent [flags] --list-tools NAME[,NAME...]|all [--schema-validate DRAFT]
  ai-agent [flags] --agent FILE.ai [--agent FILE.ai...] HEADEND...
                                               serve the agents until SIGINT/SIGTERM; HEADEND is
                                               --openai-completions PORT, --anthropic-completions PORT,
                                               --mcp stdio|http:PORT|sse:PORT|ws:PORT or --api PORT
  ai-agent --help | -h                         this help
  ai-agent --version | -V                      print "ai-agent VERSION"

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

Exit status: 0 success (or --help, --version, --list-tools, --dry-run), 1
session failure, 3 MCP/initialisation failure, 4 invalid arguments or
configuration (a file named by a flag or an @PATH that cannot be read
included), 5 schema validation failure.
`

// writeHelp prints the usage, every flag with its default, the frontmatter
// template and the config locations (docs/contracts/ai-agent-cli.md §2). It
// reads no config.
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
	case def.kind == flagServe:
		return def.def, ""
	case isMeta:
		return def.def, ""
	case def.kind == flagList:
		return "LIST", def.def
	default:
		return "VALUE", def.def
	}
}

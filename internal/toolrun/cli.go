package toolrun

import (
	"fmt"

	"github.com/salve-dev/salve/contract"
)

// ToolClaude is the tool id of Claude Code, Anthropic's coding CLI (the
// npm package @anthropic-ai/claude-code).
const ToolClaude = "claude"

// claudeProfile is Claude Code's row. It runs one non-interactive turn
// (-p) with the prompt on stdin, and may only read and edit files:
//   - "--bare" skips what a repository could make it run: hooks and the
//     apiKeyHelper of .claude/settings.json, CLAUDE.md, plugins and skills;
//     the key comes from ANTHROPIC_API_KEY alone.
//   - "--restricted" confines the file tools to the working folder and
//     refuses bypassPermissions; "--strict-mcp-config" starts no MCP
//     server a repository's .mcp.json names.
//   - "--tools Read,Edit" is the whole tool set (no shell, no web, no
//     sub-agents), and "--permission-mode acceptEdits" lets it edit in
//     the working folder without a prompt nobody would answer.
//   - "--no-session-persistence" keeps no transcript to resume.
//
// Every other flag is refused (the row is closed): resuming a session,
// more folders, settings, MCP configurations, plugins, agents, worktrees
// and the permission bypasses would each undo one of the above.
//
// It sees the scrubbed environment with only its provider's key and base
// URL (ANTHROPIC_BASE_URL points it at a local or proxy endpoint), a
// private HOME, and the variables that turn off its telemetry, error
// reports and auto-update.
func claudeProfile() Profile {
	return Profile{
		ToolID:        ToolClaude,
		Binary:        "claude",
		RequiredFlags: []string{"-p", "--bare", "--restricted", "--strict-mcp-config", "--no-session-persistence"},
		PinnedFlags: []PinnedFlag{
			{Flag: "--tools", Value: "Read,Edit"},
			{Flag: "--permission-mode", Value: "acceptEdits"},
		},
		AllowedFlags: []string{"--model", "--output-format", "--append-system-prompt", "--max-budget-usd", "--effort", "--verbose"},
		Optional: []OptionalFlag{
			{Input: "model", Flag: "--model"},
		},
		ValueFlags:    []string{"--tools", "--permission-mode", "--model", "--output-format", "--append-system-prompt", "--max-budget-usd", "--effort"},
		PromptOnStdin: true,
		Scrubbed:      true,
		PrivateHome:   true,
		ForcedEnv: map[string]string{
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
			"DISABLE_TELEMETRY":                        "1",
			"DISABLE_ERROR_REPORTING":                  "1",
			"DISABLE_AUTOUPDATER":                      "1",
		},
		PassEnvPrefixes: []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"},
		// Its settings, hooks, memory and MCP servers: --bare reads none of
		// them, but a run without it would.
		ConfigPaths: []string{"**/.claude/**", "**/CLAUDE.md", "**/CLAUDE.local.md", ".mcp.json"},
	}
}

// CLIOptions are the inputs of [BuildCLIToolRequest].
type CLIOptions struct {
	// Model is the model the tool asks for; empty lets the tool choose.
	Model string
	// Prompt is the task, given on the tool's stdin.
	Prompt string
	// FileScope lists the files the tool may edit, relative to the root.
	FileScope []string
	// Workspace gives the work tree root.
	Workspace contract.GitWorkspaceRefV1
	// Context is copied into the request (run_id, ws_id, task_id…).
	Context map[string]any
	// TimeoutSeconds; zero means contract.DefaultToolTimeoutSeconds.
	TimeoutSeconds int
}

// BuildCLIToolRequest resolves the row of toolID, a coding CLI that takes
// its prompt on stdin (Profile.PromptOnStdin), for one task; for Claude
// Code:
//
//	claude -p --bare --restricted --strict-mcp-config --no-session-persistence
//	       --tools Read,Edit --permission-mode acceptEdits [--model M] < PROMPT
//
// with the file scope in the request context.
func BuildCLIToolRequest(toolID string, o CLIOptions) (contract.ToolRunRequestV1, error) {
	p, ok := ProfileOf(toolID)
	if !ok || !p.PromptOnStdin {
		return contract.ToolRunRequestV1{}, fmt.Errorf("toolrun: build request: %q is not a coding CLI of the tool table", toolID)
	}
	if o.Prompt == "" {
		return contract.ToolRunRequestV1{}, fmt.Errorf("toolrun: build %s request: the prompt is empty", toolID)
	}
	files, err := cleanScope(o.FileScope)
	if err != nil {
		return contract.ToolRunRequestV1{}, fmt.Errorf("toolrun: build %s request: %w", toolID, err)
	}
	ctx := map[string]any{}
	for k, v := range o.Context {
		ctx[k] = v
	}
	if o.Workspace.WsID != "" {
		ctx["ws_id"] = o.Workspace.WsID
	}
	if files == nil {
		// No scope is an empty one, never "the positional arguments".
		ctx[ContextFileScope] = []string{}
	}
	return BuildToolRequest(p, ToolInputs{
		Params:         map[string]string{"model": o.Model},
		Files:          files,
		Cwd:            o.Workspace.RootPath,
		TimeoutSeconds: o.TimeoutSeconds,
		Context:        ctx,
		Stdin:          o.Prompt,
	})
}

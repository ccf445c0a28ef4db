package config

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// Places a difference is found in.
const (
	InFrontmatter = "frontmatter"
	InConfig      = "config"
	InFlag        = "flag"
)

// Difference is one key of the original ai-agent that salve accepts, so
// that an agent file or configuration written for the original loads, but
// does not honour as the original does. Loading it warns once with
// [Difference.Warning]; docs/ai-agent.md lists every row ("Keys salve
// reads differently"), and a test holds the two together.
type Difference struct {
	// Where is InFrontmatter, InConfig or InFlag.
	Where string
	// Key is the frontmatter key, the flag without its dashes, or the
	// config path; a path segment may be a path.Match pattern ("*" for
	// any one name).
	Key string
	// Instead says what salve does in its place.
	Instead string
	// Value, when set, limits a config row to string values matching
	// this path.Match pattern.
	Value string
}

// Differences is the one table of the original's keys that salve reads
// differently. A key salve honours has no row.
var Differences = []Difference{
	{InFrontmatter, "usage", "the sub-agent tool's prompt parameter carries no description; write the usage into description", ""},
	{InFrontmatter, "parallelToolCalls", parallelCalls, ""},
	{InFrontmatter, "maxConcurrentTools", concurrentTools, ""},
	{InFrontmatter, "plugins", plugins, ""},
	{InFrontmatter, "toolOutput.storeDir", storeDir, ""},
	{InFrontmatter, "toolOutput.models", extractModels, ""},

	{InConfig, "providers.*.custom", "provider-specific request options are not sent", ""},
	{InConfig, "providers.*.tokenizer", estimated, "anthropic"},
	{InConfig, "providers.*.tokenizer", estimated, "gemini:*"},
	{InConfig, "providers.*.models.*.tokenizer", estimated, "anthropic"},
	{InConfig, "providers.*.models.*.tokenizer", estimated, "gemini:*"},
	{InConfig, "providers.*.mergeStrategy", "entries merge key by key across the layers, always", ""},
	{InConfig, "providers.*.toolsAllowed", providerTools, ""},
	{InConfig, "providers.*.toolsDenied", providerTools, ""},
	{InConfig, "providers.*.stringSchemaFormatsAllowed", schemaFormats, ""},
	{InConfig, "providers.*.stringSchemaFormatsDenied", schemaFormats, ""},
	{InConfig, "providers.*.reasoning", reasoningMap, ""},
	{InConfig, "providers.*.models.*.reasoning", reasoningMap, ""},
	{InConfig, "providers.*.reasoningAutoStreamLevel", "streaming follows --stream and defaults.stream alone", ""},
	{InConfig, "providers.*.models.*.interleaved", "reasoning is sent back only to Anthropic models (as thinking blocks), never to OpenAI-compatible ones", ""},
	{InConfig, "defaults.parallelToolCalls", parallelCalls, ""},
	{InConfig, "defaults.maxConcurrentTools", concurrentTools, ""},
	{InConfig, "defaults.mcpInitConcurrency", mcpInit, ""},
	{InConfig, "defaults.outputFormat", outputFormat, ""},
	{InConfig, "defaults.formats", outputFormat, ""},
	{InConfig, "defaults.reasoningValue", "use reasoningTokens (frontmatter, --reasoning-tokens or --override)", ""},
	{InConfig, "restTools.*.streaming", "the response is read whole; json-stream events are not assembled into an answer", ""},
	{InConfig, "restTools.*.hasComplexQueryParams", restQuery, ""},
	{InConfig, "restTools.*.queryParamNames", restQuery, ""},
	{InConfig, "mcpServers.*.toolSchemas", "tool input schemas come from the server; they are not replaced", ""},
	{InConfig, "toolOutput.storeDir", storeDir, ""},
	{InConfig, "toolOutput.models", extractModels, ""},
	{InConfig, "api", "the REST headend starts with --api PORT and its token is --headend-token; the api section is not read", ""},
	{InConfig, "slack.enabled", "the Slack headend starts with --slack", ""},
	{InConfig, "embed.*.enabled", embedFlag, ""},
	{InConfig, "embed.*.port", embedFlag, ""},
	{InConfig, "embed.*.metrics", "the embed headend serves no metrics of its own; use the telemetry section", ""},

	{InFlag, "parallel-tool-calls", parallelCalls, ""},
	{InFlag, "no-parallel-tool-calls", parallelCalls, ""},
	{InFlag, "max-concurrent-tools", concurrentTools, ""},
	{InFlag, "maxConcurrentTools", concurrentTools, ""},
	{InFlag, "mcp-init-concurrency", mcpInit, ""},
	{InFlag, "plugins", plugins, ""},
	{InFlag, "trace-slack", "the Slack headend logs at debug level with --verbose", ""},
	{InFlag, "trace-sdk", "there is no SDK between salve and the providers; --trace-llm logs each request and response", ""},
	{InFlag, "show-tree", "the session tree is not drawn; --verbose logs each step", ""},
	{InFlag, "chat", "there is no interactive chat mode: give the prompt as an argument or on stdin", ""},
	{InFlag, "no-chat", "there is no interactive chat mode: give the prompt as an argument or on stdin", ""},
	{InFlag, "telemetry-*", "this telemetry flag is not one of salve's (see docs/ai-agent.md, Telemetry and cost)", ""},
}

// Reasons shared by several rows.
const (
	plugins         = "final-report plugins are JavaScript modules, which salve cannot load"
	parallelCalls   = "a turn's tool calls always run concurrently, bounded by maxToolCallsPerTurn and the queues"
	concurrentTools = "tool concurrency is bounded by the queues (queues.NAME.concurrent)"
	mcpInit         = "MCP servers start one after another"
	storeDir        = "oversized tool outputs stay in the session's memory"
	extractModels   = "tool_output extracts with the session's first model"
	providerTools   = "tools are filtered per MCP server (mcpServers.NAME.toolsAllowed) or per agent (the frontmatter's toolsAllowed), not per provider"
	schemaFormats   = "tool schemas reach the provider as the tools declare them"
	reasoningMap    = "reasoning levels reach the provider by name (and reasoningTokens as the budget); a provider's own mapping is not applied"
	outputFormat    = "the format comes from --format, the agent's output.format, else tty or pipe; a headend request names its own"
	embedFlag       = "the embed headend starts with --embed [NAME:]PORT"
	estimated       = "salve has no exact count for this tokenizer and estimates (approx)"
	restQuery       = "parameters reach the request through ${parameters.NAME} in the url, headers and bodyTemplate only"
)

// Warning is the text logged when the row's key is found at the concrete
// key or path at.
func (d Difference) Warning(at string) string {
	if d.Value != "" {
		at += " (" + d.Value + ")"
	}
	switch d.Where {
	case InFlag:
		return fmt.Sprintf("flag --%s is accepted but salve differs: %s", at, d.Instead)
	case InFrontmatter:
		return fmt.Sprintf("frontmatter key %s is accepted but salve differs: %s", at, d.Instead)
	}
	return fmt.Sprintf("config key %s is accepted but salve differs: %s", at, d.Instead)
}

// DocKey is the row's key as docs/ai-agent.md shows it: a flag with its
// dashes, a row limited to values with "KEY: VALUE".
func DocKey(d Difference) string {
	switch {
	case d.Where == InFlag:
		return "--" + d.Key
	case d.Value != "":
		return d.Key + ": " + d.Value
	}
	return d.Key
}

// FlagWarning is the warning for an accepted flag that salve does not
// honour as the original does; ok is false when the table has no row.
func FlagWarning(name string) (string, bool) {
	return lookupDifference(InFlag, name)
}

func lookupDifference(where, key string) (string, bool) {
	for _, d := range Differences {
		if d.Where == where && matchPath(d.Key, key) {
			return d.Warning(key), true
		}
	}
	return "", false
}

// matchPath matches a dotted key against a dotted pattern, one segment
// at a time.
func matchPath(pattern, key string) bool {
	ps, ks := strings.Split(pattern, "."), strings.Split(key, ".")
	if len(ps) != len(ks) {
		return false
	}
	for i := range ps {
		if ok, err := path.Match(ps[i], ks[i]); err != nil || !ok {
			return false
		}
	}
	return true
}

// differenceWarnings lists the warnings of the config rows found in the
// merged tree, sorted.
func differenceWarnings(tree map[string]any) []string {
	var out []string
	for _, d := range Differences {
		if d.Where != InConfig {
			continue
		}
		findPath(tree, strings.Split(d.Key, "."), "", func(at string, leaf any) {
			if d.Value != "" {
				v, _ := leaf.(string)
				if ok, err := path.Match(d.Value, v); err != nil || !ok {
					return
				}
			}
			out = append(out, d.Warning(at))
		})
	}
	sort.Strings(out)
	return out
}

// readSections are the top-level keys salve reads
// (docs/contracts/ai-agent-cli.md §9); slack and embed are read by their
// headends.
var readSections = map[string]bool{
	"providers": true, "mcpServers": true, "restTools": true, "queues": true, "defaults": true,
	"tooling": true, "persistence": true, "accounting": true, "toolOutput": true, "cache": true,
	"telemetry": true, "pricing": true, "budgets": true,
}

// UnreadSections lists, sorted, the top-level keys of the merged
// configuration that salve neither reads nor warns about as a
// difference; read names sections the caller reads besides (the
// sections of the headends it starts).
func (c *Config) UnreadSections(read ...string) []string {
	var out []string
	for _, k := range c.Keys() {
		if readSections[k] || slices.Contains(read, k) {
			continue
		}
		if _, warned := lookupDifference(InConfig, k); warned {
			continue
		}
		out = append(out, k)
	}
	return out
}

// findPath calls found with each concrete path under node that matches
// segs, and the value there.
func findPath(node any, segs []string, prefix string, found func(string, any)) {
	if len(segs) == 0 {
		found(prefix, node)
		return
	}
	m, ok := node.(map[string]any)
	if !ok {
		return
	}
	for k, child := range m {
		if ok, err := path.Match(segs[0], k); err != nil || !ok {
			continue
		}
		at := k
		if prefix != "" {
			at = prefix + "." + k
		}
		findPath(child, segs[1:], at, found)
	}
}

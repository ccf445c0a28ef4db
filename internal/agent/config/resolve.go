package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/tooloutput"
	"github.com/salve-dev/salve/internal/safefile"
)

// Built-in values of ai-agent that are not the engine's defaults
// (docs/contracts/ai-agent-cli.md §3).
const (
	DefaultTemperature = 0.2
	DefaultCaching     = "full"
)

// CLI is the command line of a session as the settings read it. The zero
// value is a session without flags.
type CLI struct {
	// Settings are the flags that set an option of the option table, by
	// the option's key (maxTurns, temperature, stream, …), as typed.
	Settings map[string]string
	// Flags are the other single-value flags, by name, as typed: format,
	// schema (JSON text or @FILE), handoff, tooling-transport, default-reasoning,
	// billing-file, sessions-dir, cache, max-cost-usd,
	// headend-max-cost-usd and the telemetry flags with a value.
	Flags map[string]string
	// Lists are --models, --tools, --agents, --advisors and
	// --telemetry-label by key;
	// a key is present when its flag was given.
	Lists map[string][]string
	// Bools are the boolean flags given, by name (the telemetry ones).
	Bools map[string]bool
	// Overrides are the --override KEY=VALUE pairs, in order.
	Overrides []string
}

// Request is what [Resolve] settles one session from.
type Request struct {
	Config *Config
	// Frontmatter is the agent's header; nil is none.
	Frontmatter *Frontmatter
	CLI         CLI
	// SubAgent marks a child session: its format is sub-agent unless it
	// expects JSON, it has no cost cap of its own, and InheritModels (its
	// parent's) are its models when nothing else names one.
	SubAgent      bool
	InheritModels []string
	// ChildFormat, when set, is the format of a child session that
	// names no output format of its own (markdown for an advisor; a
	// router destination's and a handoff's is the session's they
	// serve), in place of sub-agent; ChildSchema is its schema when it
	// is json.
	ChildFormat string
	ChildSchema json.RawMessage
	// Terminal says stdout is a terminal: without another choice the
	// format is tty, else pipe.
	Terminal bool
	// Home is $HOME, for the default billing file and sessions dir; ""
	// leaves them unset.
	Home string
}

// Settings is one session's configuration, resolved once from the
// command line, the frontmatter, the configuration's layers and the
// built-in defaults with the precedence of docs/contracts/ai-agent-cli.md
// §4: --override, the flag, the frontmatter, the config's defaults, the
// built-in value.
type Settings struct {
	MaxTurns, MaxRetries, MaxToolCallsPerTurn int
	// ToolResponseMaxBytes 0 is no limit.
	ToolResponseMaxBytes    int
	LLMTimeout, ToolTimeout time.Duration
	Stream, Batch, Progress bool
	Transport               string
	// Format is the canonical output format; Schema the output schema of
	// a json session ({"type":"object"} when the agent gives none).
	Format string
	Schema json.RawMessage
	// Targets are the models and what every target shares; the caller
	// adds its client maker and calls Config.Targets.
	Targets TargetSetup
	// Tools and Agents are the tool names and sub-agent files.
	Tools, Agents []string
	// Orchestration is the agent's advisors, router and handoff.
	Orchestration Orchestration
	// ToolsAllowed and ToolsDenied are the frontmatter's tool filters.
	ToolsAllowed, ToolsDenied []string
	ToolOutput                tooloutput.Config
	// CacheTTL is the agent response cache's TTL; 0 is off.
	CacheTTL time.Duration
	// BillingFile and SessionsDir are where accounting and sessions go.
	BillingFile, SessionsDir string
	// MaxCostUSD and HeadendMaxCostUSD are the cost caps (0 is none).
	MaxCostUSD, HeadendMaxCostUSD float64
	Pricing                       Pricing
	// Warnings are remarks to log once: a --format a JSON agent ignores,
	// models missing from the pricing table.
	Warnings []string
}

// Resolve settles the settings of one session. Errors wrap ErrConfig,
// or agent's errors for a bad format.
func Resolve(r Request) (*Settings, error) {
	c := r.Config
	fm := r.Frontmatter
	if fm == nil {
		fm = &Frontmatter{Settings: map[string]any{}}
	}
	over := map[string]string{}
	for _, kv := range r.CLI.Overrides {
		k, v, err := ParseOverride(kv)
		if err != nil {
			return nil, err
		}
		over[k] = v
	}
	defaults, err := c.Defaults()
	if err != nil {
		return nil, err
	}
	for _, entry := range []string{"tooling", "persistence", "accounting", "queues"} {
		if err := c.Check(entry); err != nil {
			return nil, err
		}
	}
	src := Sources{Override: over, CLI: r.CLI.Settings, Frontmatter: fm.Settings, Defaults: defaults}
	s := &Settings{ToolsAllowed: fm.ToolsAllowed, ToolsDenied: fm.ToolsDenied}
	if err := s.limits(src); err != nil {
		return nil, err
	}
	if s.ToolOutput, err = toolOutput(c, fm); err != nil {
		return nil, err
	}
	if err := s.switches(src); err != nil {
		return nil, err
	}
	if err := s.format(r, fm); err != nil {
		return nil, err
	}
	if s.Transport, err = transport(c, r.CLI.Flags); err != nil {
		return nil, err
	}
	if s.Targets, err = targetSettings(src, r.CLI.Flags); err != nil {
		return nil, err
	}
	lists := listSources{over: over, cli: r.CLI.Lists}
	s.Targets.Models = lists.pick("models", fm.Models)
	if len(s.Targets.Models) == 0 {
		s.Targets.Models = r.InheritModels
	}
	if len(s.Targets.Models) == 0 {
		return nil, fmt.Errorf("%w: no model configured (use --models or the frontmatter models key)", ErrConfig)
	}
	s.Tools = lists.pick("tools", fm.Tools)
	s.Agents = lists.pick("agents", fm.Agents)
	s.Orchestration = orchestration(r, fm)
	if s.CacheTTL, err = cacheTTL(r.CLI.Flags, fm); err != nil {
		return nil, err
	}
	if err := s.persistence(c, r.CLI.Flags, r.Home); err != nil {
		return nil, err
	}
	if err := s.costs(c, r); err != nil {
		return nil, err
	}
	return s, nil
}

// Options are the engine options the settings decide: limits, timeouts,
// the switches, transport, format and schema, tool outputs and the
// session's cost cap and pricing. The caller adds the targets, tools,
// prompts and plugs.
func (s *Settings) Options() agent.Options {
	o := agent.Options{
		MaxTurns: s.MaxTurns, MaxRetries: s.MaxRetries, MaxToolCallsPerTurn: s.MaxToolCallsPerTurn,
		ToolResponseMaxBytes: s.ToolResponseMaxBytes, NoToolResponseLimit: s.ToolResponseMaxBytes == 0,
		LLMTimeout: s.LLMTimeout, ToolTimeout: s.ToolTimeout, ToolOutput: s.ToolOutput,
		Stream: s.Stream, Batch: s.Batch, Progress: s.Progress, Transport: s.Transport,
		Format: s.Format, Schema: s.Schema, MaxCostUSD: s.MaxCostUSD,
	}
	if len(s.Pricing) > 0 {
		o.Pricer = s.Pricing
	}
	return o
}

// limits resolves the integer limits and the two timeouts.
func (s *Settings) limits(src Sources) error {
	for _, it := range []struct {
		key string
		dst *int
		def int
	}{
		{"maxTurns", &s.MaxTurns, agent.DefaultMaxTurns},
		{"maxRetries", &s.MaxRetries, agent.DefaultMaxRetries},
		{"maxToolCallsPerTurn", &s.MaxToolCallsPerTurn, agent.DefaultMaxToolCallsPerTurn},
		{"toolResponseMaxBytes", &s.ToolResponseMaxBytes, agent.DefaultToolResponseMaxBytes},
	} {
		v, ok, err := src.Resolve(it.key)
		if err != nil {
			return err
		}
		*it.dst = it.def
		if ok {
			*it.dst = v.Int
		}
	}
	if s.MaxRetries == 0 {
		s.MaxRetries = 1
	}
	for _, d := range []struct {
		key string
		dst *time.Duration
		def time.Duration
	}{{"llmTimeout", &s.LLMTimeout, agent.DefaultLLMTimeout}, {"toolTimeout", &s.ToolTimeout, agent.DefaultToolTimeout}} {
		v, ok, err := src.Resolve(d.key)
		if err != nil {
			return err
		}
		*d.dst = d.def
		if ok && v.Dur <= 0 {
			// 0 is not "unset": a timeout of nothing cannot be
			// honoured, so it is refused rather than replaced.
			return fmt.Errorf("%w: %s must be greater than 0", ErrConfig, d.key)
		}
		if ok {
			*d.dst = v.Dur
		}
	}
	return nil
}

// switches resolves stream, no-batch and no-progress.
func (s *Settings) switches(src Sources) error {
	stream, ok, err := src.Resolve("stream")
	if err != nil {
		return err
	}
	s.Stream = ok && stream.Bool
	for _, b := range []struct {
		key string
		dst *bool
	}{{"no-batch", &s.Batch}, {"no-progress", &s.Progress}} {
		v, _, err := src.Resolve(b.key)
		if err != nil {
			return err
		}
		*b.dst = !v.Bool
	}
	return nil
}

// format settles the output format and schema
// (docs/contracts/ai-agent-cli.md §5).
func (s *Settings) format(r Request, fm *Frontmatter) error {
	schema, isJSON, err := outputSchema(r.CLI.Flags, fm)
	if err != nil {
		return err
	}
	requested := ""
	if f, ok := r.CLI.Flags["format"]; ok {
		if requested, err = agent.CanonicalFormat(f); err != nil {
			return fmt.Errorf("%w: --format: %v", ErrConfig, err)
		}
	}
	switch {
	case isJSON:
		if requested != "" && requested != agent.FormatJSON {
			s.Warnings = append(s.Warnings, fmt.Sprintf("this agent expects JSON; --format %s ignored", requested))
		}
		s.Format, s.Schema = agent.FormatJSON, schema
		if len(s.Schema) == 0 {
			s.Schema = json.RawMessage(`{"type":"object"}`)
		}
	case r.SubAgent && r.ChildFormat != "":
		s.Format, s.Schema = childFormat(r, fm)
	case r.SubAgent:
		s.Format = agent.FormatSubAgent
	case requested != "":
		s.Format = requested
	case fm.Output != nil && fm.Output.Format == "markdown":
		s.Format = agent.FormatMarkdown
	case fm.Output != nil && fm.Output.Format == "text":
		s.Format = agent.FormatPipe
	case r.Terminal:
		s.Format = agent.FormatTTY
	default:
		s.Format = agent.FormatPipe
	}
	return nil
}

// outputSchema reads --schema (JSON text or @FILE) or output.schema.
func outputSchema(flags map[string]string, fm *Frontmatter) (json.RawMessage, bool, error) {
	if text, ok := flags["schema"]; ok {
		if name, isFile := strings.CutPrefix(text, "@"); isFile {
			b, err := readFlagFile("--schema "+text, name)
			if err != nil {
				return nil, false, err
			}
			text = string(b)
		}
		if !json.Valid([]byte(text)) {
			return nil, false, fmt.Errorf("%w: --schema is not JSON", ErrConfig)
		}
		return json.RawMessage(text), true, nil
	}
	if fm.Output != nil && fm.Output.Format == "json" {
		return fm.Output.Schema, true, nil
	}
	return nil, false, nil
}

// readFlagFile reads a file a flag names, through safefile. A missing or
// unreadable file is a configuration error naming the flag and the file.
func readFlagFile(what, path string) ([]byte, error) {
	if path == "" {
		return nil, fmt.Errorf("%w: %s: the file name is empty", ErrConfig, what)
	}
	b, err := safefile.Read(path, safefile.MaxConfig)
	switch {
	case err == nil:
		return b, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: %s: file %s does not exist", ErrConfig, what, path)
	}
	return nil, fmt.Errorf("%w: %s: cannot read %s: %v", ErrConfig, what, path, err)
}

// transport: --tooling-transport, then tooling.transport, then xml-final.
func transport(c *Config, flags map[string]string) (string, error) {
	t := flags["tooling-transport"]
	if t == "" {
		var err error
		if t, err = c.StringAt("tooling", "transport"); err != nil {
			return "", err
		}
	}
	switch t {
	case "":
		return agent.TransportXMLFinal, nil
	case agent.TransportNative, agent.TransportXML, agent.TransportXMLFinal:
		return t, nil
	}
	return "", fmt.Errorf("%w: unknown tooling transport %q", ErrConfig, t)
}

// targetSettings resolves what every target shares over ai-agent's
// built-in parameters, then reasoning: the agent's (override, CLI,
// frontmatter), else --default-reasoning, else defaults.reasoning.
func targetSettings(src Sources, flags map[string]string) (TargetSetup, error) {
	t := DefaultTemperature
	ts, err := src.TargetSettings(agent.Params{MaxOutputTokens: agent.DefaultMaxOutputTokens, Caching: DefaultCaching, Temperature: &t})
	if err != nil {
		return ts, err
	}
	agentLevel := src
	agentLevel.Defaults = nil
	v, ok, err := agentLevel.Resolve("reasoning")
	switch {
	case err != nil:
		return ts, err
	case ok:
		ts.Params.Reasoning = v.Str
		return ts, nil
	}
	if d, has := flags["default-reasoning"]; has {
		v, err := ParseSetting("reasoning", d)
		if err != nil {
			return ts, fmt.Errorf("--default-reasoning: %w", err)
		}
		ts.Params.Reasoning = v.Str
		return ts, nil
	}
	if d, has := src.Defaults["reasoning"]; has {
		v, err := ParseSetting("reasoning", d)
		if err != nil {
			return ts, fmt.Errorf("defaults: %w", err)
		}
		ts.Params.Reasoning = v.Str
	}
	return ts, nil
}

// listSources resolve models, tools and agents: --override, then the
// CLI, then the frontmatter.
type listSources struct {
	over map[string]string
	cli  map[string][]string
}

func (l listSources) pick(key string, fm []string) []string {
	if v, ok := l.over[key]; ok {
		return SplitList(v)
	}
	if v, ok := l.cli[key]; ok {
		return v
	}
	return fm
}

// toolOutput resolves the toolOutput section: the frontmatter's members
// over the config file's (docs/ai-agent.md, "Oversized tool outputs").
func toolOutput(c *Config, fm *Frontmatter) (tooloutput.Config, error) {
	t, err := ParseToolOutput(c.Raw("toolOutput"))
	if err != nil {
		return tooloutput.Config{}, err
	}
	if fm.ToolOutput != nil {
		t = t.Over(*fm.ToolOutput)
	}
	out := tooloutput.Config{OverlapPercent: -1}
	if t.Enabled != nil {
		out.Enabled = *t.Enabled
	}
	if t.MaxChunks != nil {
		out.MaxChunks = *t.MaxChunks
	}
	if t.OverlapPercent != nil {
		out.OverlapPercent = *t.OverlapPercent
	}
	if t.AvgLineBytesThreshold != nil {
		out.AvgLineBytesThreshold = *t.AvgLineBytesThreshold
	}
	return out.WithDefaults(), nil
}

// cacheTTL is the response cache TTL: --cache, else the frontmatter's
// cache:.
func cacheTTL(flags map[string]string, fm *Frontmatter) (time.Duration, error) {
	if v, ok := flags["cache"]; ok {
		ttl, _, err := ParseCacheTTL("--cache", v)
		return ttl, err
	}
	if fm.CacheSet {
		return fm.Cache, nil
	}
	return 0, nil
}

// persistence resolves the billing file and sessions directory: the flag,
// then persistence.* (and the legacy accounting.file), then $HOME.
func (s *Settings) persistence(c *Config, flags map[string]string, home string) error {
	pick := func(flag string, paths [][]string, def string) (string, error) {
		if v := flags[flag]; v != "" {
			return v, nil
		}
		for _, p := range paths {
			v, err := c.StringAt(p...)
			if err != nil {
				return "", err
			}
			if v != "" {
				return v, nil
			}
		}
		if home == "" {
			return "", nil
		}
		return filepath.Join(home, def), nil
	}
	var err error
	if s.BillingFile, err = pick("billing-file", [][]string{{"persistence", "billingFile"}, {"accounting", "file"}}, ".ai-agent/accounting.jsonl"); err != nil {
		return err
	}
	s.SessionsDir, err = pick("sessions-dir", [][]string{{"persistence", "sessionsDir"}}, ".ai-agent/sessions")
	return err
}

// costs resolves the pricing table and the cost caps: the flags beat the
// budgets section; a sub-agent spends from its parent's caps and has
// none of its own.
func (s *Settings) costs(c *Config, r Request) error {
	var err error
	if s.Pricing, err = c.Pricing(); err != nil {
		return err
	}
	if len(s.Pricing) > 0 && !r.SubAgent {
		if miss := s.Pricing.Missing(s.Targets.Models); len(miss) > 0 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("Missing pricing entries for %d model(s): %s", len(miss), strings.Join(miss, ", ")))
		}
	}
	b, err := c.Budgets()
	if err != nil {
		return err
	}
	if r.SubAgent {
		return nil
	}
	s.MaxCostUSD, s.HeadendMaxCostUSD = b.MaxCostUSD, b.HeadendMaxCostUSD
	for _, f := range []struct {
		flag string
		dst  *float64
	}{{"max-cost-usd", &s.MaxCostUSD}, {"headend-max-cost-usd", &s.HeadendMaxCostUSD}} {
		if v, ok := r.CLI.Flags[f.flag]; ok {
			if *f.dst, err = usd("--"+f.flag, v); err != nil {
				return err
			}
		}
	}
	return nil
}

func usd(flag, v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%w: %s must be a non-negative number of USD", ErrConfig, flag)
	}
	return f, nil
}

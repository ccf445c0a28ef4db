package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/agent/ctxguard/agentguard"
	"github.com/salve-dev/salve/internal/agent/tools/toolschema"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/tokens/tiktoken"
)

// Built-in defaults that are not agent package defaults
// (docs/contracts/ai-agent-cli.md §3).
const (
	defaultTemperature = 0.2
	defaultCaching     = "full"
)

// options resolves every session option with the precedence of
// docs/contracts/ai-agent-cli.md §4.
func (st *startup) options(stdout io.Writer) (agent.Options, error) {
	o := agent.Options{Logger: st.log, SchemaCompiler: fullSchemas}
	ints := []struct {
		key string
		dst *int
		def int
	}{
		{"maxTurns", &o.MaxTurns, agent.DefaultMaxTurns},
		{"maxRetries", &o.MaxRetries, agent.DefaultMaxRetries},
		{"maxToolCallsPerTurn", &o.MaxToolCallsPerTurn, agent.DefaultMaxToolCallsPerTurn},
		{"toolResponseMaxBytes", &o.ToolResponseMaxBytes, agent.DefaultToolResponseMaxBytes},
	}
	for _, it := range ints {
		v, ok, err := st.src.Resolve(it.key)
		if err != nil {
			return o, err
		}
		*it.dst = it.def
		if ok {
			*it.dst = v.Int
		}
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = 1
	}
	o.NoToolResponseLimit = o.ToolResponseMaxBytes == 0
	toolOut, err := st.toolOutput()
	if err != nil {
		return o, err
	}
	o.ToolOutput = toolOut
	for _, d := range []struct {
		key string
		dst *time.Duration
		def time.Duration
	}{{"llmTimeout", &o.LLMTimeout, agent.DefaultLLMTimeout}, {"toolTimeout", &o.ToolTimeout, agent.DefaultToolTimeout}} {
		v, ok, err := st.src.Resolve(d.key)
		if err != nil {
			return o, err
		}
		*d.dst = d.def
		if ok && v.Dur <= 0 {
			// 0 is not "unset": a timeout of nothing cannot be
			// honoured, so it is refused rather than replaced.
			return o, fmt.Errorf("%w: %s must be greater than 0", config.ErrConfig, d.key)
		}
		if ok {
			*d.dst = v.Dur
		}
	}
	stream, ok, err := st.src.Resolve("stream")
	if err != nil {
		return o, err
	}
	o.Stream = ok && stream.Bool
	for _, b := range []struct {
		key string
		dst *bool
	}{{"no-batch", &o.Batch}, {"no-progress", &o.Progress}} {
		v, _, err := st.src.Resolve(b.key)
		if err != nil {
			return o, err
		}
		*b.dst = !v.Bool
	}
	if err := st.format(&o, stdout); err != nil {
		return o, err
	}
	if o.Transport, err = st.transport(); err != nil {
		return o, err
	}
	setup, err := st.targetSettings()
	if err != nil {
		return o, err
	}
	if o.Targets, err = st.targets(setup); err != nil {
		return o, err
	}
	counter, err := tiktoken.New(o.Targets[0].Tokenizer, o.Targets[0].Model)
	if err != nil {
		return o, fmt.Errorf("%w: %v", config.ErrConfig, err)
	}
	if o.Guard, err = agentguard.New(o.Targets, counter, st.log); err != nil {
		return o, fmt.Errorf("%w: context guard: %v", config.ErrConfig, err)
	}
	vars := newPromptVars(st.cwd, agent.FormatDescription(o.Format), o.MaxTurns, o.MaxToolCallsPerTurn)
	o.SystemPrompt = vars.expand(st.sys.text)
	o.UserPrompt = vars.expand(st.usr.text)
	o.Trace = st.trace()
	if err := st.telemetryOptions(&o); err != nil {
		return o, err
	}
	if !st.a.bools["quiet"] {
		o.ProgressOut = st.stderr
	}
	return o, nil
}

// format settles the output format and schema
// (docs/contracts/ai-agent-cli.md §5).
func (st *startup) format(o *agent.Options, stdout io.Writer) error {
	schema, isJSON, err := st.outputSchema()
	if err != nil {
		return err
	}
	requested := ""
	if f, ok := st.a.values["format"]; ok {
		if requested, err = agent.CanonicalFormat(f); err != nil {
			return fmt.Errorf("%w: --format: %v", config.ErrConfig, err)
		}
	}
	switch {
	case isJSON:
		if requested != "" && requested != agent.FormatJSON {
			st.log.Warn("this agent expects JSON; --format ignored", "format", requested)
		}
		o.Format = agent.FormatJSON
		o.Schema = schema
		if len(o.Schema) == 0 {
			o.Schema = []byte(`{"type":"object"}`)
		}
		if _, err := o.SchemaCompiler.Compile(o.Schema); err != nil {
			return err
		}
	case st.subAgent:
		o.Format = agent.FormatSubAgent
	case requested != "":
		o.Format = requested
	case st.fm.Output != nil && st.fm.Output.Format == "markdown":
		o.Format = agent.FormatMarkdown
	case st.fm.Output != nil && st.fm.Output.Format == "text":
		o.Format = agent.FormatPipe
	case isTerminal(stdout):
		o.Format = agent.FormatTTY
	default:
		o.Format = agent.FormatPipe
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// transport: --tooling-transport, then tooling.transport, then xml-final.
func (st *startup) transport() (string, error) {
	t := st.a.values["tooling-transport"]
	if t == "" {
		var err error
		if t, err = st.cfg.StringAt("tooling", "transport"); err != nil {
			return "", err
		}
	}
	switch t {
	case "":
		return agent.TransportXMLFinal, nil
	case agent.TransportNative, agent.TransportXML, agent.TransportXMLFinal:
		return t, nil
	}
	return "", fmt.Errorf("%w: unknown tooling transport %q", config.ErrConfig, t)
}

// targetSettings resolves what every target shares, over ai-agent's
// built-in parameters, then the reasoning of ai-agent's own precedence.
func (st *startup) targetSettings() (config.TargetSetup, error) {
	t := defaultTemperature
	ts, err := st.src.TargetSettings(agent.Params{MaxOutputTokens: agent.DefaultMaxOutputTokens, Caching: defaultCaching, Temperature: &t})
	if err != nil {
		return ts, err
	}
	return ts, st.reasoning(&ts.Params)
}

// reasoning: the agent's reasoning (override, CLI, frontmatter), else
// --default-reasoning, else defaults.reasoning.
func (st *startup) reasoning(p *agent.Params) error {
	src := st.src
	src.Defaults = nil
	v, ok, err := src.Resolve("reasoning")
	if err != nil {
		return err
	}
	if ok {
		p.Reasoning = v.Str
		return nil
	}
	if d, has := st.a.values["default-reasoning"]; has {
		v, err := config.ParseSetting("reasoning", d)
		if err != nil {
			return fmt.Errorf("--default-reasoning: %w", err)
		}
		p.Reasoning = v.Str
		return nil
	}
	if d, has := st.src.Defaults["reasoning"]; has {
		v, err := config.ParseSetting("reasoning", d)
		if err != nil {
			return fmt.Errorf("defaults: %w", err)
		}
		p.Reasoning = v.Str
	}
	return nil
}

// targets builds the fallback list with each model's overrides
// (docs/contracts/ai-agent-cli.md §4, §9.4).
func (st *startup) targets(setup config.TargetSetup) ([]agent.Target, error) {
	setup.Models = st.list("models", st.fm.Models)
	if len(setup.Models) == 0 {
		setup.Models = st.inheritModels
	}
	if len(setup.Models) == 0 {
		return nil, fmt.Errorf("%w: no model configured (use --models or the frontmatter models key)", config.ErrConfig)
	}
	setup.NewClient = func(name string, entry config.Provider) (llm.Provider, error) {
		return st.deps.newProvider(providerSpec{Name: name, Config: entry, Logger: st.log})
	}
	setup.Warn = func(w string) { st.log.Warn(w) }
	return st.cfg.Targets(setup)
}

// fullSchemas compiles output and tool schemas as the reference ai-agent
// does: drafts 4 to 2020-12, every violation reported.
func fullSchemas(raw json.RawMessage) (agent.SchemaValidator, error) {
	d, err := toolschema.CompileDocument(raw)
	if err != nil {
		return nil, err
	}
	return d, nil
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/agent/ctxguard/agentguard"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/agent/tools/mcp"
	"github.com/salve-dev/salve/internal/agent/tools/toolschema"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/tokens/tiktoken"
)

// options builds the session's engine options from its settings: the
// targets with their clients, the context guard, the prompts with their
// variables, the tracing ids and the telemetry.
func (st *startup) options() (agent.Options, error) {
	s := st.set
	o := s.Options()
	o.Logger, o.SchemaCompiler = st.log, fullSchemas
	for _, w := range s.Warnings {
		st.log.Warn(w)
	}
	if len(o.Schema) > 0 {
		if _, err := o.SchemaCompiler.Compile(o.Schema); err != nil {
			return o, err
		}
	}
	setup := s.Targets
	setup.NewClient = func(name string, entry config.Provider) (llm.Provider, error) {
		return st.deps.newProvider(providerSpec{Name: name, Config: entry, Logger: st.log})
	}
	setup.Warn = func(w string) { st.deps.notes.warn(st.log, w) }
	var err error
	if o.Targets, err = st.cfg.Targets(setup); err != nil {
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
	o.ToolFilter = toolFilter(s.ToolsAllowed, s.ToolsDenied)
	if err := st.telemetryOptions(&o); err != nil {
		return o, err
	}
	if !st.a.bools["quiet"] {
		o.ProgressOut = st.stderr
	}
	return o, nil
}

// toolFilter keeps the tools the frontmatter's toolsAllowed and
// toolsDenied let through, by exposed or local name, with the MCP
// servers' pattern rule (mcp.Filter); nil when neither is set.
func toolFilter(allowed, denied []string) func(tools.Tool) bool {
	if len(allowed) == 0 && len(denied) == 0 {
		return nil
	}
	allow, deny := mcp.Filter{Allowed: allowed}, mcp.Filter{Denied: denied}
	return func(t tools.Tool) bool {
		if !deny.Allows(t.Name) || !deny.Allows(t.LocalName) {
			return false
		}
		return allow.Allows(t.Name) || allow.Allows(t.LocalName)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
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

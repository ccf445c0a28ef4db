package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/cache"
	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/agent/orchestrate"
	"github.com/salve-dev/salve/internal/agent/tools"
)

// sessionSetup is everything a run needs once start-up succeeded.
type sessionSetup struct {
	session     *agent.Session
	opts        agent.Options
	billingFile string
	sessionsDir string
	closers     []tools.Provider
	log         *slog.Logger
	// children collects the accounting of sub-agent sessions.
	children *children
	// plan is the agent's advisors, router and handoff.
	plan orchestrate.Plan
	// mcp are the session's MCP servers by name, which its sub-agents
	// share instead of starting their own.
	mcp map[string]tools.Provider
	// args are the command line, for --save and --save-all.
	args *cliArgs
	// cacheDB is the open response and tool cache; response is the
	// agent response cache, when its TTL is positive.
	cacheDB  *cache.Cache
	response *responseCache
}

func (s *sessionSetup) addMCP(name string, p tools.Provider) {
	if s.mcp == nil {
		s.mcp = map[string]tools.Provider{}
	}
	s.mcp[name] = p
}

func (s *sessionSetup) close() {
	if s.cacheDB != nil {
		_ = s.cacheDB.Close()
	}
	for _, c := range s.closers {
		if err := c.Close(); err != nil {
			s.log.Warn("closing tool provider", "error", err)
		}
	}
}

// startup carries the intermediate results of prepare.
type startup struct {
	deps   deps
	a      *cliArgs
	log    *slog.Logger
	stderr io.Writer
	cwd    string
	sys    prompt
	usr    prompt
	fm     *config.Frontmatter
	cfg    *config.Config
	// set is the session's resolved configuration.
	set    *config.Settings
	dryRun bool
	// subAgent marks a child session, inheritModels its parent's models.
	subAgent      bool
	inheritModels []string
	// sharedMCP are the parent's running MCP servers, reused by a child
	// session and closed by the parent only.
	sharedMCP map[string]tools.Provider
	// served names the headend agent whose shared MCP servers start: they
	// are supervised (restarted when they go down).
	served string
	// out is the format of an orchestration child session.
	out childOutput
}

// prepare performs every start-up step of docs/contracts/ai-agent-cli.md §2
// (--dry-run): arguments, prompts and frontmatter, config layers and
// variables, providers, tools, queues and the output schema. MCP servers
// start only outside a dry run.
func prepare(ctx context.Context, d deps, a *cliArgs, stdin io.Reader, stdout, stderr io.Writer, log *slog.Logger) (*sessionSetup, error) {
	st := &startup{deps: d, a: a, log: log, stderr: stderr, dryRun: a.bools["dry-run"]}
	var err error
	if st.cwd, err = os.Getwd(); err != nil {
		return nil, fmt.Errorf("getwd: %w", err)
	}
	if err := st.readPrompts(stdin); err != nil {
		return nil, err
	}
	if err := st.loadConfig(); err != nil {
		return nil, err
	}
	if err := st.resolve(a.cli(), isTerminal(stdout)); err != nil {
		return nil, err
	}
	opts, err := st.options()
	if err != nil {
		return nil, err
	}
	setup := &sessionSetup{opts: opts, log: log, billingFile: st.set.BillingFile, sessionsDir: st.set.SessionsDir}
	if err := st.resume(setup); err != nil {
		return setup, err
	}
	if err := st.tools(ctx, setup); err != nil {
		return setup, err
	}
	if err := st.cache(ctx, setup); err != nil {
		return setup, err
	}
	sess, err := agent.New(setup.opts)
	if err != nil {
		return setup, err
	}
	setup.session = sess
	return setup, nil
}

// readPrompts resolves <system> and <user> and the frontmatter
// (docs/contracts/ai-agent-cli.md §1).
func (st *startup) readPrompts(stdin io.Reader) error {
	pos := st.a.positionals
	agentFile, hasAgent := st.a.values["agent"]
	if hasAgent {
		// --agent names a file, never prompt text: a typo must not run
		// with the file's name as the system prompt.
		pos = append([]string{agentFile}, pos...)
	}
	switch {
	case len(pos) == 0:
		return fmt.Errorf("%w: missing <system> prompt", config.ErrConfig)
	case len(pos) == 1 && !st.dryRun:
		return fmt.Errorf("%w: missing <user> prompt", config.ErrConfig)
	case len(pos) > 2:
		return fmt.Errorf("%w: unexpected argument %q", config.ErrConfig, pos[2])
	case len(pos) == 2 && pos[0] == "-" && pos[1] == "-":
		return fmt.Errorf("%w: only one prompt may be read from stdin", config.ErrConfig)
	}
	in := onceStdin(stdin)
	var err error
	if hasAgent {
		st.sys, err = readPromptFile("--agent", agentFile)
	} else {
		st.sys, err = resolvePrompt(pos[0], in)
	}
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		if st.usr, err = resolvePrompt(pos[1], in); err != nil {
			return err
		}
	}
	fmDir := st.cwd
	sysHeader, sysBody, sysOK := config.SplitFrontmatter(st.sys.text)
	usrHeader, usrBody, usrOK := config.SplitFrontmatter(st.usr.text)
	header := ""
	switch {
	case sysOK:
		header = sysHeader
		if st.sys.path != "" {
			fmDir = filepath.Dir(st.sys.path)
		}
	case usrOK:
		header = usrHeader
		if st.usr.path != "" {
			fmDir = filepath.Dir(st.usr.path)
		}
	}
	if sysOK {
		st.sys.text = sysBody
	}
	if usrOK {
		st.usr.text = usrBody
	}
	st.fm = &config.Frontmatter{Settings: map[string]any{}}
	if sysOK || usrOK {
		if st.fm, err = config.ParseFrontmatter(header, fmDir); err != nil {
			return err
		}
		for _, w := range st.fm.Warnings {
			st.deps.notes.warn(st.log, w)
		}
	}
	return nil
}

// loadConfig reads the six layers, with the prompt file's directory as
// the prompt layer, and logs what salve reads differently.
func (st *startup) loadConfig() error {
	promptPath := st.sys.path
	if promptPath == "" {
		promptPath = st.usr.path
	}
	var err error
	if st.cfg, err = config.Load(config.LocationsFor(st.a.values["config"], st.cwd, promptPath)); err != nil {
		return err
	}
	for _, w := range st.cfg.Warnings() {
		st.deps.notes.warn(st.log, w)
	}
	if st.a.bools["verbose"] {
		for _, k := range st.cfg.UnreadSections(headendSections(st.a)...) {
			st.log.Warn("config section is not used by this implementation and is ignored", "section", k)
		}
	}
	return nil
}

// resolve settles the session's settings from the command line cli.
func (st *startup) resolve(cli config.CLI, terminal bool) error {
	home, _ := os.UserHomeDir()
	var err error
	st.set, err = config.Resolve(config.Request{Config: st.cfg, Frontmatter: st.fm, CLI: cli, SubAgent: st.subAgent,
		InheritModels: st.inheritModels, Terminal: terminal, Home: home, ChildFormat: st.out.format, ChildSchema: st.out.schema})
	return err
}

// trace makes the tracing ids of a top-level session.
func (st *startup) trace() agent.Trace {
	id := uuid.NewString()
	name := st.fm.ToolName
	if name == "" && st.sys.path != "" {
		name = strings.TrimSuffix(filepath.Base(st.sys.path), ".ai")
	}
	if name == "" {
		name = "main"
	}
	return agent.Trace{AgentID: name, CallPath: name, TxnID: id, OriginTxnID: id}
}

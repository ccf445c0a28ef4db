package main

import (
	"context"
	"encoding/json"
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
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/safefile"
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
	deps    deps
	a       *cliArgs
	log     *slog.Logger
	stderr  io.Writer
	cwd     string
	sys     prompt
	usr     prompt
	fm      *config.Frontmatter
	fmDir   string
	cfg     *config.Config
	src     config.Sources
	dryRun  bool
	overMap map[string]string
	// subAgent marks a child session: format sub-agent unless it expects
	// JSON, and inheritModels when its frontmatter names no model.
	subAgent      bool
	inheritModels []string
	// sharedMCP are the parent's running MCP servers, reused by a child
	// session and closed by the parent only.
	sharedMCP map[string]tools.Provider
	// served names the headend agent whose shared MCP servers start: they
	// are supervised (restarted when they go down).
	served string
}

// prepare performs every start-up step of docs/contracts/ai-agent-cli.md §2
// (--dry-run): arguments, prompts and frontmatter, config layers and
// variables, providers, tools, queues and the output schema. MCP servers
// start only outside a dry run.
func prepare(ctx context.Context, d deps, a *cliArgs, stdin io.Reader, stdout, stderr io.Writer, log *slog.Logger) (*sessionSetup, error) {
	st := &startup{deps: d, a: a, log: log, stderr: stderr, dryRun: a.bools["dry-run"], overMap: map[string]string{}}
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
	opts, err := st.options(stdout)
	if err != nil {
		return nil, err
	}
	setup := &sessionSetup{opts: opts, log: log}
	if err := st.persistence(setup); err != nil {
		return setup, err
	}
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
	st.fmDir = st.cwd
	sysHeader, sysBody, sysOK := config.SplitFrontmatter(st.sys.text)
	usrHeader, usrBody, usrOK := config.SplitFrontmatter(st.usr.text)
	header := ""
	switch {
	case sysOK:
		header = sysHeader
		if st.sys.path != "" {
			st.fmDir = filepath.Dir(st.sys.path)
		}
	case usrOK:
		header = usrHeader
		if st.usr.path != "" {
			st.fmDir = filepath.Dir(st.usr.path)
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
		if st.fm, err = config.ParseFrontmatter(header, st.fmDir); err != nil {
			return err
		}
		for _, w := range st.fm.Warnings {
			st.log.Warn(w)
		}
	}
	return nil
}

// loadConfig reads the six layers and the option sources.
func (st *startup) loadConfig() error {
	promptDir := ""
	switch {
	case st.sys.path != "":
		promptDir = filepath.Dir(st.sys.path)
	case st.usr.path != "":
		promptDir = filepath.Dir(st.usr.path)
	}
	if promptDir != "" {
		if abs, err := filepath.Abs(promptDir); err == nil {
			promptDir = abs
		}
	}
	binDir := ""
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			binDir = filepath.Dir(real)
		}
	}
	home, _ := os.UserHomeDir()
	var err error
	st.cfg, err = config.Load(config.Locations{
		ConfigFile: st.a.values["config"], Cwd: st.cwd, PromptDir: promptDir, BinaryDir: binDir, Home: home,
	})
	if err != nil {
		return err
	}
	for _, kv := range st.a.overrides {
		k, v, err := config.ParseOverride(kv)
		if err != nil {
			return err
		}
		st.overMap[k] = v
	}
	defaults, err := st.cfg.Defaults()
	if err != nil {
		return err
	}
	st.src = config.Sources{Override: st.overMap, CLI: st.a.settingsFromCLI(), Frontmatter: st.fm.Settings, Defaults: defaults}
	for _, entry := range []string{"tooling", "persistence", "accounting", "queues"} {
		if err := st.cfg.Check(entry); err != nil {
			return err
		}
	}
	if st.a.bools["verbose"] {
		for _, k := range st.cfg.Keys() {
			if !knownSections[k] && !headendSection(st.a, k) {
				st.log.Warn("config section is not used by this implementation and is ignored", "section", k)
			}
		}
	}
	return nil
}

// knownSections are the top-level config keys this implementation reads
// (docs/contracts/ai-agent-cli.md §9); --verbose warns about the others.
var knownSections = map[string]bool{
	"providers": true, "mcpServers": true, "restTools": true, "queues": true, "defaults": true,
	"tooling": true, "persistence": true, "accounting": true, "toolOutput": true, "cache": true, "telemetry": true, "pricing": true, "budgets": true,
}

// list resolves models, tools or agents: --override, then the CLI, then
// the frontmatter.
func (st *startup) list(key string, fm []string) []string {
	if v, ok := st.overMap[key]; ok {
		return config.SplitList(v)
	}
	if v, ok := st.a.lists[key]; ok {
		return v
	}
	return fm
}

// persistence resolves the billing file and sessions directory.
func (st *startup) persistence(s *sessionSetup) error {
	home, _ := os.UserHomeDir()
	pick := func(flag string, paths [][]string, def string) (string, error) {
		if v := st.a.values[flag]; v != "" {
			return v, nil
		}
		for _, p := range paths {
			v, err := st.cfg.StringAt(p...)
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
	if s.billingFile, err = pick("billing-file", [][]string{{"persistence", "billingFile"}, {"accounting", "file"}}, ".ai-agent/accounting.jsonl"); err != nil {
		return err
	}
	s.sessionsDir, err = pick("sessions-dir", [][]string{{"persistence", "sessionsDir"}}, ".ai-agent/sessions")
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

// outputSchema reads --schema (JSON text or @FILE) or output.schema.
func (st *startup) outputSchema() (json.RawMessage, bool, error) {
	if s, ok := st.a.values["schema"]; ok {
		text := s
		if strings.HasPrefix(s, "@") {
			b, err := readNamedFile("--schema "+s, s[1:], safefile.MaxConfig)
			if err != nil {
				return nil, false, err
			}
			text = string(b)
		}
		if !json.Valid([]byte(text)) {
			return nil, false, fmt.Errorf("%w: --schema is not JSON", config.ErrConfig)
		}
		return json.RawMessage(text), true, nil
	}
	if st.fm.Output != nil && st.fm.Output.Format == "json" {
		return st.fm.Output.Schema, true, nil
	}
	return nil, false, nil
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/agent/headend"
)

// servedAgent is one agent of headend mode, loaded once: its frontmatter,
// config layers and running MCP servers. Each request runs a fresh
// session from it.
type servedAgent struct {
	name string
	st   *startup
	// tpl holds the MCP servers started at load time, shared by every
	// session of the agent and closed at exit.
	tpl    *sessionSetup
	isJSON bool
	// writeMu serialises the billing file appends of concurrent sessions.
	writeMu *sync.Mutex
}

// serveHeadends is headend mode: load every --agent once, then serve the
// headends until ctx ends.
func serveHeadends(ctx context.Context, d deps, a *cliArgs, stdin io.Reader, stdout, stderr io.Writer, log *slog.Logger) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "ai-agent: %v\n", err)
		return exitCode(err)
	}
	if len(a.positionals) > 0 {
		return fail(fmt.Errorf("%w: headend mode takes no prompts (got %q); the prompts come from the requests", config.ErrConfig, a.positionals[0]))
	}
	for _, f := range []string{"result-json", "schema", "list-tools"} {
		if a.has(f) {
			return fail(fmt.Errorf("%w: --%s is for a single run, not headend mode (a request asks for JSON with its own schema)", config.ErrConfig, f))
		}
	}
	if len(a.agentFiles) == 0 {
		return fail(fmt.Errorf("%w: headend mode needs at least one --agent FILE.ai", config.ErrConfig))
	}
	specs, err := headendSpecs(a)
	if err != nil {
		return fail(err)
	}
	hopts, err := headendOptions(a, log)
	if err != nil {
		return fail(err)
	}
	// Beyond loopback a token is required, unless --insecure-no-token
	// says otherwise (and a warning says what that exposes).
	warning, err := hopts.CheckListen(specs)
	if err != nil {
		return fail(fmt.Errorf("%w: %w", config.ErrConfig, err))
	}
	if warning != "" {
		fmt.Fprintf(stderr, "ai-agent: %s\n", warning)
	}
	writeMu := &sync.Mutex{}
	var served []*servedAgent
	defer func() {
		for _, s := range served {
			s.tpl.close()
		}
	}()
	for _, path := range a.agentFiles {
		sa, err := loadServed(ctx, d, a, path, stderr, log, writeMu)
		if sa != nil {
			served = append(served, sa)
		}
		if err != nil {
			return fail(fmt.Errorf("agent %s: %w", path, err))
		}
		desc := sa.st.fm.Description
		var schema json.RawMessage
		if sa.isJSON && sa.st.fm.Output != nil {
			schema = sa.st.fm.Output.Schema
		}
		hopts.Agents = append(hopts.Agents, headend.Agent{Name: sa.name, Description: desc, JSON: sa.isJSON, Schema: schema, Run: sa.run,
			SessionsDir: sa.tpl.sessionsDir})
	}
	hopts.Stdin = io.NopCloser(stdin)
	hopts.Stdout = nopWriteCloser{stdout}
	hopts.Version = version
	hopts.Ready = func(kind, addr string) {
		fmt.Fprintf(stderr, "ai-agent: headend %s listening on %s\n", kind, addr)
	}
	hopts.Stopping = func() {
		fmt.Fprintln(stderr, "ai-agent: shutting down: new requests are refused; running sessions get --headend-grace to finish (a second signal ends them now)")
	}
	if err := headend.CheckAgents(hopts.Agents); err != nil {
		return fail(fmt.Errorf("%w: %w", config.ErrConfig, err))
	}
	if err := headendConfigs(specs, hopts, served[0].st.cfg, stderr); err != nil {
		return fail(err)
	}
	if a.bools["dry-run"] {
		log.Info("dry run: the agents load and the headends are valid")
		return exitOK
	}
	if err := headend.Serve(ctx, hopts, specs); err != nil {
		if isSpecErr(err) {
			return fail(fmt.Errorf("%w: %w", config.ErrConfig, err))
		}
		return fail(fmt.Errorf("%w: %w", errInit, err))
	}
	return exitOK
}

// headendSections are the config sections the headends of the command
// line read (slack for --slack, embed for --embed).
func headendSections(a *cliArgs) []string {
	var out []string
	for _, h := range a.headends {
		if h.kind == headend.KindSlack || h.kind == headend.KindEmbed {
			out = append(out, h.kind)
		}
	}
	return out
}

// headendOnly are the flags that only mean something in headend mode.
var headendOnly = []string{"openai-completions-concurrency", "anthropic-completions-concurrency", "mcp-concurrency", "api-concurrency", "embed-concurrency",
	"headend-queue", "headend-queue-timeout", "headend-grace", "headend-token", "listen-address", "insecure-no-token", "headend-max-body-bytes", "headend-max-cost-usd"}

// checkHeadendOnly refuses headend flags in a single run, where they
// would be silently ignored.
func checkHeadendOnly(a *cliArgs) error {
	if len(a.headends) > 0 {
		return nil
	}
	for _, k := range headendOnly {
		if a.has(k) {
			return fmt.Errorf("%w: --%s needs a headend (--openai-completions, --anthropic-completions, --mcp, --api, --embed or --slack)", config.ErrConfig, k)
		}
	}
	return nil
}

func isSpecErr(err error) bool { return err != nil && errors.Is(err, headend.ErrSpec) }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// headendSpecs turns the headend flags into specs with their concurrency.
func headendSpecs(a *cliArgs) ([]headend.Spec, error) {
	queue := 0
	if v, ok := a.values["headend-queue"]; ok {
		n, err := config.Int(v, 1)
		if err != nil {
			return nil, fmt.Errorf("--headend-queue: %w", err)
		}
		queue = n
	}
	var specs []headend.Spec
	for _, h := range a.headends {
		sp, err := headend.ParseSpec(h.kind, h.value)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", config.ErrConfig, err)
		}
		if v, ok := a.values[h.kind+"-concurrency"]; ok {
			n, err := config.Int(v, 1)
			if err != nil {
				return nil, fmt.Errorf("--%s-concurrency: %w", h.kind, err)
			}
			sp.Concurrency = n
		}
		sp.Queue = queue
		specs = append(specs, sp)
	}
	return specs, nil
}

// headendOptions reads the shared headend flags.
func headendOptions(a *cliArgs, log *slog.Logger) (headend.Options, error) {
	o := headend.Options{Logger: log, ListenAddress: a.values["listen-address"], InsecureNoToken: a.bools["insecure-no-token"]}
	o.Token = a.values["headend-token"]
	if o.Token == "" {
		o.Token = os.Getenv(headend.DefaultTokenEnv)
	}
	if v, ok := a.values["headend-grace"]; ok {
		d, err := config.ParseDuration(v)
		if err != nil {
			return o, fmt.Errorf("--headend-grace: %w", err)
		}
		o.Grace = d
	}
	if v, ok := a.values["headend-queue-timeout"]; ok {
		d, err := config.ParseDuration(v)
		if err != nil {
			return o, fmt.Errorf("--headend-queue-timeout: %w", err)
		}
		o.QueueTimeout = d
	}
	if v, ok := a.values["headend-max-body-bytes"]; ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 1 {
			return o, fmt.Errorf("%w: --headend-max-body-bytes must be a positive integer", config.ErrConfig)
		}
		o.MaxBodyBytes = n
	}
	return o, nil
}

// loadServed loads one .ai file for serving: frontmatter, config layers
// and settings as for a run, and its MCP servers started once.
func loadServed(ctx context.Context, d deps, a *cliArgs, path string, stderr io.Writer, log *slog.Logger, writeMu *sync.Mutex) (*servedAgent, error) {
	st := &startup{deps: d, a: a, log: log, stderr: stderr, dryRun: a.bools["dry-run"]}
	var err error
	if st.cwd, err = os.Getwd(); err != nil {
		return nil, fmt.Errorf("getwd: %w", err)
	}
	if st.sys, err = readPromptFile("--agent", path); err != nil {
		return nil, err
	}
	st.fm = &config.Frontmatter{Settings: map[string]any{}}
	if header, body, ok := config.SplitFrontmatter(st.sys.text); ok {
		st.sys.text = body
		if st.fm, err = config.ParseFrontmatter(header, filepath.Dir(st.sys.path)); err != nil {
			return nil, err
		}
		for _, w := range st.fm.Warnings {
			d.notes.warn(log, w, "agent", path)
		}
	}
	if err := st.loadConfig(); err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(st.sys.path), ".ai")
	sa := &servedAgent{name: name, st: st, writeMu: writeMu}
	sa.isJSON = st.fm.Output != nil && st.fm.Output.Format == "json"
	// Resolve the options once so that a bad setting fails at start.
	if err := st.resolve(a.cli(), false); err != nil {
		return nil, err
	}
	opts, err := st.options()
	if err != nil {
		return nil, err
	}
	sa.tpl = &sessionSetup{opts: opts, log: log, billingFile: st.set.BillingFile, sessionsDir: st.set.SessionsDir}
	st.served = name
	if err := st.startSharedMCP(ctx, sa.tpl); err != nil {
		return sa, err
	}
	return sa, nil
}

// startSharedMCP starts the agent's MCP servers, which its sessions share.
func (st *startup) startSharedMCP(ctx context.Context, s *sessionSetup) error {
	queues, err := st.queues()
	if err != nil {
		return err
	}
	src, err := st.cfg.ToolSources(st.set.Tools)
	if err != nil {
		return err
	}
	for _, e := range src.MCP {
		if err := st.startMCP(ctx, s, e, queues); err != nil {
			return err
		}
	}
	return nil
}

// run runs one session for a headend request: a normal session with the
// agent's limits, tools, billing file and sessions dir, and the request
// id as its transaction and origin id.
func (sa *servedAgent) run(ctx context.Context, req headend.Request) (contract.AIAgentResult, error) {
	base := sa.st
	cli := base.a.cli()
	delete(cli.Flags, "schema")
	if req.Format != "" {
		cli.Flags["format"] = req.Format
	} else if _, ok := cli.Flags["format"]; !ok && !sa.isJSON {
		cli.Flags["format"] = agent.FormatMarkdown
	}
	if len(req.Schema) > 0 {
		sch := bytes.TrimSpace(req.Schema)
		if len(sch) == 0 || sch[0] != '{' {
			return contract.AIAgentResult{}, fmt.Errorf("%w: the schema must be a JSON object", config.ErrConfig)
		}
		cli.Flags["schema"] = string(sch)
	}
	log := base.log.With("agent", sa.name, "request", req.ID)
	st := &startup{
		deps: base.deps, a: base.a, log: log, stderr: base.stderr, cwd: base.cwd,
		sys: base.sys, usr: prompt{text: req.Prompt}, fm: base.fm, cfg: base.cfg, sharedMCP: sa.tpl.mcp,
	}
	if err := st.resolve(cli, false); err != nil {
		return contract.AIAgentResult{}, err
	}
	opts, err := st.options()
	if err != nil {
		return contract.AIAgentResult{}, err
	}
	// The prompt is the client's text, as sent: no ${VAR} expansion.
	opts.UserPrompt = req.Prompt
	opts.History = req.History
	opts.ProgressOut = req.Progress
	if opts.ProgressOut == nil {
		opts.ProgressOut = io.Discard
	}
	opts.Trace = agent.Trace{AgentID: sa.name, CallPath: sa.name, TxnID: req.ID, OriginTxnID: req.ID}
	st.forHeadend(&opts, req.Headend)
	setup := &sessionSetup{opts: opts, log: log, billingFile: sa.tpl.billingFile, sessionsDir: sa.tpl.sessionsDir}
	defer setup.close()
	if err := st.tools(ctx, setup); err != nil {
		return contract.AIAgentResult{}, err
	}
	if err := st.cache(ctx, setup); err != nil {
		return contract.AIAgentResult{}, err
	}
	if setup.session, err = agent.New(setup.opts); err != nil {
		return contract.AIAgentResult{}, err
	}
	res := setup.run(ctx)
	all := append(res.Accounting, setup.children.accounting()...)
	sa.writeMu.Lock()
	if err := appendBilling(setup.billingFile, all); err != nil {
		log.Warn("billing file not written", "error", err)
	}
	sa.writeMu.Unlock()
	if err := writeSession(setup.sessionsDir, req.ID, res); err != nil {
		log.Warn("session file not written", "error", err)
	}
	res.Accounting = all
	return res, nil
}

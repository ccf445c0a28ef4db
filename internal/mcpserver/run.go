package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/google/uuid"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/heal/tiers"
	"github.com/salve-dev/salve/internal/isolation"
)

// HealInput is the input of the heal tool: the options of salve heal.
type HealInput struct {
	Workspace     string   `json:"workspace" jsonschema:"the repository to heal, or a folder inside it, on the server's host"`
	Cmd           string   `json:"cmd,omitempty" jsonschema:"the build command (default: detected from the project's marker files)"`
	ProjectType   string   `json:"project_type,omitempty" jsonschema:"override the detected project type (go, rust, node, python, maven, gradle, cmake, make)"`
	Fixers        []string `json:"fixers,omitempty" jsonschema:"the fixer tiers in order (the default list is in the schema)"`
	Models        []string `json:"models,omitempty" jsonschema:"llm targets in fallback order, as provider/model (default: the server's)"`
	MaxIterations int      `json:"max_iterations,omitempty" jsonschema:"the most fix iterations (default 5)"`
	MinConfidence float64  `json:"min_confidence,omitempty" jsonschema:"the fix gate's confidence threshold, above 0 and at most 1 (default 0.7)"`
	Branch        string   `json:"branch,omitempty" jsonschema:"the heal branch (default salve/heal-<run id>)"`
	Isolation     string   `json:"isolation,omitempty" jsonschema:"the build sandbox (default: the server's, which is also the floor: a call may not ask for none unless the server's is none, nor for another sandbox than the server's unless that is auto)"`
	Timeout       int      `json:"timeout,omitempty" jsonschema:"each build's time limit in seconds (default 300)"`
	KeepWorktree  bool     `json:"keep_worktree,omitempty" jsonschema:"leave the heal worktree in place after the run"`
	Push          bool     `json:"push,omitempty" jsonschema:"push the heal branch after each commit (only when the server allows it)"`
	Remote        string   `json:"remote,omitempty" jsonschema:"the remote to push to (default origin)"`
}

// ExecInput is the input of the exec tool.
type ExecInput struct {
	Workspace   string `json:"workspace" jsonschema:"the project directory on the server's host"`
	Cmd         string `json:"cmd,omitempty" jsonschema:"the build command (default: resolved from the project's marker files)"`
	ProjectType string `json:"project_type,omitempty" jsonschema:"override the detected project type (go, rust, node, python, maven, gradle, cmake, make)"`
	Timeout     int    `json:"timeout,omitempty" jsonschema:"seconds before the build is killed (default 300)"`
	Isolation   string `json:"isolation,omitempty" jsonschema:"the build sandbox (default: the server's, which is also the floor: a call may not ask for none unless the server's is none, nor for another sandbox than the server's unless that is auto)"`
}

// ExecOutput is the output of the exec tool: the ExecutorOutput, with the
// id of the run it was recorded under.
type ExecOutput struct {
	RunID string `json:"run_id" jsonschema:"the run id (for runs_show)"`
	contract.ExecutorOutput
}

func (s *Server) addRunTools() {
	healIn := mustSchema[HealInput]()
	enum(healIn, "isolation", isolation.Names()...)
	fixers := prop(healIn, "fixers")
	fixers.Description = tiers.FlagUsage()
	fixers.Items.Enum = nil
	for _, n := range tiers.Names() {
		fixers.Items.Enum = append(fixers.Items.Enum, n)
	}
	minimum(healIn, "max_iterations", 1)
	maximum(healIn, "max_iterations", 100)
	prop(healIn, "min_confidence").ExclusiveMinimum = ptr(0.0)
	maximum(healIn, "min_confidence", 1)
	minimum(healIn, "timeout", 1)
	sdk.AddTool(s.srv, &sdk.Tool{
		Name:  "heal",
		Title: "Heal a failing build",
		Description: "Fixes a failing build on a new branch, in its own git worktree: the user's checkout, index and branches are never touched. " +
			"Runs the build, parses the log into bug reports, asks the fixer tiers for minimal fixes, gates each fix (reported lines only, comments kept, confidence), " +
			"commits accepted fixes and re-runs the build, until it is green or max_iterations is reached. Returns the results: outcome, branch, commits and every bug with its status. " +
			"A red outcome is a result, not an error. Long: report progress with a progress token; cancelling the call stops the heal and removes its worktree. " +
			"Fixer tiers: " + tierDocs() + " The default is " + tiers.DefaultText() + ".",
		InputSchema:  healIn,
		OutputSchema: mustSchema[results.Results](),
		Annotations:  &sdk.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
	}, guard(s, "heal", s.heal))

	execIn := mustSchema[ExecInput]()
	enum(execIn, "isolation", isolation.Names()...)
	minimum(execIn, "timeout", 1)
	sdk.AddTool(s.srv, &sdk.Tool{
		Name:  "exec",
		Title: "Run a build",
		Description: "Runs a project's build and tests the way CI would, in a sandbox, and returns the ExecutorOutput: exit code, the log, an excerpt, the time taken and the environment. " +
			"A failing build is a result (exit_code), not an error.",
		InputSchema:  execIn,
		OutputSchema: mustSchema[ExecOutput](),
		Annotations:  &sdk.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
	}, guard(s, "exec", s.exec))
}

func (s *Server) heal(ctx context.Context, req *sdk.CallToolRequest, in HealInput) (*sdk.CallToolResult, *results.Results, error) {
	if s.opts.Heal == nil {
		return nil, nil, errors.New("heal is not available on this server")
	}
	ws, err := s.checkDir("workspace", in.Workspace)
	if err != nil {
		return nil, nil, err
	}
	in.Workspace = ws
	if in.Push && !s.opts.AllowPush {
		return nil, nil, errors.New("push is refused: this server was not started with --allow-push")
	}
	if err := tiers.Check(in.Fixers); err != nil {
		return nil, nil, fmt.Errorf("fixers: %w", err)
	}
	if in.Isolation, err = isolation.Resolve(s.opts.Isolation, in.Isolation); err != nil {
		return nil, nil, err
	}
	if in.Timeout == 0 {
		in.Timeout = contract.DefaultExecutorTimeoutSeconds
	}
	unlock, err := s.lockRepo(ctx, in.Workspace)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	release, err := s.acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	res, err := s.opts.Heal(ctx, in, s.progress(ctx, req))
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, nil, fmt.Errorf("heal cancelled: %w", err)
	case errors.Is(err, heal.ErrBadInput):
		return nil, nil, fmt.Errorf("heal: bad input: %w", err)
	case errors.Is(err, heal.ErrEnvironment):
		return nil, nil, fmt.Errorf("heal: something it needs is missing: %w", err)
	case err != nil:
		return nil, nil, fmt.Errorf("heal: %w", err)
	case res == nil:
		return nil, nil, errors.New("heal: no results")
	}
	return textResult(healText(res)), res, nil
}

// healText is the heal's summary for people: the verdict, then one line
// per fixed bug and per bug still there.
func healText(res *results.Results) string {
	var b strings.Builder
	fmt.Fprintf(&b, "heal %s after %d iteration(s): %s; branch %s, %d commit(s); run %s\n",
		res.Outcome, res.Iterations, res.Reason, res.Branch, len(res.Commits), res.RunID)
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	for _, bug := range res.Bugs {
		if bug.Status == results.StatusFixed {
			fmt.Fprintf(&b, "%s\n", bug.Line)
		}
	}
	for _, r := range res.Remaining {
		fmt.Fprintf(&b, "remaining: %s\n", r.String())
	}
	return b.String()
}

// tierDocs describes the fixer tiers in one line each, for the heal tool.
func tierDocs() string {
	var b strings.Builder
	for i, t := range tiers.Table {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s: %s (needs %s).", t.Name, t.Doc, t.Needs)
	}
	return b.String()
}

func (s *Server) exec(ctx context.Context, _ *sdk.CallToolRequest, in ExecInput) (*sdk.CallToolResult, *ExecOutput, error) {
	ws, err := s.checkDir("workspace", in.Workspace)
	if err != nil {
		return nil, nil, err
	}
	timeout := in.Timeout
	if timeout == 0 {
		timeout = contract.DefaultExecutorTimeoutSeconds
	}
	iso, err := isolation.Resolve(s.opts.Isolation, in.Isolation)
	if err != nil {
		return nil, nil, err
	}
	xin := contract.ExecutorInput{WorkspacePath: ws, ResolvedBuildCommand: in.Cmd, TimeoutSeconds: timeout}
	if in.ProjectType != "" {
		xin.ProjectType = &in.ProjectType
	}
	release, err := s.acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	runID := uuid.NewString()
	xo := executor.Options{Isolation: iso, PassEnv: executor.PassEnvFromEnv(s.opts.Getenv), RunID: runID, Logger: s.opts.Logger}
	if s.opts.StorePath != "" {
		st, err := s.openStore(ctx)
		if err != nil {
			s.opts.Logger.Warn("the execution will not be recorded", "error", err)
		} else {
			defer st.Close()
			xo.Recorder = executor.StoreRecorder{Store: st}
		}
	}
	out, err := executor.New(xo).Run(ctx, xin)
	switch {
	case errors.Is(err, executor.ErrBadInput):
		return nil, nil, fmt.Errorf("exec: %w", err)
	case errors.Is(err, executor.ErrRecord):
		s.opts.Logger.Warn("the execution was not recorded", "run_id", runID, "error", err)
	case err != nil && ctx.Err() != nil:
		return nil, nil, fmt.Errorf("exec cancelled: %w", err)
	case err != nil && out.EnvironmentMetadata.Isolation == "":
		return nil, nil, fmt.Errorf("exec: %w", err)
	}
	text := executor.Summary(runID, out) + "\n" + out.LogExcerpt
	return textResult(text), &ExecOutput{RunID: runID, ExecutorOutput: out}, nil
}

// progress returns the heal's progress sink: MCP progress notifications
// when the client asked for them with a progress token, and the server's
// log.
func (s *Server) progress(ctx context.Context, req *sdk.CallToolRequest) heal.Progress {
	p := &mcpProgress{ctx: ctx, s: s}
	if req != nil && req.Params != nil && req.Session != nil {
		if tok := req.Params.GetProgressToken(); tok != nil {
			p.session, p.token = req.Session, tok
		}
	}
	return p
}

// mcpProgress turns a heal's progress into progress notifications.
type mcpProgress struct {
	ctx     context.Context
	s       *Server
	session *sdk.ServerSession
	token   any

	mu sync.Mutex
	n  float64
}

func (p *mcpProgress) notify(msg string) {
	p.s.opts.Logger.Debug("heal progress", "message", msg)
	if p.session == nil {
		return
	}
	p.mu.Lock()
	p.n++
	n := p.n
	p.mu.Unlock()
	_ = p.session.NotifyProgress(p.ctx, &sdk.ProgressNotificationParams{ProgressToken: p.token, Progress: n, Message: msg})
}

// Stage implements heal.Progress.
func (p *mcpProgress) Stage(iteration int, stage string, fixed int) {
	p.notify(fmt.Sprintf("iteration %d: %s (%d fixed so far)", iteration, stage, fixed))
}

// Focus implements heal.Progress.
func (p *mcpProgress) Focus(bug string) { p.notify("fixing " + bug) }

// Log implements heal.Progress.
func (p *mcpProgress) Log(msg string, args ...any) {
	if len(args) > 0 {
		var b strings.Builder
		b.WriteString(msg)
		for i := 0; i+1 < len(args); i += 2 {
			fmt.Fprintf(&b, " %v=%v", args[i], args[i+1])
		}
		msg = b.String()
	}
	p.notify(msg)
}

// Done implements heal.Progress.
func (p *mcpProgress) Done() {}

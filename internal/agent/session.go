package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tooloutput"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/llm"
)

// ErrInvalid marks invalid session options (exit 4 in the CLI).
var ErrInvalid = errors.New("invalid session options")

// Session is one prepared ai-agent session. Create it with New, run it once
// with Run.
type Session struct {
	s *session
}

// session is the mutable state of one run.
type session struct {
	opts   Options
	log    *slog.Logger
	schema *Schema
	nonce  string

	registry map[string]*toolSpec
	// external lists the non-internal tools in registration order.
	external []*toolSpec

	conv   []contract.Message
	ledger ledger

	turnsDone     int
	finalAttempts int
	lastErr       string
	// finalAt is the turn that offers only the final report.
	finalAt int
	// finalFailed records that the last final-report attempt failed.
	finalFailed bool
	// forced records that the context guard forced the final turn.
	forced bool
	// budgetExceeded forbids new tools after a context overflow drop.
	budgetExceeded atomic.Bool
	// carryNotice is an ephemeral notice for the next turn's requests.
	carryNotice string

	report *contract.FinalReport
	fatal  *llm.Error
	// outputs keeps oversized tool outputs when toolOutput is enabled.
	outputs *tooloutput.Store

	// syntheticReason is set when the report is synthetic; costUSD and
	// budgets are the session's spending and caps (observe.go, budget.go).
	syntheticReason string
	costUSD         float64
	budgets         []*Budget
	// route is the destination a router chose (route.go).
	route routeState
}

// New validates the options and prepares a session. Errors wrap ErrInvalid
// (bad options) or ErrSchema (an output or tool schema that cannot be
// compiled).
func New(opts Options) (*Session, error) {
	opts.withDefaults()
	if len(opts.Targets) == 0 {
		return nil, fmt.Errorf("new session: %w: no model targets", ErrInvalid)
	}
	for i, t := range opts.Targets {
		if t.Client == nil {
			return nil, fmt.Errorf("new session: %w: target %d (%s/%s) has no client", ErrInvalid, i, t.Provider, t.Model)
		}
	}
	for i, m := range opts.History {
		if m.Role != contract.RoleUser && m.Role != contract.RoleAssistant {
			return nil, fmt.Errorf("new session: %w: history message %d has role %q (user or assistant only)", ErrInvalid, i, m.Role)
		}
	}
	if err := checkResume(opts.Resume); err != nil {
		return nil, fmt.Errorf("new session: %w", err)
	}
	switch opts.Transport {
	case TransportNative, TransportXML, TransportXMLFinal:
	default:
		return nil, fmt.Errorf("new session: %w: unknown transport %q", ErrInvalid, opts.Transport)
	}
	format, err := CanonicalFormat(opts.Format)
	if err != nil {
		return nil, fmt.Errorf("new session: %w: %v", ErrInvalid, err)
	}
	opts.Format = format
	s := &session{opts: opts, log: opts.Logger, nonce: opts.Nonce, finalAt: opts.MaxTurns}
	s.ledger.trace = opts.Trace
	if opts.Resume != nil {
		s.ledger.entries = append(s.ledger.entries, opts.Resume.Accounting...)
		s.turnsDone = opts.Resume.TurnsUsed
	}
	if opts.ToolOutput.Enabled {
		s.outputs = tooloutput.NewStore(0, 0)
	}
	if opts.MaxCostUSD > 0 {
		s.budgets = append(s.budgets, NewBudget("session maxCostUsd", opts.MaxCostUSD))
	}
	s.budgets = append(s.budgets, opts.Budgets...)
	if s.nonce == "" {
		s.nonce = newNonce()
	}
	if format == FormatJSON {
		if len(opts.Schema) == 0 {
			s.opts.Schema = []byte(`{"type":"object"}`)
		}
		if s.schema, err = s.opts.SchemaCompiler.Compile(s.opts.Schema); err != nil {
			return nil, fmt.Errorf("new session: output schema: %w", err)
		}
	}
	if err := s.register(); err != nil {
		return nil, fmt.Errorf("new session: %w", err)
	}
	return &Session{s: s}, nil
}

// Nonce is the session's XML nonce.
func (x *Session) Nonce() string { return x.s.nonce }

// Run runs the session to its end and returns its result. It never panics:
// an internal error becomes a failed result (docs/contracts/ai-agent.md §2).
func (x *Session) Run(ctx context.Context) (res contract.AIAgentResult) {
	s := x.s
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("internal error", "panic", r, "stack", string(debug.Stack()))
			res = s.result()
			res.Success = false
			res.FinalReport = nil
			res.Error = fmt.Sprintf("internal error: %v", r)
		}
	}()
	ctx, end := s.opts.Observer.StartSession(ctx, SessionInfo{Trace: s.opts.Trace, Headend: s.opts.Headend})
	defer func() {
		end(SessionEnd{Success: res.Success, Turns: s.turnsDone, ReportStatus: reportStatus(res), Error: res.Error, CostUSD: s.costUSD})
	}()
	s.run(ctx)
	if s.report != nil {
		s.opts.Observer.FinalReport(ctx, s.reportEvent())
	}
	return s.result()
}

// Run prepares and runs a session in one call. An option error becomes a
// failed result.
func Run(ctx context.Context, opts Options) contract.AIAgentResult {
	x, err := New(opts)
	if err != nil {
		return contract.AIAgentResult{Error: err.Error(), Conversation: []contract.Message{}, Accounting: []contract.AccountingEntry{}}
	}
	return x.Run(ctx)
}

// run is the turn loop (docs/contracts/ai-agent.md §1): at most MaxTurns
// turns; retries inside a turn do not count; the final turn offers only the
// final report.
func (s *session) run(ctx context.Context) {
	s.conv = make([]contract.Message, 0, len(s.opts.History)+2)
	s.conv = append(s.conv, contract.Message{Role: contract.RoleSystem, Content: s.systemPrompt()})
	s.conv = append(s.conv, s.opts.Resume.prior()...)
	s.conv = append(s.conv, s.opts.History...)
	s.conv = append(s.conv, contract.Message{Role: contract.RoleUser, Content: s.opts.UserPrompt})
	for turn := s.turnsDone + 1; turn <= s.opts.MaxTurns; turn++ {
		if cause := s.capReached(); cause != "" {
			s.setLastErr(cause)
			s.report = s.syntheticReport(ReasonCostCap)
			return
		}
		final := turn >= s.finalAt
		tctx, endTurn := s.opts.Observer.StartTurn(ctx, turn)
		s.runTurn(tctx, turn, final)
		endTurn()
		s.turnsDone = turn
		if s.routed() && s.report == nil && s.fatal == nil {
			s.log.Debug("router handed the request off; the session ends", "turn", turn)
			return
		}
		if s.report != nil || s.fatal != nil {
			return
		}
		if ctx.Err() != nil {
			s.fatal = &llm.Error{Class: llm.ClassFatal, Message: "session cancelled: " + ctx.Err().Error(), Err: ctx.Err()}
			return
		}
		if final || turn >= s.finalAt {
			break
		}
		if s.finalFailed && s.finalAt > turn+1 {
			s.log.Error("final report failed: remaining turns collapsed", "turn", turn)
			s.opts.Observer.RetryCollapse(ctx, "final_report_attempt")
			s.finalAt = turn + 1
		}
	}
	reason := contract.ReasonMaxTurns
	switch {
	case s.finalFailed:
		reason = contract.ReasonFinalReportFailed
	case s.forced:
		reason = contract.ReasonContextWindow
	}
	s.report = s.syntheticReport(reason)
}

// result assembles the AIAgentResult of the current state.
func (s *session) result() contract.AIAgentResult {
	res := contract.AIAgentResult{
		Conversation: append([]contract.Message{}, s.conv...),
		Accounting:   s.ledger.all(),
	}
	switch {
	case s.fatal != nil:
		res.Error = s.fatal.Message
		if res.Error == "" {
			res.Error = s.fatal.Error()
		}
	case s.report != nil && s.report.Status == contract.ReportSuccess:
		res.Success = true
		res.FinalReport = s.report
	case s.report != nil:
		res.FinalReport = s.report
		res.Error = *s.report.Content
	case s.routed():
		// A router that handed off succeeds without a report: the
		// destination gives it (docs/ai-agent.md, "Advisors, router and
		// handoff").
		res.Success = true
	default:
		res.Error = "session ended without a final report"
	}
	return res
}

// systemPrompt is the system message: the prompt, plus the final-report
// instruction in the native transport only
// (docs/contracts/ai-agent-cli.md §12).
func (s *session) systemPrompt() string {
	prompt := s.opts.SystemPrompt
	if len(s.opts.Routes) > 0 {
		prompt += routerInstructions(s.opts.Routes)
	}
	if s.opts.Transport != TransportNative {
		return prompt
	}
	return prompt + fmt.Sprintf("\n\nWhen your work is done, call the %s tool with report_format %q to deliver your answer; "+
		"plain text without a tool call is ignored.", ToolFinalReport, s.opts.Format)
}

// toolSpec is one tool offered to the model.
type toolSpec struct {
	tools.Tool
	prov     tools.Provider
	internal bool
	schema   *Schema
}

// register collects the tools of every provider and compiles their input
// schemas.
func (s *session) register() error {
	s.registry = map[string]*toolSpec{}
	for _, p := range s.opts.Tools {
		for _, t := range p.Tools() {
			if s.opts.ToolFilter != nil && !s.opts.ToolFilter(t) {
				continue
			}
			if err := s.registerTool(p, t); err != nil {
				return err
			}
		}
	}
	for _, spec := range internalTools(s.opts.Format, s.opts.Schema) {
		s.registry[spec.Name] = spec
	}
	if s.outputs != nil {
		s.registry[ToolOutput] = toolOutputSpec()
	}
	if len(s.opts.Routes) > 0 {
		s.registry[ToolRouterHandoff] = routerSpec(s.opts.Routes)
	}
	return nil
}

// registerTool adds one external tool, compiling its input schema.
func (s *session) registerTool(p tools.Provider, t tools.Tool) error {
	if _, dup := s.registry[t.Name]; dup {
		return fmt.Errorf("register tool %s: %w: duplicate name", t.Name, ErrInvalid)
	}
	spec := &toolSpec{Tool: t, prov: p}
	if len(t.InputSchema) > 0 {
		sch, err := s.opts.SchemaCompiler.Compile(t.InputSchema)
		if err != nil {
			return fmt.Errorf("tool %s input schema: %w", t.Name, err)
		}
		spec.schema = sch
	}
	s.registry[t.Name] = spec
	s.external = append(s.external, spec)
	return nil
}

// offered lists the tools a turn offers, final report excluded; on a final
// turn it is only the router's tool, when the session has one.
func (s *session) offered(final bool) []*toolSpec {
	var route []*toolSpec
	if r := s.registry[ToolRouterHandoff]; r != nil {
		route = []*toolSpec{r}
	}
	if final || s.budgetExceeded.Load() {
		return route
	}
	out := append([]*toolSpec{}, s.external...)
	if s.opts.Progress && len(s.external) > 0 {
		out = append(out, s.registry[ToolProgress])
	}
	if s.opts.Batch {
		out = append(out, s.registry[ToolBatch])
	}
	if s.outputs != nil && s.outputs.Len() > 0 {
		out = append(out, s.registry[ToolOutput])
	}
	return append(out, route...)
}

// routed reports whether a router__handoff-to call chose a destination.
func (s *session) routed() bool {
	_, ok := s.route.get()
	return ok
}

func (s *session) setLastErr(msg string) {
	s.lastErr = strings.TrimSpace(msg)
}

package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/logparse"
	"github.com/salve-dev/salve/internal/store"
)

// ParseInput is the input of the parse tool.
type ParseInput struct {
	Log       string `json:"log" jsonschema:"the build log text (combined stdout and stderr)"`
	Workspace string `json:"workspace,omitempty" jsonschema:"the checkout on the server's host; its files are indexed so that paths in the log are matched by suffix"`
	Root      string `json:"root,omitempty" jsonschema:"the workspace root as the log sees it (for example /home/runner/work/app/app); absolute paths under it become repository-relative"`
}

// ParseOutput is the output of the parse tool.
type ParseOutput struct {
	Reports []contract.BugReport `json:"reports" jsonschema:"the located errors, in log order"`
	Count   int                  `json:"count" jsonschema:"the number of reports"`
}

// RunsListInput is the input of the runs_list tool.
type RunsListInput struct {
	Kind   string `json:"kind,omitempty" jsonschema:"only runs of this kind"`
	Status string `json:"status,omitempty" jsonschema:"only runs with this status (for example green, red, passed, failed, running)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many runs, newest first (default 50)"`
}

// RunsListOutput is the output of the runs_list tool.
type RunsListOutput struct {
	Runs []store.Run `json:"runs" jsonschema:"the runs, newest first"`
}

// RunsShowInput is the input of the runs_show tool.
type RunsShowInput struct {
	Run string `json:"run" jsonschema:"a run id, a unique prefix of one, or latest"`
}

// maxRunsLimit bounds runs_list's limit.
const maxRunsLimit = 1000

func (s *Server) addTools() {
	parseIn := mustSchema[ParseInput]()
	sdk.AddTool(s.srv, &sdk.Tool{
		Name:         "parse",
		Title:        "Parse a build log",
		Description:  "Finds the located errors in a build log: file, line, error type and message for each, as bug reports. Deterministic (no LLM); reads the formats of Go, Rust, C/C++, Java, Python, JavaScript/TypeScript and common linters and test runners.",
		InputSchema:  parseIn,
		OutputSchema: mustSchema[ParseOutput](),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, guard(s, "parse", s.parse))

	listIn := mustSchema[RunsListInput]()
	enum(listIn, "kind", store.KindTool, store.KindExec, store.KindHeal)
	minimum(listIn, "limit", 1)
	maximum(listIn, "limit", maxRunsLimit)
	sdk.AddTool(s.srv, &sdk.Tool{
		Name:         "runs_list",
		Title:        "List recorded runs",
		Description:  "Lists the runs in salve's run store (heals, executions, tool runs), newest first.",
		InputSchema:  listIn,
		OutputSchema: mustSchema[RunsListOutput](),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, guard(s, "runs_list", s.runsList))

	sdk.AddTool(s.srv, &sdk.Tool{
		Name:         "runs_show",
		Title:        "Show a recorded run",
		Description:  "Shows everything recorded under one run: its header, stages, tool runs, patches, events, artifacts, accounting and child runs.",
		InputSchema:  mustSchema[RunsShowInput](),
		OutputSchema: mustSchema[store.RunView](),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, guard(s, "runs_show", s.runsShow))

	s.addRunTools()
}

func ptr[T any](v T) *T { return &v }

// textResult is a result whose text content is text; the SDK adds the
// structured content.
func textResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

func (s *Server) parse(_ context.Context, _ *sdk.CallToolRequest, in ParseInput) (*sdk.CallToolResult, ParseOutput, error) {
	opts := logparse.Options{Root: in.Root}
	if in.Workspace != "" {
		ws, err := s.checkDir("workspace", in.Workspace)
		if err != nil {
			return nil, ParseOutput{}, err
		}
		opts.Workspace = ws
	} else if in.Root != "" {
		// A root that exists here is the checkout itself: index it, as
		// salve parse does, when the server may read it.
		if st, err := os.Stat(in.Root); err == nil && st.IsDir() {
			if ws, err := s.checkDir("root", in.Root); err == nil {
				opts.Workspace = ws
			}
		}
	}
	reports, err := logparse.Parse(strings.NewReader(in.Log), opts)
	if err != nil {
		return nil, ParseOutput{}, fmt.Errorf("parse: %w", err)
	}
	if reports == nil {
		reports = []contract.BugReport{}
	}
	var b strings.Builder
	if len(reports) == 0 {
		b.WriteString("no located errors in the log\n")
	}
	for _, r := range reports {
		b.WriteString(r.String())
		b.WriteByte('\n')
	}
	return textResult(b.String()), ParseOutput{Reports: reports, Count: len(reports)}, nil
}

// openStore opens the run store, or says why there is none.
func (s *Server) openStore(ctx context.Context) (*store.Store, error) {
	if s.opts.StorePath == "" {
		return nil, errors.New("this server has no run store (it was started with --no-store)")
	}
	st, err := store.OpenContext(ctx, s.opts.StorePath)
	if err != nil {
		return nil, fmt.Errorf("open the run store: %w", err)
	}
	return st, nil
}

func (s *Server) runsList(ctx context.Context, _ *sdk.CallToolRequest, in RunsListInput) (*sdk.CallToolResult, RunsListOutput, error) {
	st, err := s.openStore(ctx)
	if err != nil {
		return nil, RunsListOutput{}, err
	}
	defer st.Close()
	limit := in.Limit
	if limit <= 0 {
		limit = store.DefaultListLimit
	}
	runs, err := st.ListRuns(ctx, store.RunFilter{Kind: in.Kind, Status: in.Status, Limit: min(limit, maxRunsLimit)})
	if err != nil {
		return nil, RunsListOutput{}, fmt.Errorf("list runs: %w", err)
	}
	if runs == nil {
		runs = []store.Run{}
	}
	var b strings.Builder
	if len(runs) == 0 {
		b.WriteString("no runs\n")
	}
	for _, r := range runs {
		fmt.Fprintf(&b, "%s %s %s %s %s\n", r.RunID, r.Kind, r.Status, r.StartedAt, r.Title)
	}
	return textResult(b.String()), RunsListOutput{Runs: runs}, nil
}

func (s *Server) runsShow(ctx context.Context, _ *sdk.CallToolRequest, in RunsShowInput) (*sdk.CallToolResult, store.RunView, error) {
	ref := strings.TrimSpace(in.Run)
	if ref == "" {
		return nil, store.RunView{}, errors.New("run is required: a run id, a unique prefix of one, or latest")
	}
	st, err := s.openStore(ctx)
	if err != nil {
		return nil, store.RunView{}, err
	}
	defer st.Close()
	id, err := st.ResolveRunID(ctx, ref)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, store.RunView{}, fmt.Errorf("no run %q in the run store", ref)
	case errors.Is(err, store.ErrAmbiguous):
		return nil, store.RunView{}, fmt.Errorf("run %q is ambiguous: give more of its id", ref)
	case err != nil:
		return nil, store.RunView{}, fmt.Errorf("resolve run %q: %w", ref, err)
	}
	v, err := st.View(ctx, id)
	if err != nil {
		return nil, store.RunView{}, fmt.Errorf("read run %s: %w", id, err)
	}
	r := v.Run
	text := fmt.Sprintf("run %s: kind %s, status %s, started %s", r.RunID, r.Kind, r.Status, r.StartedAt)
	if r.CompletedAt != "" {
		text += ", completed " + r.CompletedAt
	}
	if r.Title != "" {
		text += "\n" + r.Title
	}
	text += fmt.Sprintf("\n%d stage(s), %d tool run(s), %d patch(es), %d event(s), %d artifact(s), %d child run(s)\n",
		len(v.Stages), len(v.ToolRuns), len(v.Patches), len(v.Events), len(v.Artifacts), len(v.Children))
	return textResult(text), v, nil
}

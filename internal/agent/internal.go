package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/salve-dev/salve/internal/agent/tools"
)

// internalTools are the engine's own tools
// (docs/contracts/ai-agent-cli.md §11).
func internalTools(format string, schema json.RawMessage) []*toolSpec {
	mk := func(name, desc, sch string) *toolSpec {
		spec := &toolSpec{Tool: tools.Tool{Name: name, Server: "agent", Kind: tools.KindInternal, Description: desc, InputSchema: json.RawMessage(sch)}, internal: true}
		if s, err := CompileSchema(spec.InputSchema); err == nil {
			spec.schema = s
		}
		return spec
	}
	final := &toolSpec{Tool: tools.Tool{Name: ToolFinalReport, Server: "agent", Kind: tools.KindInternal,
		Description: "Deliver the final report of the session, in the expected format. Call it once, when the work is done.",
		InputSchema: finalReportSchema(format, schema)}, internal: true}
	return []*toolSpec{
		final,
		mk(ToolProgress, "Report progress to the user in one short sentence.",
			`{"type":"object","properties":{"progress":{"type":"string"}},"required":["progress"]}`),
		mk(ToolBatch, "Run several tools at once. Each call names a tool and its parameters; results come back together.",
			`{"type":"object","properties":{"calls":{"type":"array","minItems":1,"items":{"type":"object","properties":{"id":{"type":["string","number"]},"tool":{"type":"string"},"parameters":{"type":"object"}},"required":["id","tool"]}}},"required":["calls"]}`),
	}
}

// callInternal runs agent__progress_report and agent__batch.
func (s *session) callInternal(ctx context.Context, name string, args json.RawMessage, source string) (string, error) {
	switch name {
	case ToolProgress:
		var in struct {
			Progress string `json:"progress"`
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return "", fmt.Errorf("progress report: %w", err)
		}
		_, _ = fmt.Fprintf(s.opts.ProgressOut, "progress: %s\n", strings.TrimSpace(in.Progress))
		return `{"ok":true}`, nil
	case ToolBatch:
		return s.runBatch(ctx, args, source)
	case ToolOutput:
		return s.extractOutput(ctx, args)
	case ToolRouterHandoff:
		return s.callRouter(args)
	default:
		return "", fmt.Errorf("internal tool %s cannot be called here", name)
	}
}

type batchCall struct {
	ID         json.RawMessage `json:"id"`
	Tool       string          `json:"tool"`
	Parameters json.RawMessage `json:"parameters"`
}

type batchError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type batchResult struct {
	ID        json.RawMessage `json:"id"`
	Tool      string          `json:"tool"`
	OK        bool            `json:"ok"`
	ElapsedMs int64           `json:"elapsedMs"`
	Output    *string         `json:"output,omitempty"`
	Error     *batchError     `json:"error,omitempty"`
}

func batchSize(args json.RawMessage) int {
	var in struct {
		Calls []batchCall `json:"calls"`
	}
	if json.Unmarshal(args, &in) != nil {
		return 1
	}
	return len(in.Calls)
}

// runBatch runs the calls of agent__batch concurrently, outside the queues.
// Each output is truncated on its own; the batch output never is.
func (s *session) runBatch(ctx context.Context, args json.RawMessage, source string) (string, error) {
	var in struct {
		Calls []batchCall `json:"calls"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return "", fmt.Errorf("batch: %w", err)
	}
	results := make([]batchResult, len(in.Calls))
	var wg sync.WaitGroup
	for i, c := range in.Calls {
		results[i] = batchResult{ID: c.ID, Tool: c.Tool}
		spec, errRes := s.batchTarget(c)
		if errRes != nil {
			results[i].Error = errRes
			continue
		}
		params := c.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage("{}")
		}
		if spec.schema != nil {
			if err := spec.schema.Validate(params); err != nil {
				results[i].Error = &batchError{Code: "EXECUTION_ERROR", Message: "invalid arguments: " + oneLine(err.Error())}
				continue
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			r := s.runTool(ctx, spec, params, source, true)
			results[i].ElapsedMs = time.Since(start).Milliseconds()
			if r.failed {
				results[i].Error = &batchError{Code: r.code, Message: r.reason}
				return
			}
			results[i].OK = true
			results[i].Output = &r.text
		}()
	}
	wg.Wait()
	out, err := json.Marshal(map[string]any{"results": results})
	if err != nil {
		return "", fmt.Errorf("batch: %w", err)
	}
	return string(out), nil
}

func (s *session) batchTarget(c batchCall) (*toolSpec, *batchError) {
	switch c.Tool {
	case ToolFinalReport, ToolBatch:
		return nil, &batchError{Code: "INTERNAL_NOT_ALLOWED", Message: c.Tool + " cannot run inside a batch"}
	}
	if s.budgetExceeded.Load() {
		return nil, &batchError{Code: "context_window_budget_exceeded", Message: "context window budget exceeded"}
	}
	spec := s.registry[c.Tool]
	if spec == nil || (spec.internal && c.Tool != ToolProgress && c.Tool != ToolOutput) {
		return nil, &batchError{Code: "UNKNOWN_TOOL", Message: fmt.Sprintf("unknown tool '%s'", c.Tool)}
	}
	return spec, nil
}

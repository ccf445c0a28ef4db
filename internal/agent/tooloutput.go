package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tooloutput"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/llm"
)

// ToolOutput is the extraction tool of oversized tool outputs
// (docs/ai-agent.md, "Oversized tool outputs").
const ToolOutput = tooloutput.Tool

// toolOutputSpec is the internal tool_output tool, offered once the
// session's store holds an entry.
func toolOutputSpec() *toolSpec {
	spec := &toolSpec{Tool: tools.Tool{Name: ToolOutput, Server: "tool-output", Kind: tools.KindInternal,
		Description: tooloutput.Description, InputSchema: json.RawMessage(tooloutput.InputSchema)}, internal: true}
	if sch, err := CompileSchema(spec.InputSchema); err == nil {
		spec.schema = sch
	}
	return spec
}

// shrink applies toolResponseMaxBytes to one output: with the store on, an
// oversized output is kept under a handle and the model gets the handle
// message; otherwise it is truncated with the contract's notice
// (docs/contracts/ai-agent.md §1).
func (s *session) shrink(spec *toolSpec, args json.RawMessage, out string) string {
	limit := s.opts.ToolResponseMaxBytes
	if limit <= 0 || len(out) <= limit {
		return out
	}
	if s.outputs != nil && spec.Name != ToolOutput {
		e := s.outputs.Put(spec.Name, string(args), out, s.opts.Now())
		s.log.Warn(fmt.Sprintf("Tool '%s' output stored for tool_output (size_cap).", spec.Name), "tool", spec.Name,
			"handle", e.Handle, "reason", "size_cap", "bytes", e.Bytes, "lines", e.Lines, "tokens", e.Tokens)
		return tooloutput.HandleMessage(e)
	}
	text, info := tools.Truncate(out, limit)
	s.log.Warn("tool response truncated", "tool", spec.Name, "actual_bytes", info.OriginalBytes, "limit_bytes", info.LimitBytes)
	return text
}

// extractOutput runs tool_output.
func (s *session) extractOutput(ctx context.Context, args json.RawMessage) (string, error) {
	var in struct {
		Handle  string `json:"handle"`
		Extract string `json:"extract"`
		Mode    string `json:"mode"`
	}
	_ = json.Unmarshal(args, &in)
	mode := in.Mode
	switch mode {
	case tooloutput.ModeFullChunked, tooloutput.ModeReadGrep, tooloutput.ModeTruncate, tooloutput.ModeLines, tooloutput.ModeGrep:
	default:
		mode = tooloutput.ModeAuto
	}
	if strings.TrimSpace(in.Handle) == "" || strings.TrimSpace(in.Extract) == "" {
		return tooloutput.Failure(ToolOutput, in.Handle, mode, "Invalid tool_output parameters: handle and extract are required."), nil
	}
	if s.outputs == nil {
		return tooloutput.NotFound(in.Handle), nil
	}
	e, ok := s.outputs.Get(in.Handle)
	if !ok {
		return tooloutput.NotFound(in.Handle), nil
	}
	limit := s.opts.ToolResponseMaxBytes
	cfg := s.opts.ToolOutput.WithDefaults()
	chunkBytes := s.chunkBytes()
	if mode == tooloutput.ModeAuto {
		n := len(tooloutput.Chunks(e.Content, chunkBytes, cfg.OverlapPercent))
		mode = tooloutput.ModeReadGrep
		if e.AvgLineBytes() >= cfg.AvgLineBytesThreshold || n <= cfg.MaxChunks {
			mode = tooloutput.ModeFullChunked
		}
	}
	switch mode {
	case tooloutput.ModeLines:
		body, err := tooloutput.Lines(e.Content, in.Extract)
		if err != nil {
			return tooloutput.Failure(e.Tool, e.Handle, mode, err.Error()), nil
		}
		return tooloutput.Success(e, mode, body, limit), nil
	case tooloutput.ModeGrep, tooloutput.ModeReadGrep:
		return tooloutput.Success(e, mode, tooloutput.Grep(e.Content, in.Extract), limit), nil
	case tooloutput.ModeFullChunked:
		body, err := s.chunkedExtract(ctx, e, in.Extract, chunkBytes, cfg)
		if err == nil {
			return tooloutput.Success(e, mode, body, limit), nil
		}
		s.log.Warn("tool_output extraction failed; falling back to truncate", "handle", e.Handle, "error", err)
		prefix := tooloutput.FallbackPrefix("full-chunked failed")
		return tooloutput.Success(e, tooloutput.ModeTruncate, prefix+e.Content, limit), nil
	default:
		return tooloutput.Success(e, tooloutput.ModeTruncate, e.Content, limit), nil
	}
}

// chunkBytes is the size of one full-chunked piece: what remains of the
// first target's context window after its buffer, its output tokens and a
// prompt allowance, at four bytes a token.
func (s *session) chunkBytes() int {
	t := s.opts.Targets[0]
	window := t.ContextWindow
	if window <= 0 {
		window = 32768
	}
	budget := window - t.ContextWindowBufferTokens - t.Params.MaxOutputTokens - 1024
	return max(512, budget*4)
}

// chunkedExtract asks the session's first target, without tools, to extract
// from each chunk (map) and, with several chunks, to merge the answers
// (reduce). The calls are accounted in the session's ledger.
func (s *session) chunkedExtract(ctx context.Context, e *tooloutput.Entry, extract string, chunkBytes int, cfg tooloutput.Config) (string, error) {
	chunks := tooloutput.Chunks(e.Content, chunkBytes, cfg.OverlapPercent)
	if len(chunks) > cfg.MaxChunks {
		return "", fmt.Errorf("%d chunks needed, maxChunks is %d", len(chunks), cfg.MaxChunks)
	}
	answers := make([]string, 0, len(chunks))
	for i, c := range chunks {
		prompt := fmt.Sprintf("Below is part %d of %d of the output of the tool %s (called with %s).\n"+
			"Extract: %s\n\nAnswer with the extracted information only, verbatim where it matters. "+
			"If this part holds nothing relevant, answer exactly %s.\n\n---\n%s", i+1, len(chunks), e.Tool, e.Args, extract, tooloutput.NoData, c)
		a, err := s.ask(ctx, prompt)
		if err != nil {
			return "", err
		}
		answers = append(answers, a)
	}
	if len(answers) == 1 {
		return answers[0], nil
	}
	prompt := fmt.Sprintf("These are extractions from %d parts of one tool output.\nExtract: %s\n\n"+
		"Merge them into one answer; drop the parts that say %s. If all do, answer exactly %s.\n\n---\n%s",
		len(answers), extract, tooloutput.NoData, tooloutput.NoData, strings.Join(answers, "\n---\n"))
	return s.ask(ctx, prompt)
}

// ask sends one tool-less request to the first target and returns its text.
func (s *session) ask(ctx context.Context, prompt string) (string, error) {
	t := s.opts.Targets[0]
	req := llm.Request{Model: t.Model, MaxOutputTokens: t.Params.MaxOutputTokens, Temperature: t.Params.Temperature,
		Messages: []llm.Message{
			{Role: contract.RoleSystem, Content: "You extract information from tool outputs, precisely and completely."},
			{Role: contract.RoleUser, Content: prompt}},
		Session: llm.SessionInfo{ProviderName: t.Provider, Transport: TransportNative}}
	resp, err := s.call(ctx, t, req, 1)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(resp.Content) == "" {
		return "", fmt.Errorf("empty extraction answer")
	}
	return strings.TrimSpace(resp.Content), nil
}

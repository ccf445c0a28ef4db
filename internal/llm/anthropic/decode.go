package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/internal/wire"
)

type msgResponse struct {
	Type       string    `json:"type"`
	Model      string    `json:"model"`
	Content    []block   `json:"content"`
	StopReason string    `json:"stop_reason"`
	Usage      usage     `json:"usage"`
	Error      *apiError `json:"error"`
}

type apiError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

type usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// merge takes the non-zero counts of u2 (message_delta carries the final
// output count, and sometimes the input counts again).
func (u *usage) merge(u2 usage) {
	if u2.InputTokens > 0 {
		u.InputTokens = u2.InputTokens
	}
	if u2.OutputTokens > 0 {
		u.OutputTokens = u2.OutputTokens
	}
	if u2.CacheCreationInputTokens > 0 {
		u.CacheCreationInputTokens = u2.CacheCreationInputTokens
	}
	if u2.CacheReadInputTokens > 0 {
		u.CacheReadInputTokens = u2.CacheReadInputTokens
	}
}

// tokens converts the usage: InputTokens counts every prompt token that was
// not a cache read (cache writes included), so that input + output + cache
// read is the context size, as for every provider (docs/llm.md).
func (u usage) tokens() contract.TokenUsage {
	out := contract.TokenUsage{
		InputTokens:  u.InputTokens + u.CacheCreationInputTokens,
		OutputTokens: u.OutputTokens,
		TotalTokens:  u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens + u.OutputTokens,
	}
	if u.CacheReadInputTokens > 0 {
		c, r := u.CacheReadInputTokens, u.CacheReadInputTokens
		out.CachedTokens, out.CacheReadInputTokens = &c, &r
	}
	if u.CacheCreationInputTokens > 0 {
		w := u.CacheCreationInputTokens
		out.CacheWriteInputTokens = &w
	}
	return out
}

func (p *Provider) decode(body []byte) (llm.Response, error) {
	var r msgResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return llm.Response{}, llm.InvalidResponse("anthropic: decode response", err)
	}
	if r.Type == "error" || r.Error != nil {
		e := r.Error
		if e == nil {
			e = &apiError{}
		}
		return llm.Response{}, llm.ClassifyStreamError("anthropic", e.Type, e.Message, p.ep.Secrets...)
	}
	if r.Type != "message" {
		return llm.Response{}, llm.InvalidResponse("anthropic: decode response", fmt.Errorf("type %q is not a message", r.Type))
	}
	return fromBlocks(r.Content, r.StopReason, r.Model, r.Usage), nil
}

// fromBlocks builds the response from the content blocks in order.
func fromBlocks(blocks []block, stop, model string, u usage) llm.Response {
	out := llm.Response{StopReason: stop, ActualModel: model, Usage: u.tokens()}
	var text strings.Builder
	for i, b := range blocks {
		switch b.Type {
		case "text":
			if b.Text != nil {
				text.WriteString(*b.Text)
			}
		case "thinking":
			var t string
			if b.Thinking != nil {
				t = *b.Thinking
			}
			out.Reasoning = append(out.Reasoning, reasoningPart(t, b.Signature, ""))
		case "redacted_thinking":
			out.Reasoning = append(out.Reasoning, reasoningPart("", "", b.Data))
		case "tool_use":
			id := b.ID
			if id == "" {
				id = fmt.Sprintf("toolu_%d", i+1)
			}
			args := string(b.Input)
			if args == "" || args == "null" {
				args = "{}"
			}
			out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: id, Name: b.Name, Arguments: args})
		}
	}
	out.Content = text.String()
	return out
}

func reasoningPart(text, signature, redacted string) contract.ReasoningPart {
	var meta signatureMeta
	meta.Anthropic.Signature = signature
	meta.Anthropic.RedactedData = redacted
	part := contract.ReasoningPart{Type: "reasoning", Text: text}
	if signature != "" || redacted != "" {
		part.ProviderMetadata, _ = json.Marshal(meta)
	}
	return part
}

// streamEvent is any event of a Messages stream.
type streamEvent struct {
	Type         string          `json:"type"`
	Message      *msgResponse    `json:"message"`
	Index        int             `json:"index"`
	ContentBlock *block          `json:"content_block"`
	Delta        json.RawMessage `json:"delta"`
	Usage        *usage          `json:"usage"`
	Error        *apiError       `json:"error"`
}

type blockDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	PartialJSON string `json:"partial_json"`
	StopReason  string `json:"stop_reason"`
}

// streamState gathers the blocks of a stream by index.
type streamState struct {
	blocks  map[int]*block
	args    map[int]*strings.Builder
	text    map[int]*strings.Builder
	model   string
	stop    string
	usage   usage
	done    bool
	onDelta func(llm.Delta)
}

func (s *streamState) blockAt(i int) *block {
	if s.blocks[i] == nil {
		s.blocks[i] = &block{}
		s.text[i] = &strings.Builder{}
		s.args[i] = &strings.Builder{}
	}
	return s.blocks[i]
}

func (s *streamState) emit(d llm.Delta) {
	if s.onDelta != nil {
		s.onDelta(d)
	}
}

// apply folds one event into the state.
func (s *streamState) apply(ev *streamEvent, secrets []string) error {
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			s.model = ev.Message.Model
			s.usage.merge(ev.Message.Usage)
		}
	case "content_block_start":
		if ev.ContentBlock == nil {
			return llm.InvalidResponse("anthropic: content_block_start without content_block", nil)
		}
		b := s.blockAt(ev.Index)
		*b = *ev.ContentBlock
		if b.Text != nil {
			s.text[ev.Index].WriteString(*b.Text)
		}
		if b.Thinking != nil {
			s.text[ev.Index].WriteString(*b.Thinking)
		}
	case "content_block_delta":
		var d blockDelta
		if err := json.Unmarshal(ev.Delta, &d); err != nil {
			return llm.InvalidResponse("anthropic: decode delta", err)
		}
		s.applyDelta(ev.Index, d)
	case "message_delta":
		var d blockDelta
		_ = json.Unmarshal(ev.Delta, &d)
		if d.StopReason != "" {
			s.stop = d.StopReason
		}
		if ev.Usage != nil {
			s.usage.merge(*ev.Usage)
		}
	case "message_stop":
		s.done = true
	case "error":
		e := ev.Error
		if e == nil {
			e = &apiError{}
		}
		return llm.ClassifyStreamError("anthropic", e.Type, e.Message, secrets...)
	}
	return nil
}

func (s *streamState) applyDelta(i int, d blockDelta) {
	b := s.blockAt(i)
	switch d.Type {
	case "text_delta":
		if b.Type == "" {
			b.Type = "text"
		}
		s.text[i].WriteString(d.Text)
		s.emit(llm.Delta{Text: d.Text})
	case "thinking_delta":
		if b.Type == "" {
			b.Type = "thinking"
		}
		s.text[i].WriteString(d.Thinking)
		s.emit(llm.Delta{Reasoning: d.Thinking})
	case "signature_delta":
		b.Signature += d.Signature
	case "input_json_delta":
		s.args[i].WriteString(d.PartialJSON)
	}
}

func (s *streamState) response() llm.Response {
	idx := make([]int, 0, len(s.blocks))
	for i := range s.blocks {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	blocks := make([]block, 0, len(idx))
	for _, i := range idx {
		b := *s.blocks[i]
		t := s.text[i].String()
		switch b.Type {
		case "text":
			b.Text = &t
		case "thinking":
			b.Thinking = &t
		case "tool_use":
			if a := s.args[i].String(); a != "" {
				b.Input = json.RawMessage(a)
			}
		}
		blocks = append(blocks, b)
	}
	return fromBlocks(blocks, s.stop, s.model, s.usage)
}

// readStream reads the SSE events of a Messages stream to message_stop. A
// stream that ends without it is accepted when message_delta gave a stop
// reason, and is otherwise a truncated, invalid response.
func (p *Provider) readStream(ctx context.Context, resp *http.Response, onDelta func(llm.Delta)) (llm.Response, error) {
	s := &streamState{blocks: map[int]*block{}, args: map[int]*strings.Builder{}, text: map[int]*strings.Builder{}, onDelta: onDelta}
	r := wire.NewSSEReader(resp.Body)
	for !s.done {
		ev, err := r.Next()
		if err == io.EOF {
			if s.stop != "" {
				break
			}
			return llm.Response{}, llm.InvalidResponse("anthropic: stream ended early", errors.New("no message_stop"))
		}
		if err != nil {
			return llm.Response{}, p.ep.ReadError(ctx, err)
		}
		var se streamEvent
		if err := json.Unmarshal(ev.Data, &se); err != nil {
			return llm.Response{}, llm.InvalidResponse("anthropic: decode event "+ev.Name, err)
		}
		if se.Type == "" {
			se.Type = ev.Name
		}
		if err := s.apply(&se, p.ep.Secrets); err != nil {
			return llm.Response{}, err
		}
	}
	return s.response(), nil
}

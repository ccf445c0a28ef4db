package google

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/internal/wire"
)

// genResponse is a whole answer or one chunk of a stream.
type genResponse struct {
	Candidates     []candidate     `json:"candidates"`
	PromptFeedback *promptFeedback `json:"promptFeedback"`
	UsageMetadata  *usage          `json:"usageMetadata"`
	ModelVersion   string          `json:"modelVersion"`
	Error          *apiError       `json:"error"`
}

type candidate struct {
	Content      *content `json:"content"`
	FinishReason string   `json:"finishReason"`
	Index        int      `json:"index"`
}

type promptFeedback struct {
	BlockReason string `json:"blockReason"`
}

type usage struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
	ToolUsePromptTokenCount int `json:"toolUsePromptTokenCount"`
	TotalTokenCount         int `json:"totalTokenCount"`
}

// tokens converts the usage. promptTokenCount includes the cached tokens,
// so InputTokens is the prompt without them, and input + output + cache
// read is the context size, as for every provider (docs/llm.md); the
// output counts the thoughts, which are billed as output.
func (u usage) tokens() contract.TokenUsage {
	input := max(0, u.PromptTokenCount-u.CachedContentTokenCount) + u.ToolUsePromptTokenCount
	output := u.CandidatesTokenCount + u.ThoughtsTokenCount
	out := contract.TokenUsage{InputTokens: input, OutputTokens: output, TotalTokens: input + output + u.CachedContentTokenCount}
	if u.CachedContentTokenCount > 0 {
		c, r := u.CachedContentTokenCount, u.CachedContentTokenCount
		out.CachedTokens, out.CacheReadInputTokens = &c, &r
	}
	return out
}

// blockReasons are the finish reasons of an answer the API stopped for
// its content; the answer is an error that names the reason.
var blockReasons = map[string]bool{
	"SAFETY": true, "RECITATION": true, "BLOCKLIST": true, "PROHIBITED_CONTENT": true,
	"SPII": true, "IMAGE_SAFETY": true, "LANGUAGE": true,
}

// blocked is the error of a prompt or answer the API blocked. It is a
// model error: the same request would be blocked again, so the engine
// moves on to its next target.
func blocked(what, reason string) *llm.Error {
	return &llm.Error{Class: llm.ClassModel, Message: fmt.Sprintf("google: %s blocked by the API (%s)", what, reason)}
}

func (p *Provider) decode(body []byte) (llm.Response, error) {
	var r genResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return llm.Response{}, llm.InvalidResponse("google: decode response", err)
	}
	acc := &accumulator{}
	if err := p.add(acc, &r); err != nil {
		return llm.Response{}, err
	}
	if acc.stop == "" {
		return llm.Response{}, llm.InvalidResponse("google: decode response", errors.New("no candidate with a finishReason"))
	}
	return acc.response()
}

// accumulator gathers an answer from one document or a stream's chunks.
type accumulator struct {
	text      strings.Builder
	thoughts  []contract.ReasoningPart
	thought   strings.Builder
	thoughtSg string
	sigs      []contract.ReasoningPart
	calls     []llm.ToolCall
	model     string
	stop      string
	usage     *usage
	onDelta   func(llm.Delta)
}

func (a *accumulator) emit(d llm.Delta) {
	if a.onDelta != nil {
		a.onDelta(d)
	}
}

// add folds one document into the accumulator: an error document and a
// blocked prompt are errors.
func (p *Provider) add(a *accumulator, r *genResponse) error {
	if r.Error != nil {
		return classifyStatus(r.Error.Code, r.Error.Status, r.Error.Message, nil, r.Error.Details, p.ep.Secrets)
	}
	if r.ModelVersion != "" {
		a.model = r.ModelVersion
	}
	if r.UsageMetadata != nil {
		a.usage = r.UsageMetadata
	}
	if r.PromptFeedback != nil && r.PromptFeedback.BlockReason != "" && len(r.Candidates) == 0 {
		return blocked("prompt", r.PromptFeedback.BlockReason)
	}
	for _, c := range r.Candidates {
		if c.Index != 0 {
			continue // one candidate is asked for; others are ignored
		}
		if c.Content != nil {
			for _, pt := range c.Content.Parts {
				a.part(pt)
			}
		}
		if c.FinishReason != "" {
			a.stop = c.FinishReason
		}
	}
	return nil
}

// part folds one part: thought text, answer text or a function call, each
// with the thought signature it may carry.
func (a *accumulator) part(pt part) {
	switch {
	case pt.Thought:
		if pt.Text != nil {
			a.thought.WriteString(*pt.Text)
			a.emit(llm.Delta{Reasoning: *pt.Text})
		}
		if pt.ThoughtSignature != "" {
			a.thoughtSg = pt.ThoughtSignature
			a.flushThought()
		}
	case pt.FunctionCall != nil:
		a.flushThought()
		id := pt.FunctionCall.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", len(a.calls)+1)
		}
		args := "{}"
		if t := bytes.TrimSpace(pt.FunctionCall.Args); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
			var b bytes.Buffer
			if json.Compact(&b, t) == nil {
				args = b.String()
			}
		}
		a.calls = append(a.calls, llm.ToolCall{ID: id, Name: pt.FunctionCall.Name, Arguments: args})
		if pt.ThoughtSignature != "" {
			var meta signatureMeta
			meta.Google.ThoughtSignature, meta.Google.ToolCallID = pt.ThoughtSignature, id
			a.sigs = append(a.sigs, signaturePart(meta))
		}
	case pt.Text != nil:
		a.flushThought()
		a.text.WriteString(*pt.Text)
		a.emit(llm.Delta{Text: *pt.Text})
		if pt.ThoughtSignature != "" {
			var meta signatureMeta
			meta.Google.ThoughtSignature, meta.Google.Text = pt.ThoughtSignature, true
			a.sigs = append(a.sigs, signaturePart(meta))
		}
	}
}

// flushThought ends the thought text gathered so far as one reasoning
// part, with its signature.
func (a *accumulator) flushThought() {
	if a.thought.Len() == 0 && a.thoughtSg == "" {
		return
	}
	r := contract.ReasoningPart{Type: "reasoning", Text: a.thought.String()}
	if a.thoughtSg != "" {
		var meta signatureMeta
		meta.Google.ThoughtSignature = a.thoughtSg
		r.ProviderMetadata, _ = json.Marshal(meta)
	}
	a.thoughts = append(a.thoughts, r)
	a.thought.Reset()
	a.thoughtSg = ""
}

func signaturePart(meta signatureMeta) contract.ReasoningPart {
	b, _ := json.Marshal(meta)
	return contract.ReasoningPart{Type: "reasoning", ProviderMetadata: b}
}

// response builds the answer, or the error of an answer the API blocked
// or of a function call it could not form.
func (a *accumulator) response() (llm.Response, error) {
	a.flushThought()
	switch {
	case blockReasons[a.stop]:
		return llm.Response{}, blocked("answer", a.stop)
	case a.stop == "MALFORMED_FUNCTION_CALL":
		return llm.Response{}, llm.InvalidResponse("google: the model produced a malformed function call", nil)
	}
	out := llm.Response{Content: a.text.String(), ToolCalls: a.calls, StopReason: a.stop, ActualModel: a.model}
	if reasoning := append(a.thoughts, a.sigs...); len(reasoning) > 0 {
		out.Reasoning = reasoning
	}
	if a.usage != nil {
		out.Usage = a.usage.tokens()
	}
	return out, nil
}

// readStream reads the SSE chunks of streamGenerateContent to the end of
// the stream. The API sends no end marker, so a stream is complete when a
// chunk gave a finishReason; one that ends without it is a truncated,
// invalid response.
func (p *Provider) readStream(ctx context.Context, resp *http.Response, onDelta func(llm.Delta)) (llm.Response, error) {
	a := &accumulator{onDelta: onDelta}
	r := wire.NewSSEReader(resp.Body)
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return llm.Response{}, p.ep.ReadError(ctx, err)
		}
		if len(strings.TrimSpace(string(ev.Data))) == 0 {
			continue
		}
		var chunk genResponse
		if err := json.Unmarshal(ev.Data, &chunk); err != nil {
			return llm.Response{}, llm.InvalidResponse("google: decode stream chunk", err)
		}
		if err := p.add(a, &chunk); err != nil {
			return llm.Response{}, err
		}
	}
	if a.stop == "" {
		return llm.Response{}, llm.InvalidResponse("google: stream ended early", errors.New("no finishReason"))
	}
	return a.response()
}

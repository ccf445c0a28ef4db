package llmtest

import "fmt"

// Anthropic messages, as the API reference describes them: a "message"
// object, or the SSE events message_start, content_block_start,
// content_block_delta (text_delta, thinking_delta, signature_delta,
// input_json_delta), content_block_stop, message_delta (stop_reason and
// output usage) and message_stop, with a ping after message_start.

func (rep Reply) signature() string {
	if rep.ReasoningSignature != "" {
		return rep.ReasoningSignature
	}
	return "sig-llmtest"
}

func anthropicUsage(u Usage, output int) map[string]any {
	return map[string]any{
		"input_tokens":                u.Input,
		"output_tokens":               output,
		"cache_creation_input_tokens": u.CacheWrite,
		"cache_read_input_tokens":     u.CacheRead,
	}
}

func renderAnthropic(rep Reply, seq int) rendered {
	id := fmt.Sprintf("msg_llmtest_%d", seq)
	u := rep.usage()
	var content []any
	if rep.Reasoning != "" {
		content = append(content, map[string]any{"type": "thinking", "thinking": rep.Reasoning, "signature": rep.signature()})
	}
	if rep.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": rep.Text})
	}
	for i, c := range rep.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.id("toolu_llmtest_%d", i), "name": c.Name, "input": objectArgs(c.Arguments)})
	}
	if content == nil {
		content = []any{}
	}
	message := func(content []any, stop any, output int) map[string]any {
		return map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": rep.Model, "content": content,
			"stop_reason": stop, "stop_sequence": nil, "usage": anthropicUsage(u, output),
		}
	}
	full := message(content, rep.stop("tool_use", "end_turn"), u.Output)

	n := rep.chunkSize()
	var frames [][]byte
	ev := func(name string, v map[string]any) {
		v["type"] = name
		frames = append(frames, sseEvent(name, mustJSON(v)))
	}
	ev("message_start", map[string]any{"message": message([]any{}, nil, 1)})
	ev("ping", map[string]any{})
	idx := 0
	block := func(start map[string]any, deltaType, field string, pieces []string) {
		ev("content_block_start", map[string]any{"index": idx, "content_block": start})
		for _, p := range pieces {
			ev("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": deltaType, field: p}})
		}
	}
	stop := func() {
		ev("content_block_stop", map[string]any{"index": idx})
		idx++
	}
	if rep.Reasoning != "" {
		block(map[string]any{"type": "thinking", "thinking": ""}, "thinking_delta", "thinking", split(rep.Reasoning, n))
		ev("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "signature_delta", "signature": rep.signature()}})
		stop()
	}
	if rep.Text != "" {
		block(map[string]any{"type": "text", "text": ""}, "text_delta", "text", split(rep.Text, n))
		stop()
	}
	for i, c := range rep.ToolCalls {
		start := map[string]any{"type": "tool_use", "id": c.id("toolu_llmtest_%d", i), "name": c.Name, "input": map[string]any{}}
		block(start, "input_json_delta", "partial_json", split(string(objectArgs(c.Arguments)), n))
		stop()
	}
	ev("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": rep.stop("tool_use", "end_turn"), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.Output},
	})
	ev("message_stop", map[string]any{})
	return rendered{body: mustJSON(full), stream: frames}
}

package llmtest

import "fmt"

// The OpenAI Responses API (POST …/responses), as its reference describes
// it: a "response" object, or semantic SSE events (response.created,
// response.output_item.added/done, response.output_text.delta,
// response.reasoning_summary_text.delta,
// response.function_call_arguments.delta/done) ending with
// response.completed or response.incomplete; there is no [DONE].

func responsesStatus(rep Reply) (status string, incomplete any) {
	switch rep.StopReason {
	case "length", "max_output_tokens":
		return "incomplete", map[string]any{"reason": "max_output_tokens"}
	case "content_filter":
		return "incomplete", map[string]any{"reason": "content_filter"}
	}
	return "completed", nil
}

func responsesUsage(u Usage) map[string]any {
	return map[string]any{
		"input_tokens":          u.Input + u.CacheRead,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CacheRead},
		"output_tokens":         u.Output,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
		"total_tokens":          u.Input + u.CacheRead + u.Output,
	}
}

func renderResponses(rep Reply, seq int) rendered {
	id := fmt.Sprintf("resp_llmtest_%d", seq)
	status, incomplete := responsesStatus(rep)
	var items []map[string]any
	if rep.Reasoning != "" {
		items = append(items, map[string]any{"type": "reasoning", "id": "rs_1",
			"summary": []any{map[string]any{"type": "summary_text", "text": rep.Reasoning}}})
	}
	if rep.Text != "" {
		items = append(items, map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": rep.Text, "annotations": []any{}}}})
	}
	for i, c := range rep.ToolCalls {
		items = append(items, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", i+1),
			"call_id": c.id("call_%d", i), "name": c.Name, "arguments": c.Arguments, "status": "completed"})
	}
	object := func(status string, output []map[string]any, usage any, incomplete any) map[string]any {
		if output == nil {
			output = []map[string]any{}
		}
		return map[string]any{
			"id": id, "object": "response", "created_at": 1767225600, "status": status, "model": rep.Model,
			"output": output, "incomplete_details": incomplete, "error": nil, "usage": usage,
		}
	}
	full := object(status, items, responsesUsage(rep.usage()), incomplete)

	var frames [][]byte
	n := 0
	ev := func(typ string, v map[string]any) {
		v["type"] = typ
		v["sequence_number"] = n
		n++
		frames = append(frames, sseEvent(typ, mustJSON(v)))
	}
	ev("response.created", map[string]any{"response": object("in_progress", nil, nil, nil)})
	size := rep.chunkSize()
	for idx, item := range items {
		id, _ := item["id"].(string)
		added := map[string]any{}
		for k, v := range item {
			added[k] = v
		}
		switch item["type"] {
		case "reasoning":
			added["summary"] = []any{}
			ev("response.output_item.added", map[string]any{"output_index": idx, "item": added})
			for _, p := range split(rep.Reasoning, size) {
				ev("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": idx, "summary_index": 0, "delta": p})
			}
		case "message":
			added["content"] = []any{}
			added["status"] = "in_progress"
			ev("response.output_item.added", map[string]any{"output_index": idx, "item": added})
			for _, p := range split(rep.Text, size) {
				ev("response.output_text.delta", map[string]any{"item_id": id, "output_index": idx, "content_index": 0, "delta": p})
			}
			ev("response.output_text.done", map[string]any{"item_id": id, "output_index": idx, "content_index": 0, "text": rep.Text})
		case "function_call":
			args, _ := item["arguments"].(string)
			added["arguments"] = ""
			added["status"] = "in_progress"
			ev("response.output_item.added", map[string]any{"output_index": idx, "item": added})
			for _, p := range split(args, size) {
				ev("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": idx, "delta": p})
			}
			ev("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": idx, "arguments": args})
		}
		ev("response.output_item.done", map[string]any{"output_index": idx, "item": item})
	}
	final := "response.completed"
	if status == "incomplete" {
		final = "response.incomplete"
	}
	ev(final, map[string]any{"response": full})
	return rendered{body: mustJSON(full), stream: frames}
}

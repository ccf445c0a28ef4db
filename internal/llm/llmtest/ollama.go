package llmtest

// Ollama /api/chat, as its API reference describes it: one JSON object, or
// NDJSON lines with done:false and a last line with done:true, done_reason
// and the counts prompt_eval_count and eval_count. Tool calls carry their
// arguments as an object and arrive whole, in one line.

const ollamaCreated = "2026-01-01T00:00:00Z"

func renderOllama(rep Reply) rendered {
	u := rep.usage()
	var calls []any
	for _, c := range rep.ToolCalls {
		fn := map[string]any{"name": c.Name, "arguments": objectArgs(c.Arguments)}
		call := map[string]any{"function": fn}
		if c.ID != "" {
			call["id"] = c.ID
		}
		calls = append(calls, call)
	}
	msg := func(content, thinking string, calls []any) map[string]any {
		m := map[string]any{"role": "assistant", "content": content}
		if thinking != "" {
			m["thinking"] = thinking
		}
		if len(calls) > 0 {
			m["tool_calls"] = calls
		}
		return m
	}
	done := func(m map[string]any) map[string]any {
		return map[string]any{
			"model": rep.Model, "created_at": ollamaCreated, "message": m,
			"done": true, "done_reason": rep.stop("stop", "stop"),
			"total_duration": 1000000, "load_duration": 1000, "prompt_eval_count": u.Input + u.CacheRead,
			"prompt_eval_duration": 1000, "eval_count": u.Output, "eval_duration": 1000,
		}
	}
	full := done(msg(rep.Text, rep.Reasoning, calls))

	line := func(v map[string]any) []byte { return append(mustJSON(v), '\n') }
	part := func(m map[string]any) []byte {
		return line(map[string]any{"model": rep.Model, "created_at": ollamaCreated, "message": m, "done": false})
	}
	n := rep.chunkSize()
	var frames [][]byte
	for _, p := range split(rep.Reasoning, n) {
		frames = append(frames, part(msg("", p, nil)))
	}
	for _, p := range split(rep.Text, n) {
		frames = append(frames, part(msg(p, "", nil)))
	}
	if len(calls) > 0 {
		frames = append(frames, part(msg("", "", calls)))
	}
	frames = append(frames, line(done(msg("", "", nil))))
	return rendered{body: mustJSON(full), stream: frames}
}

package llmtest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// CheckShape applies to a request body the rule that the providers'
// documented request schemas share and enforce with HTTP 400: every tool
// call an assistant turn made is answered by its result before the next
// assistant turn, and no result answers a call that was not made.
//
//   - OpenAI chat completions: an assistant message with tool_calls is
//     followed at once by one role "tool" message per tool_call_id; a tool
//     message answers a call of the assistant message before it.
//   - OpenAI Responses: each function_call item has a function_call_output
//     with its call_id before the next assistant message (or the end of
//     input); each output answers an earlier call.
//   - Anthropic messages: an assistant message with tool_use blocks is
//     followed by a user message with a tool_result block for each id, the
//     tool_result blocks first in its content; each tool_result answers a
//     tool_use of the assistant message before it.
//
// It returns nil, or an error worded as the provider words the rejection.
// Other wires, and bodies that are not JSON objects, are not checked.
func CheckShape(wire Wire, body []byte) error {
	switch wire {
	case OpenAI:
		var req struct {
			Messages []struct {
				Role      string `json:"role"`
				ToolCalls []struct {
					ID string `json:"id"`
				} `json:"tool_calls"`
				ToolCallID string `json:"tool_call_id"`
			} `json:"messages"`
		}
		if json.Unmarshal(body, &req) != nil {
			return nil
		}
		var open []string // calls of the last assistant message, not yet answered
		inRun := false    // only tool messages since that assistant message
		for i, m := range req.Messages {
			if m.Role == "tool" {
				k := slices.Index(open, m.ToolCallID)
				if !inRun || k < 0 {
					return shapeErr("Invalid parameter: messages.[%d]: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'", i)
				}
				open = slices.Delete(open, k, k+1)
				continue
			}
			if len(open) > 0 {
				return openAIUnanswered(i, open)
			}
			open, inRun = nil, false
			if m.Role == "assistant" {
				for _, c := range m.ToolCalls {
					open = append(open, c.ID)
				}
				inRun = len(open) > 0
			}
		}
		if len(open) > 0 {
			return openAIUnanswered(len(req.Messages), open)
		}
	case OpenAIResponses:
		var req struct {
			Input json.RawMessage `json:"input"`
		}
		var items []struct {
			Type   string `json:"type"`
			Role   string `json:"role"`
			CallID string `json:"call_id"`
		}
		if json.Unmarshal(body, &req) != nil || json.Unmarshal(req.Input, &items) != nil {
			return nil // no input, or a plain string
		}
		var open []string
		for _, it := range items {
			switch {
			case it.Type == "function_call":
				open = append(open, it.CallID)
			case it.Type == "function_call_output":
				k := slices.Index(open, it.CallID)
				if k < 0 {
					return shapeErr("No tool call found for function call output with call_id %s.", it.CallID)
				}
				open = slices.Delete(open, k, k+1)
			case it.Role == "assistant" && len(open) > 0:
				return shapeErr("No tool output found for function call %s.", open[0])
			}
		}
		if len(open) > 0 {
			return shapeErr("No tool output found for function call %s.", open[0])
		}
	case Anthropic:
		return checkAnthropic(body)
	}
	return nil
}

// ShapeError is a request the provider would refuse; Message is worded as
// the provider words it.
type ShapeError struct{ Message string }

// Error implements error.
func (e *ShapeError) Error() string { return e.Message }

func shapeErr(format string, args ...any) error {
	return &ShapeError{Message: fmt.Sprintf(format, args...)}
}

func openAIUnanswered(at int, ids []string) error {
	return shapeErr("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. "+
		"The following tool_call_ids did not have response messages: %s (messages.[%d])", strings.Join(ids, ", "), at)
}

// anthropicBlock is the part of a content block the rule reads.
type anthropicBlock struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	ToolUseID string `json:"tool_use_id"`
}

func checkAnthropic(body []byte) error {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var uses []string // tool_use ids of the previous message
	for i, m := range req.Messages {
		var blocks []anthropicBlock
		_ = json.Unmarshal(m.Content, &blocks) // a string content has no blocks
		if m.Role == "assistant" {
			if len(uses) > 0 {
				return anthropicUnanswered(i-1, uses)
			}
			for _, b := range blocks {
				if b.Type == "tool_use" {
					uses = append(uses, b.ID)
				}
			}
			continue
		}
		answered := map[string]bool{}
		other := false
		for j, b := range blocks {
			if b.Type != "tool_result" {
				other = true
				continue
			}
			if !slices.Contains(uses, b.ToolUseID) {
				return shapeErr("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. "+
					"Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
			}
			if other {
				return shapeErr("messages.%d.content.%d: `tool_result` blocks must come first in the content, before any other block.", i, j)
			}
			answered[b.ToolUseID] = true
		}
		var missing []string
		for _, id := range uses {
			if !answered[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return anthropicUnanswered(i-1, missing)
		}
		uses = nil
	}
	if len(uses) > 0 {
		return anthropicUnanswered(len(req.Messages)-1, uses)
	}
	return nil
}

func anthropicUnanswered(at int, ids []string) error {
	return shapeErr("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. "+
		"Each `tool_use` block must have a corresponding `tool_result` block in the next message.", at, strings.Join(ids, ", "))
}

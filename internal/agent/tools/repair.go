package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	jsonrepair "github.com/RealAlexandreAI/json-repair"
)

// ErrBadArguments is returned (wrapped) by ParseArguments when the arguments
// of a tool call are not a JSON object even after repair.
var ErrBadArguments = errors.New("invalid tool arguments")

// Repair describes how ParseArguments obtained its object.
type Repair struct {
	// Repaired is true when the standard decoder failed and a repair step
	// produced the object.
	Repaired bool
	// Steps names the repair steps applied, in order.
	Steps []string
	// Original is the raw argument text.
	Original string
	// Result is the JSON object text that was used.
	Result string
}

// ParseArguments turns the raw argument text of a tool call into a JSON
// object (docs/contracts/ai-agent.md §1). It is the two-step pipeline of the
// contract: the standard decoder first; on failure, guarded fixes (strip a
// code fence and the prose around the first JSON object) then json-repair
// and a re-parse. Empty text is the empty object. The result must be a JSON
// object; anything else is an error wrapping ErrBadArguments.
func ParseArguments(raw string) (json.RawMessage, Repair, error) {
	rep := Repair{Original: raw}
	trimmed := strings.TrimSpace(raw)
	if trimmed == "" {
		rep.Result = "{}"
		return json.RawMessage("{}"), rep, nil
	}
	if obj, ok := asObject(trimmed); ok {
		rep.Result = string(obj)
		return obj, rep, nil
	}
	rep.Repaired = true
	text := trimmed
	if s, ok := stripFence(text); ok {
		text = s
		rep.Steps = append(rep.Steps, "strip_code_fence")
		if obj, ok := asObject(text); ok {
			rep.Result = string(obj)
			return obj, rep, nil
		}
	}
	if s, ok := extractObject(text); ok && s != text {
		text = s
		rep.Steps = append(rep.Steps, "extract_first_object")
		if obj, ok := asObject(text); ok {
			rep.Result = string(obj)
			return obj, rep, nil
		}
	}
	fixed, err := jsonrepair.RepairJSON(text)
	rep.Steps = append(rep.Steps, "jsonrepair")
	if err != nil {
		return nil, rep, fmt.Errorf("repair tool arguments: %w: %v", ErrBadArguments, err)
	}
	obj, ok := asObject(fixed)
	if !ok {
		return nil, rep, fmt.Errorf("repair tool arguments: %w: not a JSON object", ErrBadArguments)
	}
	rep.Result = string(obj)
	return obj, rep, nil
}

// asObject reports whether s is exactly one JSON object, and returns it
// compacted.
func asObject(s string) (json.RawMessage, bool) {
	if !strings.HasPrefix(s, "{") {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil || v == nil {
		return nil, false
	}
	if dec.More() {
		return nil, false
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return nil, false
	}
	return json.RawMessage(buf.Bytes()), true
}

// stripFence removes a Markdown code fence around the text, with any prose
// before or after it.
func stripFence(s string) (string, bool) {
	start := strings.Index(s, "```")
	if start < 0 {
		return s, false
	}
	rest := s[start+3:]
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{[") {
		rest = rest[nl+1:]
	}
	if end := strings.Index(rest, "```"); end >= 0 {
		rest = rest[:end]
	}
	return strings.TrimSpace(rest), true
}

// extractObject returns the text from the first '{' to its matching '}'
// (strings respected), or to the end when the braces never balance.
func extractObject(s string) (string, bool) {
	start := strings.IndexByte(s, '{')
	if start < 0 {
		return s, false
	}
	depth, inStr, esc := 0, false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return s[start : i+1], true
			}
		}
	}
	return s[start:], true
}

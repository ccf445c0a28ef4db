package wire

import (
	"bytes"
	"encoding/json"

	"github.com/salve-dev/salve/internal/llm"
)

// emptySchema is the input schema sent for a tool that declares none.
const emptySchema = `{"type":"object","properties":{}}`

// Schema returns a tool's input schema, or for a tool that declares none
// the schema of an object with no properties, since every API requires
// one.
func Schema(s json.RawMessage) json.RawMessage {
	if len(s) == 0 {
		return json.RawMessage(emptySchema)
	}
	return s
}

// FunctionTool is a tool as the OpenAI chat completions API and Ollama's
// chat API take it: {"type": "function", "function": {...}}.
type FunctionTool struct {
	Type     string      `json:"type"`
	Function FunctionDef `json:"function"`
}

// FunctionDef is the "function" object of a [FunctionTool].
type FunctionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// FunctionTools maps tool definitions to function tools, in order; nil
// when there are none, so an omitempty field leaves them out.
func FunctionTools(defs []llm.ToolDef) []FunctionTool {
	var out []FunctionTool
	for _, t := range defs {
		out = append(out, FunctionTool{Type: "function", Function: FunctionDef{Name: t.Name, Description: t.Description, Parameters: Schema(t.InputSchema)}})
	}
	return out
}

// ObjectArgs returns a tool call's argument text as a compact JSON object
// for the wire formats that carry arguments as an object (Anthropic's
// tool_use input, Ollama's arguments, Gemini's functionCall args), or {}
// when the text is not one: the engine has already answered such a call
// with an error, and those APIs refuse anything but an object.
func ObjectArgs(args string) json.RawMessage {
	t := bytes.TrimSpace([]byte(args))
	if len(t) > 0 && t[0] == '{' && json.Valid(t) {
		var b bytes.Buffer
		if json.Compact(&b, t) == nil {
			return b.Bytes()
		}
	}
	return json.RawMessage(`{}`)
}

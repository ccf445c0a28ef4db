package wire

import (
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

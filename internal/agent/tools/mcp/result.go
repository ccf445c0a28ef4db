package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/salve-dev/salve/internal/agent/tools"
)

// ErrInvalidResult is wrapped when a server's result cannot be rendered.
var ErrInvalidResult = errors.New("invalid MCP tool result")

// RenderResult turns an MCP tool result into the text a model sees
// (docs/contracts/ai-agent-cli.md §11 "MCP results"): the text items joined
// with "\n", every other item (image, audio, resource, resource link) as its
// JSON. When the result has no content but structured content, that is
// rendered as JSON. isError makes a failed result whose text is the reason.
func RenderResult(res *sdk.CallToolResult) (tools.Result, error) {
	if res == nil {
		return tools.Result{}, fmt.Errorf("%w: empty result", ErrInvalidResult)
	}
	parts := make([]string, 0, len(res.Content))
	for i, c := range res.Content {
		if c == nil {
			return tools.Result{}, fmt.Errorf("%w: content item %d is null", ErrInvalidResult, i)
		}
		if t, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, t.Text)
			continue
		}
		b, err := json.Marshal(c)
		if err != nil {
			return tools.Result{}, fmt.Errorf("%w: content item %d: %w", ErrInvalidResult, i, err)
		}
		parts = append(parts, string(b))
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return tools.Result{}, fmt.Errorf("%w: structured content: %w", ErrInvalidResult, err)
		}
		parts = append(parts, string(b))
	}
	return tools.Result{Text: strings.Join(parts, "\n"), IsError: res.IsError}, nil
}

package config

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ToolOutput is the toolOutput section of the config file or frontmatter
// (docs/ai-agent.md, "Oversized tool outputs"). Nil members are unset.
type ToolOutput struct {
	Enabled               *bool `json:"enabled,omitempty"`
	MaxChunks             *int  `json:"maxChunks,omitempty"`
	OverlapPercent        *int  `json:"overlapPercent,omitempty"`
	AvgLineBytesThreshold *int  `json:"avgLineBytesThreshold,omitempty"`
	// StoreDir and Models are the original's keys; salve keeps outputs in
	// memory and extracts with the session's first model, so both are
	// accepted and ignored.
	StoreDir string `json:"storeDir,omitempty"`
	Models   any    `json:"models,omitempty"`
}

// ParseToolOutput validates a toolOutput value (a decoded JSON or YAML
// object).
func ParseToolOutput(v any) (ToolOutput, error) {
	var t ToolOutput
	if v == nil {
		return t, nil
	}
	if _, ok := v.(map[string]any); !ok {
		return t, fmt.Errorf("toolOutput: %w: must be an object", ErrConfig)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return t, fmt.Errorf("toolOutput: %w: %v", ErrConfig, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return t, fmt.Errorf("toolOutput: %w: %v", ErrConfig, err)
	}
	for name, p := range map[string]*int{"maxChunks": t.MaxChunks, "avgLineBytesThreshold": t.AvgLineBytesThreshold} {
		if p != nil && *p < 1 {
			return t, fmt.Errorf("toolOutput: %w: %s must be a positive integer", ErrConfig, name)
		}
	}
	if p := t.OverlapPercent; p != nil && (*p < 0 || *p > 50) {
		return t, fmt.Errorf("toolOutput: %w: overlapPercent must be 0..50", ErrConfig)
	}
	return t, nil
}

// Over returns t with the members set in o replacing its own (frontmatter
// over config).
func (t ToolOutput) Over(o ToolOutput) ToolOutput {
	if o.Enabled != nil {
		t.Enabled = o.Enabled
	}
	if o.MaxChunks != nil {
		t.MaxChunks = o.MaxChunks
	}
	if o.OverlapPercent != nil {
		t.OverlapPercent = o.OverlapPercent
	}
	if o.AvgLineBytesThreshold != nil {
		t.AvgLineBytesThreshold = o.AvgLineBytesThreshold
	}
	return t
}

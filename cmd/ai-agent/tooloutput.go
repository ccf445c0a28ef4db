package main

import (
	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/agent/tooloutput"
)

// toolOutput resolves the toolOutput section: the frontmatter's members
// over the config file's (docs/ai-agent.md, "Oversized tool outputs").
func (st *startup) toolOutput() (tooloutput.Config, error) {
	c, err := config.ParseToolOutput(st.cfg.Raw("toolOutput"))
	if err != nil {
		return tooloutput.Config{}, err
	}
	if st.fm.ToolOutput != nil {
		c = c.Over(*st.fm.ToolOutput)
	}
	out := tooloutput.Config{OverlapPercent: -1}
	if c.Enabled != nil {
		out.Enabled = *c.Enabled
	}
	if c.MaxChunks != nil {
		out.MaxChunks = *c.MaxChunks
	}
	if c.OverlapPercent != nil {
		out.OverlapPercent = *c.OverlapPercent
	}
	if c.AvgLineBytesThreshold != nil {
		out.AvgLineBytesThreshold = *c.AvgLineBytesThreshold
	}
	return out.WithDefaults(), nil
}

package config

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/internal/agent"
)

// Orchestration is an agent's advisors, router destinations and handoff
// (docs/ai-agent.md, "Advisors, router and handoff"): paths of .ai
// files, relative ones already joined to the directory of the file that
// names them.
type Orchestration struct {
	// Advisors run at once before the agent; their answers go into its
	// prompt.
	Advisors []string
	// Destinations are the router's: the agent may hand the request to
	// one of them with router__handoff-to.
	Destinations []string
	// Handoff gets the agent's answer and gives the final one; "" is
	// none.
	Handoff string
}

// Empty reports whether o names no agent.
func (o Orchestration) Empty() bool {
	return len(o.Advisors) == 0 && len(o.Destinations) == 0 && o.Handoff == ""
}

// setOrchestration reads advisors (a string or a list), router (a
// mapping whose destinations is a string or a non-empty list) and handoff
// (one string), as the original does.
func (fm *Frontmatter) setOrchestration(key string, v any, baseDir string) error {
	switch key {
	case "advisors":
		list, err := stringList(v)
		if err != nil {
			return fmt.Errorf("frontmatter: %w: advisors %v", ErrConfig, err)
		}
		fm.Orchestration.Advisors = relativeTo(baseDir, nonEmpty(list))
	case "router":
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("frontmatter: %w: router must be a mapping with destinations", ErrConfig)
		}
		for k := range m {
			if k != "destinations" {
				return fmt.Errorf("frontmatter: %w: unknown key router.%s", ErrConfig, k)
			}
		}
		list, err := stringList(m["destinations"])
		if err != nil {
			return fmt.Errorf("frontmatter: %w: router.destinations %v", ErrConfig, err)
		}
		if list = nonEmpty(list); len(list) == 0 {
			return fmt.Errorf("frontmatter: %w: router.destinations must include at least one agent", ErrConfig)
		}
		fm.Orchestration.Destinations = relativeTo(baseDir, list)
	case "handoff":
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("frontmatter: %w: handoff must be a single string (one .ai file)", ErrConfig)
		}
		if s = strings.TrimSpace(s); s != "" {
			fm.Orchestration.Handoff = relativeTo(baseDir, []string{s})[0]
		}
	}
	return nil
}

// nonEmpty drops blank entries.
func nonEmpty(list []string) []string {
	out := list[:0]
	for _, s := range list {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// orchestration resolves the session's advisors, router and handoff:
// --advisors and --handoff beat the frontmatter, for the agent the
// command runs only (a child session has its own frontmatter alone); the
// router comes from the frontmatter.
func orchestration(r Request, fm *Frontmatter) Orchestration {
	o := fm.Orchestration
	if r.SubAgent {
		return o
	}
	if v, ok := r.CLI.Lists["advisors"]; ok {
		o.Advisors = nonEmpty(append([]string(nil), v...))
	}
	if v, ok := r.CLI.Flags["handoff"]; ok {
		o.Handoff = strings.TrimSpace(v)
	}
	return o
}

// childFormat is the format and schema of an orchestration child that
// expects no JSON: its own output format, else the one it is given.
func childFormat(r Request, fm *Frontmatter) (string, json.RawMessage) {
	switch {
	case fm.Output != nil && fm.Output.Format == "markdown":
		return agent.FormatMarkdown, nil
	case fm.Output != nil && fm.Output.Format == "text":
		return agent.FormatPipe, nil
	case r.ChildFormat == agent.FormatJSON && len(r.ChildSchema) > 0:
		return agent.FormatJSON, r.ChildSchema
	case r.ChildFormat == agent.FormatJSON:
		return agent.FormatJSON, json.RawMessage(`{"type":"object"}`)
	}
	return r.ChildFormat, nil
}

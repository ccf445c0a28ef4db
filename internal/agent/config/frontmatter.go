package config

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/salve-dev/salve/internal/safefile"
)

// Frontmatter is the parsed YAML header of an .ai file or prompt
// (docs/contracts/ai-agent-cli.md §10).
type Frontmatter struct {
	Description string
	Usage       string
	ToolName    string
	Models      []string
	Tools       []string
	Agents      []string
	// ToolsAllowed and ToolsDenied filter the session's tools by their
	// exposed or local names (mcp.Filter's patterns); empty allows all.
	ToolsAllowed []string
	ToolsDenied  []string
	// Settings holds the option keys of docs/contracts/ai-agent-cli.md §3
	// that the header set, already validated, for Sources.Frontmatter.
	Settings map[string]any
	// Output is the output spec, when set.
	Output *IOSpec
	// Input is the input spec (sub-agents), when set.
	Input *IOSpec
	// Cache is the agent response cache TTL; CacheSet says the header
	// set it ("off" sets 0).
	Cache    time.Duration
	CacheSet bool
	// ToolOutput is the toolOutput block, when set.
	ToolOutput *ToolOutput
	// Orchestration is the advisors, router and handoff keys.
	Orchestration Orchestration
	// Warnings lists the keys salve reads differently (Differences).
	Warnings []string
}

// IOSpec is the output or input block: a format and an optional schema.
type IOSpec struct {
	Format string
	Schema json.RawMessage
}

// SplitFrontmatter separates an optional "#!" first line and a YAML header
// between two lines that are exactly "---" from the body. It reports whether
// a header was found.
func SplitFrontmatter(text string) (header, body string, ok bool) {
	t := text
	if strings.HasPrefix(t, "#!") {
		if i := strings.IndexByte(t, '\n'); i >= 0 {
			t = t[i+1:]
		} else {
			t = ""
		}
	}
	first, rest, found := strings.Cut(t, "\n")
	if !found || strings.TrimSuffix(first, "\r") != "---" {
		return "", t, false
	}
	var lines []string
	for {
		line, more, found := strings.Cut(rest, "\n")
		if strings.TrimSuffix(line, "\r") == "---" {
			return strings.Join(lines, "\n"), more, true
		}
		if !found {
			return "", t, false
		}
		lines = append(lines, line)
		rest = more
	}
}

// frontmatterKeys is the key table of docs/contracts/ai-agent-cli.md §10:
// what each key is. The keys of Differences are "ignored": accepted with
// their warning.
var frontmatterKeys = map[string]string{
	"description": "string", "usage": "string", "toolName": "string",
	"models": "list", "tools": "list", "agents": "list", "toolsAllowed": "list", "toolsDenied": "list",
	"maxTurns": "setting", "maxToolTurns": "setting", "maxToolCallsPerTurn": "setting", "maxRetries": "setting", "maxOutputTokens": "setting",
	"toolResponseMaxBytes": "setting", "llmTimeout": "setting", "toolTimeout": "setting",
	"temperature": "setting", "topP": "setting", "topK": "setting", "repeatPenalty": "setting",
	"reasoning": "reasoning", "reasoningTokens": "setting", "caching": "setting",
	"contextWindow": "setting", "contextWindowBufferTokens": "setting",
	"output": "io", "input": "io",
	"cache": "cache", "toolOutput": "toolOutput",
	"plugins": "ignored", "advisors": "orchestration", "router": "orchestration", "handoff": "orchestration",
	"parallelToolCalls": "ignored", "maxConcurrentTools": "ignored",
	"traceLLM": "runtime", "traceMCP": "runtime", "verbose": "runtime", "accounting": "runtime", "save": "runtime",
	"load": "runtime", "stream": "runtime", "targets": "runtime",
}

// ParseFrontmatter validates a YAML header
// (docs/contracts/ai-agent-cli.md §10). baseDir resolves schemaRef paths.
// Every error wraps ErrConfig and names the key.
func ParseFrontmatter(header, baseDir string) (*Frontmatter, error) {
	var raw map[string]any
	if err := safeYAML([]byte(header), &raw); err != nil {
		return nil, fmt.Errorf("frontmatter: %w: invalid YAML: %v", ErrConfig, err)
	}
	fm := &Frontmatter{Settings: map[string]any{}}
	for key, v := range raw {
		if err := fm.set(key, v, baseDir); err != nil {
			return nil, err
		}
	}
	return fm, nil
}

func (fm *Frontmatter) set(key string, v any, baseDir string) error {
	what, ok := frontmatterKeys[key]
	if !ok {
		return fmt.Errorf("frontmatter: %w: unknown key %q", ErrConfig, key)
	}
	switch what {
	case "runtime":
		return fmt.Errorf("frontmatter: %w: key %q is a runtime option; use the CLI flags instead", ErrConfig, key)
	case "ignored":
		fm.warn(key)
	case "orchestration":
		return fm.setOrchestration(key, v, baseDir)
	case "string":
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("frontmatter: %w: %s must be a string", ErrConfig, key)
		}
		switch key {
		case "description":
			fm.Description = s
		case "usage":
			fm.Usage = s
			fm.warn(key)
		default:
			fm.ToolName = s
		}
	case "list":
		list, err := stringList(v)
		if err != nil {
			return fmt.Errorf("frontmatter: %w: %s %v", ErrConfig, key, err)
		}
		switch key {
		case "models":
			fm.Models = list
		case "tools":
			fm.Tools = list
		case "toolsAllowed":
			fm.ToolsAllowed = list
		case "toolsDenied":
			fm.ToolsDenied = list
		default:
			fm.Agents = relativeTo(baseDir, list)
		}
	case "setting":
		if _, err := ParseSetting(key, v); err != nil {
			return fmt.Errorf("frontmatter: %w", err)
		}
		fm.Settings[key] = v
	case "reasoning":
		return fm.setReasoning(v)
	case "cache":
		ttl, set, err := ParseCacheTTL("cache (frontmatter)", v)
		if err != nil {
			return fmt.Errorf("frontmatter: %w", err)
		}
		fm.Cache, fm.CacheSet = ttl, set
	case "toolOutput":
		t, err := ParseToolOutput(v)
		if err != nil {
			return fmt.Errorf("frontmatter: %w", err)
		}
		fm.ToolOutput = &t
		if t.StoreDir != "" {
			fm.warn("toolOutput.storeDir")
		}
		if t.Models != nil {
			fm.warn("toolOutput.models")
		}
	case "io":
		spec, err := parseIO(key, v, baseDir)
		if err != nil {
			return err
		}
		if key == "output" {
			fm.Output = spec
		} else {
			fm.Input = spec
		}
	}
	return nil
}

// warn records the Differences warning of key.
func (fm *Frontmatter) warn(key string) {
	if w, ok := lookupDifference(InFrontmatter, key); ok {
		fm.Warnings = append(fm.Warnings, w)
	}
}

// setReasoning: none, unset or null turn reasoning off; default, inherit
// or "" act as absent; otherwise a level.
func (fm *Frontmatter) setReasoning(v any) error {
	if v == nil {
		fm.Settings["reasoning"] = "none"
		return nil
	}
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("frontmatter: %w: reasoning must be a string", ErrConfig)
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none", "unset":
		fm.Settings["reasoning"] = "none"
	case "default", "inherit", "":
	default:
		if _, err := ParseSetting("reasoning", s); err != nil {
			return fmt.Errorf("frontmatter: %w", err)
		}
		fm.Settings["reasoning"] = s
	}
	return nil
}

// safeYAML decodes YAML, turning a decoder panic into an error.
func safeYAML(b []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("YAML decoder failed: %v", r)
		}
	}()
	return yaml.Unmarshal(b, v)
}

// relativeTo makes the relative paths of list relative to dir.
func relativeTo(dir string, list []string) []string {
	for i, a := range list {
		if !filepath.IsAbs(a) {
			list[i] = filepath.Join(dir, a)
		}
	}
	return list
}

func stringList(v any) ([]string, error) {
	switch t := v.(type) {
	case string:
		return SplitList(t), nil
	case []any:
		out := make([]string, 0, len(t))
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("must be a list of strings")
			}
			out = append(out, strings.TrimSpace(s))
		}
		return out, nil
	}
	return nil, fmt.Errorf("must be a string or a list of strings")
}

// parseIO reads {format, schema?, schemaRef?}. An input mapping with
// none of these keys is a JSON Schema itself, as the original reads it:
// format json with that schema.
func parseIO(key string, v any, baseDir string) (*IOSpec, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("frontmatter: %w: %s must be a mapping", ErrConfig, key)
	}
	if key == "input" && isBareSchema(m) {
		sch, err := schemaValue(m)
		if err != nil {
			return nil, fmt.Errorf("frontmatter: %w: input: %v", ErrConfig, err)
		}
		return &IOSpec{Format: "json", Schema: sch}, nil
	}
	allowed := map[string][]string{"output": {"json", "markdown", "text"}, "input": {"text", "json"}}[key]
	spec := &IOSpec{}
	for k, val := range m {
		switch k {
		case "format":
			s, _ := val.(string)
			if !contains(allowed, s) {
				return nil, fmt.Errorf("frontmatter: %w: %s.format must be one of %s", ErrConfig, key, strings.Join(allowed, ", "))
			}
			spec.Format = s
		case "schema":
			sch, err := schemaValue(val)
			if err != nil {
				return nil, fmt.Errorf("frontmatter: %w: %s.schema: %v", ErrConfig, key, err)
			}
			spec.Schema = sch
		case "schemaRef":
			ref, _ := val.(string)
			sch, err := readSchemaRef(ref, baseDir)
			if err != nil {
				return nil, fmt.Errorf("frontmatter: %w: %s.schemaRef: %v", ErrConfig, key, err)
			}
			spec.Schema = sch
		default:
			return nil, fmt.Errorf("frontmatter: %w: unknown key %s.%s", ErrConfig, key, k)
		}
	}
	return spec, nil
}

// isBareSchema reports whether an io mapping has none of the io spec's
// keys, and so is a schema of its own.
func isBareSchema(m map[string]any) bool {
	for _, k := range []string{"format", "schema", "schemaRef"} {
		if _, ok := m[k]; ok {
			return false
		}
	}
	return len(m) > 0
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// schemaValue accepts an object, or a JSON or YAML string holding one.
func schemaValue(v any) (json.RawMessage, error) {
	if s, ok := v.(string); ok {
		var parsed any
		if err := safeYAML([]byte(s), &parsed); err != nil {
			return nil, fmt.Errorf("not JSON or YAML: %v", err)
		}
		v = parsed
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("not an object")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return b, nil
}

func readSchemaRef(ref, baseDir string) (json.RawMessage, error) {
	if ref == "" {
		return nil, fmt.Errorf("empty path")
	}
	if !filepath.IsAbs(ref) {
		ref = filepath.Join(baseDir, ref)
	}
	b, err := safefile.Read(ref, safefile.MaxConfig)
	if err != nil {
		return nil, err
	}
	var v any
	if err := safeYAML(b, &v); err != nil {
		return nil, fmt.Errorf("parse %s: %v", ref, err)
	}
	return schemaValue(v)
}

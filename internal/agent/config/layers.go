package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/salve-dev/salve/internal/safefile"
)

// Layer origins, highest priority first
// (docs/contracts/ai-agent-cli.md §9.1).
const (
	OriginConfig = "--config"
	OriginCwd    = "cwd"
	OriginPrompt = "prompt"
	OriginBinary = "binary"
	OriginHome   = "home"
	OriginSystem = "system"
)

// DefaultSystemDir is the directory of layer 6.
const DefaultSystemDir = "/etc/ai-agent"

// Layer is one loaded configuration layer.
type Layer struct {
	// Origin is one of the Origin constants.
	Origin string
	// Path is the JSON file; it may not exist.
	Path string
	// Env is the layer's .ai-agent.env, empty when absent.
	Env map[string]string
	// data is the expanded JSON object, nil when the file is absent.
	data map[string]any
}

// Locations says where the six layers are. Empty fields skip their layer.
type Locations struct {
	// ConfigFile is the --config path (layer 1); it must exist.
	ConfigFile string
	// Cwd is the working directory (layer 2).
	Cwd string
	// PromptDir is the prompt file's directory (layer 3); it is skipped
	// when it equals Cwd.
	PromptDir string
	// BinaryDir is the executable's directory, symlinks resolved (layer 4).
	BinaryDir string
	// Home is $HOME (layer 5).
	Home string
	// SystemDir replaces /etc/ai-agent (layer 6); empty uses the default.
	SystemDir string
	// Getenv reads the process environment; nil uses os.LookupEnv.
	Getenv func(string) (string, bool)
}

// LocationsFor are the layers of a run in cwd: configFile is --config
// ("" for none), promptPath the prompt or agent file ("" for none), whose
// directory is the prompt layer; the binary layer is the running
// executable's directory (symlinks resolved) and the home layer $HOME's.
func LocationsFor(configFile, cwd, promptPath string) Locations {
	loc := Locations{ConfigFile: configFile, Cwd: cwd}
	if promptPath != "" {
		loc.PromptDir = filepath.Dir(promptPath)
		if abs, err := filepath.Abs(loc.PromptDir); err == nil {
			loc.PromptDir = abs
		}
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			loc.BinaryDir = filepath.Dir(real)
		}
	}
	loc.Home, _ = os.UserHomeDir()
	return loc
}

// MissingVariableError is an unresolved ${NAME} in a part of the merged
// configuration that the run uses (docs/contracts/ai-agent-cli.md §9.2). It
// wraps ErrConfig.
type MissingVariableError struct {
	Var    string
	Entry  string
	Origin string
	Path   string
}

// Error names the variable, the entry, the layer origin and its file.
func (e *MissingVariableError) Error() string {
	return fmt.Sprintf("missing variable ${%s} in %s (layer %s, %s)", e.Var, e.Entry, e.Origin, e.Path)
}

// Unwrap makes errors.Is(err, ErrConfig) true.
func (e *MissingVariableError) Unwrap() error { return ErrConfig }

// missing is a string value whose ${NAME} could not be resolved; it stays in
// the merged tree so that only used entries raise MissingVariableError.
type missing struct {
	raw    string
	name   string
	origin string
	path   string
}

// MarshalJSON writes the raw string.
func (m missing) MarshalJSON() ([]byte, error) { return json.Marshal(m.raw) }

// Config is the merged configuration.
type Config struct {
	layers []Layer
	tree   map[string]any
	cwd    string
	getenv func(string) (string, bool)
	// warnings are the Differences rows the merged tree holds.
	warnings []string
}

// Load reads the layers, expands each with its own env file and the process
// environment, and deep-merges them from layer 6 up to layer 1.
func Load(loc Locations) (*Config, error) {
	getenv := loc.Getenv
	if getenv == nil {
		getenv = os.LookupEnv
	}
	sys := loc.SystemDir
	if sys == "" {
		sys = DefaultSystemDir
	}
	type spec struct{ origin, json, env string }
	var specs []spec
	if loc.ConfigFile != "" {
		specs = append(specs, spec{OriginConfig, loc.ConfigFile, filepath.Join(filepath.Dir(loc.ConfigFile), ".ai-agent.env")})
	}
	if loc.Cwd != "" {
		specs = append(specs, spec{OriginCwd, filepath.Join(loc.Cwd, ".ai-agent.json"), filepath.Join(loc.Cwd, ".ai-agent.env")})
	}
	if loc.PromptDir != "" && !samePath(loc.PromptDir, loc.Cwd) {
		specs = append(specs, spec{OriginPrompt, filepath.Join(loc.PromptDir, ".ai-agent.json"), filepath.Join(loc.PromptDir, ".ai-agent.env")})
	}
	if loc.BinaryDir != "" && !samePath(loc.BinaryDir, loc.Cwd) && !samePath(loc.BinaryDir, loc.PromptDir) {
		specs = append(specs, spec{OriginBinary, filepath.Join(loc.BinaryDir, ".ai-agent.json"), filepath.Join(loc.BinaryDir, ".ai-agent.env")})
	}
	if loc.Home != "" {
		dir := filepath.Join(loc.Home, ".ai-agent")
		specs = append(specs, spec{OriginHome, filepath.Join(dir, "ai-agent.json"), filepath.Join(dir, "ai-agent.env")})
	}
	specs = append(specs, spec{OriginSystem, filepath.Join(sys, "ai-agent.json"), filepath.Join(sys, "ai-agent.env")})

	c := &Config{cwd: loc.Cwd, getenv: getenv, tree: map[string]any{}}
	for _, sp := range specs {
		l, err := loadLayer(sp.origin, sp.json, sp.env, loc.Cwd, getenv)
		if err != nil {
			return nil, err
		}
		c.layers = append(c.layers, l)
	}
	for i := len(c.layers) - 1; i >= 0; i-- {
		if c.layers[i].data != nil {
			c.tree = deepMerge(c.tree, c.layers[i].data)
		}
	}
	c.warnings = differenceWarnings(c.tree)
	return c, nil
}

// Warnings lists, sorted, a warning for each key of the merged
// configuration that salve reads differently from the original
// (Differences).
func (c *Config) Warnings() []string { return c.warnings }

func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

func loadLayer(origin, jsonPath, envPath, cwd string, getenv func(string) (string, bool)) (Layer, error) {
	l := Layer{Origin: origin, Path: jsonPath, Env: map[string]string{}}
	if b, err := safefile.Read(envPath, safefile.MaxConfig); err == nil {
		l.Env = ParseEnvFile(string(b))
	}
	b, err := safefile.Read(jsonPath, safefile.MaxConfig)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && origin != OriginConfig {
			return l, nil
		}
		return l, fmt.Errorf("read config %s: %w: %v", jsonPath, ErrConfig, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return l, fmt.Errorf("parse config %s: %w: %v", jsonPath, ErrConfig, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return l, fmt.Errorf("config %s: %w: not a JSON object", jsonPath, ErrConfig)
	}
	x := expander{origin: origin, path: jsonPath, env: l.Env, getenv: getenv, cwd: cwd}
	l.data = x.object(obj, nil).(map[string]any)
	resolveLayerPaths(l.data, filepath.Dir(jsonPath))
	return l, nil
}

var varRE = regexp.MustCompile(`\$\{([^}]*)\}`)

// expander performs the ${VAR} expansion of one layer
// (docs/contracts/ai-agent-cli.md §9.2).
type expander struct {
	origin, path string
	env          map[string]string
	getenv       func(string) (string, bool)
	cwd          string
}

func (x expander) object(v any, path []string) any {
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			t[k] = x.object(child, append(path, k))
		}
		return t
	case []any:
		for i, child := range t {
			t[i] = x.object(child, append(path, fmt.Sprint(i)))
		}
		return t
	case string:
		return x.str(t, path)
	default:
		return v
	}
}

// protected reports whether the whole value at path is passed through
// unexpanded: mcpServers.*.env and mcpServers.*.headers.
func protected(path []string) bool {
	return len(path) >= 3 && path[0] == "mcpServers" && (path[2] == "env" || path[2] == "headers")
}

func (x expander) str(s string, path []string) any {
	if protected(path) || !strings.Contains(s, "${") {
		return s
	}
	inREST := len(path) > 0 && path[0] == "restTools"
	inMCP := len(path) > 0 && path[0] == "mcpServers"
	var miss string
	out := varRE.ReplaceAllStringFunc(s, func(m string) string {
		name := m[2 : len(m)-1]
		if inREST && strings.HasPrefix(name, "parameters.") {
			return m
		}
		if v, ok := x.env[name]; ok {
			return v
		}
		if v, ok := x.getenv(name); ok && !(inMCP && name == "MCP_ROOT" && v == "") {
			return v
		}
		if inMCP && name == "MCP_ROOT" {
			return x.cwd
		}
		if miss == "" {
			miss = name
		}
		return m
	})
	if miss != "" {
		return missing{raw: s, name: miss, origin: x.origin, path: x.path}
	}
	return out
}

// resolveLayerPaths makes relative providers.*.scenarioFile and
// openapiSpecs.*.spec paths absolute against the layer file's directory.
func resolveLayerPaths(data map[string]any, dir string) {
	for _, f := range []struct{ section, key string }{{"providers", "scenarioFile"}, {"openapiSpecs", "spec"}} {
		entries, _ := data[f.section].(map[string]any)
		for _, e := range entries {
			em, _ := e.(map[string]any)
			if p, ok := em[f.key].(string); ok && p != "" && !filepath.IsAbs(p) && !strings.Contains(p, "://") {
				em[f.key] = filepath.Join(dir, p)
			}
		}
	}
}

// deepMerge merges hi over lo: objects key by key, everywhere; any other
// value of hi replaces lo's whole.
func deepMerge(lo, hi map[string]any) map[string]any {
	out := make(map[string]any, len(lo)+len(hi))
	for k, v := range lo {
		out[k] = v
	}
	for k, hv := range hi {
		hm, hiObj := hv.(map[string]any)
		lm, loObj := out[k].(map[string]any)
		if hiObj && loObj {
			out[k] = deepMerge(lm, hm)
			continue
		}
		out[k] = hv
	}
	return out
}

// Layers returns the layers in priority order, highest first.
func (c *Config) Layers() []Layer { return c.layers }

// Env returns the merged environment of the env files, higher layers first,
// then the process, for name; used for the protected mcpServers values.
func (c *Config) Env(name string) string {
	for _, l := range c.layers {
		if v, ok := l.Env[name]; ok {
			return v
		}
	}
	v, _ := c.getenv(name)
	return v
}

// Check raises MissingVariableError for an unresolved variable under the
// entry at path, such as ("providers", "openai") or ("defaults").
func (c *Config) Check(path ...string) error {
	entry := strings.Join(path, ".")
	node := c.lookup(path)
	if node == nil {
		return nil
	}
	if m := firstMissing(node); m != nil {
		return &MissingVariableError{Var: m.name, Entry: entry, Origin: m.origin, Path: m.path}
	}
	return nil
}

func firstMissing(v any) *missing {
	switch t := v.(type) {
	case missing:
		return &t
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if m := firstMissing(t[k]); m != nil {
				return m
			}
		}
	case []any:
		for _, child := range t {
			if m := firstMissing(child); m != nil {
				return m
			}
		}
	}
	return nil
}

func (c *Config) lookup(path []string) any {
	var node any = c.tree
	for _, part := range path {
		m, ok := node.(map[string]any)
		if !ok {
			return nil
		}
		if node, ok = m[part]; !ok {
			return nil
		}
	}
	return node
}

// Decode decodes the entry at path into v; an absent entry leaves v
// unchanged. Unresolved placeholders decode as their raw text, so call
// Check first for used entries.
func (c *Config) Decode(v any, path ...string) error {
	entry := strings.Join(path, ".")
	node := c.lookup(path)
	if node == nil {
		return nil
	}
	b, err := json.Marshal(node)
	if err != nil {
		return fmt.Errorf("decode %s: %w: %v", entry, ErrConfig, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w: %v", entry, ErrConfig, err)
	}
	return nil
}

// Keys lists the member names of an object entry, sorted.
func (c *Config) Keys(path ...string) []string {
	m, _ := c.lookup(path).(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Has reports whether the entry exists.
func (c *Config) Has(path ...string) bool { return c.lookup(path) != nil }

// Raw returns the value at path as decoded JSON (json.Number for numbers),
// or nil.
func (c *Config) Raw(path ...string) any { return c.lookup(path) }

package config

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// kind is how a setting's value parses.
type kind int

const (
	kindInt kind = iota
	kindIntOrUnset
	kindFloatOrUnset
	kindDuration
	kindBool
	kindEnum
	// kindIntOrOff is an integer, or "disabled", "off" or "none" for 0
	// (reasoningTokens).
	kindIntOrOff
)

// settingSpec is one row of the option table
// (docs/contracts/ai-agent-cli.md §3, §4).
type settingSpec struct {
	kind     kind
	min, max float64
	enum     []string
}

var reasoningLevels = []string{"none", "minimal", "low", "medium", "high"}

// settingTable lists every option that follows the precedence of
// docs/contracts/ai-agent-cli.md §4.
var settingTable = map[string]settingSpec{
	"maxTurns":             {kind: kindInt, min: 1, max: math.MaxInt32},
	"maxRetries":           {kind: kindInt, min: 0, max: math.MaxInt32},
	"maxToolCallsPerTurn":  {kind: kindInt, min: 1, max: math.MaxInt32},
	"maxOutputTokens":      {kind: kindInt, min: 1, max: math.MaxInt32},
	"toolResponseMaxBytes": {kind: kindInt, min: 0, max: math.MaxInt32},
	"reasoningTokens":      {kind: kindIntOrOff, min: 0, max: math.MaxInt32},
	"contextWindow":        {kind: kindInt, min: 1, max: math.MaxInt32},
	// contextWindowBufferTokens set by --override or the frontmatter
	// replaces every target's buffer; defaults.contextWindowBufferTokens
	// is only the entries' fallback (Config.BufferTokens).
	"contextWindowBufferTokens": {kind: kindInt, min: 0, max: math.MaxInt32},
	"llmTimeout":                {kind: kindDuration},
	"toolTimeout":               {kind: kindDuration},
	"temperature":               {kind: kindFloatOrUnset, min: 0, max: 2},
	"topP":                      {kind: kindFloatOrUnset, min: 0, max: 1},
	"repeatPenalty":             {kind: kindFloatOrUnset, min: 0, max: math.MaxFloat64},
	"topK":                      {kind: kindIntOrUnset, min: 1, max: math.MaxInt32},
	"stream":                    {kind: kindBool},
	"no-batch":                  {kind: kindBool},
	"no-progress":               {kind: kindBool},
	"reasoning":                 {kind: kindEnum, enum: reasoningLevels},
	"caching":                   {kind: kindEnum, enum: []string{"full", "none"}},
}

// settingAliases are the original's older names of an option: a source
// that sets both uses the option's own name.
var settingAliases = map[string]string{"maxToolTurns": "maxTurns"}

// canonicalKey is key, or the option an alias names.
func canonicalKey(key string) string {
	if k, ok := settingAliases[key]; ok {
		return k
	}
	return key
}

// Value is a parsed setting. Unset means "not sent" (UNSET spellings).
type Value struct {
	Unset bool
	Int   int
	Float float64
	Dur   time.Duration
	Bool  bool
	Str   string
}

// ParseSetting parses the value of the option key from a flag string, a
// JSON value of the config's defaults or a YAML value of the frontmatter.
// Errors wrap ErrConfig and name the key.
func ParseSetting(key string, v any) (Value, error) {
	spec, ok := settingTable[canonicalKey(key)]
	if !ok {
		return Value{}, fmt.Errorf("%w: unknown option %q", ErrConfig, key)
	}
	val, err := parseKind(spec, v)
	if err != nil {
		return Value{}, fmt.Errorf("%w: invalid value %v for %s: %v", ErrConfig, printable(v), key, err)
	}
	return val, nil
}

func printable(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func parseKind(spec settingSpec, v any) (Value, error) {
	s, isStr := v.(string)
	if isStr {
		s = strings.TrimSpace(s)
	}
	if spec.kind == kindIntOrOff {
		if isStr && slices.Contains([]string{"disabled", "off", "none"}, strings.ToLower(s)) {
			return Value{}, nil
		}
		spec.kind = kindInt
	}
	switch spec.kind {
	case kindDuration:
		if isStr {
			d, err := ParseDuration(s)
			return Value{Dur: d}, err
		}
		f, err := number(v)
		if err != nil || f < 0 || f != math.Trunc(f) || f > float64(math.MaxInt64/int64(time.Millisecond)) {
			return Value{}, fmt.Errorf("not a duration")
		}
		return Value{Dur: time.Duration(f) * time.Millisecond}, nil
	case kindBool:
		if b, ok := v.(bool); ok {
			return Value{Bool: b}, nil
		}
		b, err := strconv.ParseBool(s)
		if !isStr || err != nil {
			return Value{}, fmt.Errorf("not a boolean")
		}
		return Value{Bool: b}, nil
	case kindEnum:
		if !isStr {
			return Value{}, fmt.Errorf("not a string")
		}
		for _, e := range spec.enum {
			if strings.EqualFold(s, e) {
				return Value{Str: e}, nil
			}
		}
		return Value{}, fmt.Errorf("must be one of %s", strings.Join(spec.enum, ", "))
	}
	if v == nil || (isStr && IsUnset(s)) {
		if spec.kind == kindInt {
			return Value{}, fmt.Errorf("cannot be unset")
		}
		return Value{Unset: true}, nil
	}
	f, err := number(v)
	if err != nil {
		return Value{}, err
	}
	if f < spec.min || f > spec.max {
		return Value{}, fmt.Errorf("out of range")
	}
	if spec.kind == kindFloatOrUnset {
		return Value{Float: f}, nil
	}
	if f != math.Trunc(f) {
		return Value{}, fmt.Errorf("not an integer")
	}
	return Value{Int: int(f)}, nil
}

func number(v any) (float64, error) {
	switch t := v.(type) {
	case json.Number:
		return t.Float64()
	case float64:
		return t, nil
	case int:
		return float64(t), nil
	case int64:
		return float64(t), nil
	case uint64:
		return float64(t), nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("not a number")
		}
		return f, nil
	}
	return 0, fmt.Errorf("not a number")
}

// Sources are the places an option may be set, in precedence order
// (docs/contracts/ai-agent-cli.md §4): --override, the CLI flag, the
// frontmatter, the config's defaults.
type Sources struct {
	Override    map[string]string
	CLI         map[string]string
	Frontmatter map[string]any
	Defaults    map[string]any
}

// Resolve returns the first value set for key, and whether one was. In
// each source the option's own name beats an older alias of it.
func (s Sources) Resolve(key string) (Value, bool, error) {
	names := []string{key}
	for alias, k := range settingAliases {
		if k == key {
			names = append(names, alias)
		}
	}
	for _, src := range []struct {
		what string
		get  func(string) (any, bool)
	}{
		{"", func(k string) (any, bool) { v, ok := s.Override[k]; return v, ok }},
		{"", func(k string) (any, bool) { v, ok := s.CLI[k]; return v, ok }},
		{"", func(k string) (any, bool) { v, ok := s.Frontmatter[k]; return v, ok }},
		{"defaults", func(k string) (any, bool) { v, ok := s.Defaults[k]; return v, ok }},
	} {
		for _, name := range names {
			v, ok := src.get(name)
			if !ok {
				continue
			}
			val, err := ParseSetting(name, v)
			if err != nil && src.what != "" {
				err = fmt.Errorf("%s: %w", src.what, err)
			}
			return val, true, err
		}
	}
	return Value{}, false, nil
}

// OverrideKeys are the keys --override accepts
// (docs/contracts/ai-agent-cli.md §4), beyond the option table: the lists
// and two accepted-and-ignored keys.
var OverrideKeys = map[string]bool{"models": true, "tools": true, "agents": true, "mcpInitConcurrency": true, "interleaved": true}

// ParseOverride splits one --override K=V; unknown keys and a missing "="
// are errors.
func ParseOverride(kv string) (string, string, error) {
	k, v, ok := strings.Cut(kv, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return "", "", fmt.Errorf("%w: --override %q: expected KEY=VALUE", ErrConfig, kv)
	}
	_, known := settingTable[canonicalKey(k)]
	if !known && !OverrideKeys[k] {
		return "", "", fmt.Errorf("%w: --override: unknown key %q", ErrConfig, k)
	}
	if known {
		if _, err := ParseSetting(k, v); err != nil {
			return "", "", fmt.Errorf("--override: %w", err)
		}
	}
	return k, v, nil
}

// SplitList splits a comma-separated list, trimming and dropping empties.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Int parses an integer of at least minimum from a JSON, YAML or flag value.
func Int(v any, minimum int) (int, error) {
	val, err := parseKind(settingSpec{kind: kindInt, min: float64(minimum), max: math.MaxInt32}, v)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return val.Int, nil
}

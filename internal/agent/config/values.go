// Package config loads the ai-agent configuration
// (docs/contracts/ai-agent.md §7; docs/contracts/ai-agent-cli.md §4, §9,
// §10): the six layers of .ai-agent.json with their .ai-agent.env files,
// deep merge, ${VAR} expansion with protected placeholders, .ai frontmatter,
// and the precedence of every session option.
package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ErrConfig marks an invalid argument, configuration or validation error
// (exit 4 in the CLI). Errors of this package wrap it.
var ErrConfig = errors.New("configuration error")

// IsUnset reports whether s is one of the UNSET spellings of
// docs/contracts/ai-agent-cli.md §3: none, off, unset, default or null, in
// any case.
func IsUnset(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none", "off", "unset", "default", "null":
		return true
	}
	return false
}

// durationUnits are the DURATION units of docs/contracts/ai-agent-cli.md §3.
var durationUnits = []struct {
	suffix string
	unit   time.Duration
}{
	{"ms", time.Millisecond},
	{"mo", 30 * 24 * time.Hour},
	{"s", time.Second},
	{"m", time.Minute},
	{"h", time.Hour},
	{"d", 24 * time.Hour},
	{"w", 7 * 24 * time.Hour},
	{"y", 365 * 24 * time.Hour},
}

// ParseDuration parses a DURATION (docs/contracts/ai-agent-cli.md §3): a
// non-negative integer of milliseconds, or a decimal with a unit
// ms|s|m|h|d|w|mo|y ("90s", "1.5m").
func ParseDuration(s string) (time.Duration, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return 0, fmt.Errorf("parse duration %q: %w: empty", s, ErrConfig)
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		if n < 0 || n > math.MaxInt64/int64(time.Millisecond) {
			return 0, fmt.Errorf("parse duration %q: %w: out of range", s, ErrConfig)
		}
		return time.Duration(n) * time.Millisecond, nil
	}
	for _, u := range durationUnits {
		num, ok := strings.CutSuffix(t, u.suffix)
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f*float64(u.unit) > math.MaxInt64 {
			return 0, fmt.Errorf("parse duration %q: %w", s, ErrConfig)
		}
		return time.Duration(f * float64(u.unit)), nil
	}
	return 0, fmt.Errorf("parse duration %q: %w: unknown unit", s, ErrConfig)
}

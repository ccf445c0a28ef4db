package config

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var (
	cacheMs    = regexp.MustCompile(`^\d+(\.\d+)?$`)
	cacheDur   = regexp.MustCompile(`(?i)^(\d+(?:\.\d+)?)(mo|ms|s|m|h|d|w|y)$`)
	cacheUnits = map[string]float64{
		"ms": 1, "s": 1e3, "m": 60e3, "h": 3600e3, "d": 86400e3, "w": 7 * 86400e3, "mo": 30 * 86400e3, "y": 365 * 86400e3,
	}
)

// maxCacheTTL keeps a parsed TTL inside time.Duration.
const maxCacheTTL = time.Duration(math.MaxInt64)

// ParseCacheTTL reads a cache duration as the original does: a number of
// milliseconds, "off" (0), a millisecond number as text, or a number with
// a unit (ms, s, m, h, d, w, mo = 30 days, y = 365 days). set is false for
// an empty or absent value. what names the setting in errors.
func ParseCacheTTL(what string, v any) (ttl time.Duration, set bool, err error) {
	bad := fmt.Errorf("%w: %s cache duration must be 'off', a millisecond number, or a duration like 5m/2h/1d", ErrConfig, what)
	var ms float64
	switch t := v.(type) {
	case nil:
		return 0, false, nil
	case float64:
		ms = t
	case int:
		ms = float64(t)
	case int64:
		ms = float64(t)
	case string:
		s := strings.TrimSpace(t)
		switch {
		case s == "":
			return 0, false, nil
		case strings.EqualFold(s, "off"):
			return 0, true, nil
		case cacheMs.MatchString(s):
			ms, _ = strconv.ParseFloat(s, 64)
		default:
			m := cacheDur.FindStringSubmatch(s)
			if m == nil {
				return 0, false, bad
			}
			n, _ := strconv.ParseFloat(m[1], 64)
			ms = n * cacheUnits[strings.ToLower(m[2])]
		}
	default:
		return 0, false, bad
	}
	if math.IsNaN(ms) || math.IsInf(ms, 0) || ms < 0 {
		return 0, false, bad
	}
	if ms >= float64(maxCacheTTL/time.Millisecond) {
		return maxCacheTTL, true, nil
	}
	return time.Duration(math.Trunc(ms)) * time.Millisecond, true, nil
}

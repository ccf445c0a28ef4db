package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// stageName is a stage's name as the timeline shows it: the fix stages,
// recorded as "fix:TIER", read "fix: TIER".
func stageName(name string) string {
	if stage, sub, ok := strings.Cut(name, ":"); ok {
		return stage + ": " + sub
	}
	return name
}

// detailKey is one key of a stage's detail that the timeline words
// itself, rather than showing "key: value".
type detailKey struct {
	key  string
	word func(v any) (string, bool)
}

// detailKeys lists the detail keys with words of their own, in the order
// they are shown: a heal's iteration (0 is the build before any fix) and
// an exec's exit code.
var detailKeys = []detailKey{
	{"iteration", func(v any) (string, bool) {
		n, ok := wholeNumber(v)
		switch {
		case !ok:
			return "", false
		case n == 0:
			return "before fixing", true
		}
		return fmt.Sprintf("iteration %d", n), true
	}},
	{"exit_code", func(v any) (string, bool) {
		n, ok := wholeNumber(v)
		if !ok {
			return "", false
		}
		return fmt.Sprintf("exit code %d", n), true
	}},
}

// maxDetail bounds the text of one stage's detail.
const maxDetail = 200

// stageDetail is a stage's detail (a JSON object) in words: its known keys
// worded by detailKeys, any other key as "key: value", and "" for no
// detail. Text that is not a JSON object is shown as it is, cut to
// maxDetail bytes.
func stageDetail(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return cut(string(raw))
	}
	var parts []string
	for _, k := range detailKeys {
		v, ok := obj[k.key]
		if !ok {
			continue
		}
		if w, ok := k.word(v); ok {
			parts = append(parts, w)
			delete(obj, k.key)
		}
	}
	rest := make([]string, 0, len(obj))
	for k := range obj {
		rest = append(rest, k)
	}
	sort.Strings(rest)
	for _, k := range rest {
		parts = append(parts, strings.ReplaceAll(k, "_", " ")+": "+detailValue(obj[k]))
	}
	return cut(strings.Join(parts, ", "))
}

// detailValue is one value of a detail: strings as they are, anything
// else as compact JSON.
func detailValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// wholeNumber reports v as an int when it is a JSON number without a
// fraction.
func wholeNumber(v any) (int64, bool) {
	f, ok := v.(float64)
	if !ok || f != float64(int64(f)) {
		return 0, false
	}
	return int64(f), true
}

// cut bounds s to maxDetail bytes, on a rune boundary, marking the cut.
func cut(s string) string {
	if len(s) <= maxDetail {
		return s
	}
	i := maxDetail
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

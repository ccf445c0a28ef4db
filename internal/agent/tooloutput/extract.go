package tooloutput

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Success formats an extraction result so that the whole text is at most
// limit bytes (limit ≤ 0: no cap).
func Success(e *Entry, mode, body string, limit int) string {
	header := fmt.Sprintf("ABSTRACT FROM TOOL OUTPUT %s WITH HANDLE %s, STRATEGY:%s:\n\n", e.Tool, e.Handle, mode)
	if limit <= 0 {
		return header + body
	}
	if len(header) > limit {
		return "tool_output response truncated: size cap too small for payload."
	}
	return header + cut(body, limit-len(header))
}

// Failure formats a failed extraction.
func Failure(tool, handle, mode, msg string) string {
	return fmt.Sprintf("TOOL_OUTPUT FAILED FOR %s WITH HANDLE %s, STRATEGY:%s:\n\n%s", tool, handle, mode, msg)
}

// NotFound is the (successful) answer for an unknown handle.
func NotFound(handle string) string {
	return fmt.Sprintf("No stored tool output found for handle %s. It may have expired or been cleaned up.", handle)
}

// FallbackPrefix starts a truncate result that replaced a failed mode.
func FallbackPrefix(reason string) string {
	return fmt.Sprintf("WARNING: tool_output fallback to truncate (%s).\n", reason)
}

// cut returns the longest prefix of s of at most n bytes ending on a rune
// boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Head is the start of content that fits in limit bytes.
func Head(content string, limit int) string {
	if limit <= 0 {
		return content
	}
	return cut(content, limit)
}

// Lines returns the numbered lines of a range: "A-B", "A-", "A" or
// "A:COUNT", 1-based and inclusive.
func Lines(content, spec string) (string, error) {
	lines := strings.Split(content, "\n")
	from, to, err := parseRange(strings.TrimSpace(spec), len(lines))
	if err != nil {
		return "", err
	}
	if from > len(lines) {
		return "", fmt.Errorf("line %d is past the end (%d lines)", from, len(lines))
	}
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d: %s\n", i, lines[i-1])
	}
	return b.String(), nil
}

func parseRange(spec string, n int) (from, to int, err error) {
	bad := fmt.Errorf("line range %q: want A-B, A-, A:COUNT or A", spec)
	atoi := func(s string) (int, bool) {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		return v, err == nil && v >= 1
	}
	switch {
	case strings.Contains(spec, ":"):
		a, c, _ := strings.Cut(spec, ":")
		f, ok1 := atoi(a)
		k, ok2 := atoi(c)
		if !ok1 || !ok2 {
			return 0, 0, bad
		}
		from, to = f, f+k-1
	case strings.Contains(spec, "-"):
		a, b, _ := strings.Cut(spec, "-")
		f, ok := atoi(a)
		if !ok {
			return 0, 0, bad
		}
		from, to = f, n
		if strings.TrimSpace(b) != "" {
			if to, ok = atoi(b); !ok {
				return 0, 0, bad
			}
		}
	default:
		f, ok := atoi(spec)
		if !ok {
			return 0, 0, bad
		}
		from, to = f, f
	}
	if to < from {
		return 0, 0, bad
	}
	return from, min(to, n), nil
}

// Grep returns the numbered lines matching pattern: a regular expression
// (RE2, case-insensitive), or, when it does not compile or matches nothing,
// words (three letters or more) of which a line must contain one.
func Grep(content, pattern string) string {
	lines := strings.Split(content, "\n")
	pattern = strings.TrimSpace(pattern)
	if re, err := regexp.Compile("(?i)" + pattern); err == nil {
		if out := grepLines(lines, re.MatchString); out != "" {
			return out
		}
	}
	if out := grepLines(lines, keywords(pattern)); out != "" {
		return out
	}
	return NoData
}

func grepLines(lines []string, match func(string) bool) string {
	var b strings.Builder
	for i, line := range lines {
		if match(line) {
			fmt.Fprintf(&b, "%d: %s\n", i+1, line)
		}
	}
	return b.String()
}

func keywords(pattern string) func(string) bool {
	var words []string
	for _, w := range strings.Fields(strings.ToLower(pattern)) {
		if w = strings.Trim(w, ".,;:!?\"'()[]{}"); len(w) >= 3 {
			words = append(words, w)
		}
	}
	return func(line string) bool {
		l := strings.ToLower(line)
		for _, w := range words {
			if strings.Contains(l, w) {
				return true
			}
		}
		return false
	}
}

// Chunks splits content into pieces of at most size bytes, each starting
// overlapPct percent of size before the previous one ended, cut on rune
// boundaries.
func Chunks(content string, size, overlapPct int) []string {
	size = max(size, 512)
	if len(content) <= size {
		return []string{content}
	}
	step := max(size-size*overlapPct/100, 1)
	var out []string
	for start := 0; start < len(content); {
		end := min(start+size, len(content))
		for end < len(content) && !utf8.RuneStart(content[end]) {
			end--
		}
		out = append(out, content[start:end])
		if end == len(content) {
			break
		}
		next := start + step
		for next < len(content) && !utf8.RuneStart(content[next]) {
			next++
		}
		start = min(next, end)
	}
	return out
}

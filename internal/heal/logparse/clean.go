package logparse

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/salve-dev/salve/internal/ansi"
)

// cleanLine removes what terminals and CI systems add around a tool's own
// output: ANSI escape sequences, carriage-return overprinting, and the line
// prefixes of GitHub Actions, Azure Pipelines, GitLab, Jenkins and Docker
// BuildKit. It never allocates when the line needs no change.
func cleanLine(s string) string { return cleanMasked(s, maskOf(s)) }

// cleanMasked is cleanLine for a line whose byte mask is m: the mask
// spares the searches for bytes the line does not hold.
func cleanMasked(s string, m byteMask) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	if m&maskCR != 0 {
		if i := lastCR(s); i >= 0 {
			// A bare CR overprints the line: keep what a terminal would
			// show, unless what follows is only an escape sequence
			// (GitLab sections).
			if after := ansi.Strip(s[i+1:]); strings.TrimSpace(after) != "" {
				s = s[i+1:]
			} else {
				s = s[:i]
			}
		}
	}
	if m&maskESC != 0 && strings.IndexByte(s, 0x1b) >= 0 {
		s = ansi.Strip(s)
	}
	return stripPrefixes(s)
}

// lastCR is the index of the last carriage return in s, or -1. It checks
// with the vectorised IndexByte first: most lines have none.
func lastCR(s string) int {
	if strings.IndexByte(s, '\r') < 0 {
		return -1
	}
	return strings.LastIndexByte(s, '\r')
}

// stripPrefixes removes CI line prefixes, repeatedly, since they nest (a
// BuildKit step inside a GitHub Actions job has both).
func stripPrefixes(s string) string {
	for n := 0; n < 4; n++ {
		t := stripOnePrefix(s)
		if t == s {
			return s
		}
		s = t
	}
	return s
}

func stripOnePrefix(s string) string {
	if len(s) < 3 {
		return s
	}
	switch c := s[0]; {
	case c >= '0' && c <= '9':
		// BuildKit's summary of a failed step: "0.412 <text>" (seconds, three decimals).
		if n := buildkitSeconds(s); n > 0 {
			return s[n:]
		}
		// GitHub Actions / Azure: 2024-01-15T10:20:30.1234567Z <text>
		if n := isoStamp(s); n > 0 {
			rest := s[n:]
			// GitLab job log timestamps: "<stamp> 00O <text>" or "00O+".
			if len(rest) >= 4 && isDigit(rest[0]) && isDigit(rest[1]) && (rest[2] == 'O' || rest[2] == 'E') {
				j := 3
				if j < len(rest) && rest[j] == '+' {
					j++
				}
				if j < len(rest) && rest[j] == ' ' {
					return rest[j+1:]
				}
				if j == len(rest) {
					return ""
				}
			}
			return rest
		}
	case c == '[':
		// Jenkins timestamper: [2024-01-15T10:20:30.123Z] <text>
		if len(s) > 12 && isDigit(s[1]) {
			if n := isoStamp(s[1:]); n > 0 {
				rest := s[1+n:]
				rest = strings.TrimLeft(rest, " ")
				if hasPrefix(rest, "]") {
					return strings.TrimPrefix(rest[1:], " ")
				}
			}
			// [10:20:30] style; TeamCity adds "W:\t [Step 1/2] "
			if len(s) > 10 && s[3] == ':' && s[6] == ':' && s[9] == ']' {
				rest := s[10:]
				if len(rest) > 2 && rest[0] >= 'A' && rest[0] <= 'Z' && rest[1] == ':' {
					rest = strings.TrimLeft(rest[2:], " \t")
					if hasPrefix(rest, "[Step ") {
						if i := strings.Index(rest, "] "); i > 0 {
							rest = rest[i+2:]
						}
					}
					return rest
				}
				return strings.TrimPrefix(rest, " ")
			}
		}
	case c == '#':
		// GitHub/Azure problem-matcher echoes: "##[error]text".
		if hasPrefix(s, "##[") {
			for _, pre := range []string{"##[error]", "##[warning]", "##[debug]", "##[section]", "##[command]"} {
				if hasPrefix(s, pre) {
					return s[len(pre):]
				}
			}
		}
		// Docker BuildKit: "#12 0.123 <text>"
		j := 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j > 1 && j < len(s) && s[j] == ' ' {
			k := j + 1
			d := k
			for k < len(s) && (isDigit(s[k]) || s[k] == '.') {
				k++
			}
			if k > d && strings.IndexByte(s[d:k], '.') > 0 {
				if k == len(s) {
					return ""
				}
				if s[k] == ' ' {
					return s[k+1:]
				}
			}
		}
	case c == 't':
		if hasPrefix(s, "travis_fold:") || hasPrefix(s, "travis_time:") {
			return ""
		}
	case c == 's':
		// GitLab section markers: section_start:1700000000:name[collapsed=true]
		if hasPrefix(s, "section_start:") || hasPrefix(s, "section_end:") {
			return ""
		}
	}
	return s
}

// isoStamp returns the length of an RFC 3339 timestamp (with optional
// fraction and zone) and one following space at the start of s, or 0.
func isoStamp(s string) int {
	// 2024-01-15T10:20:30
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':' {
		return 0
	}
	for _, i := range []int{0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18} {
		if !isDigit(s[i]) {
			return 0
		}
	}
	j := 19
	if j < len(s) && (s[j] == '.' || s[j] == ',') {
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	if j < len(s) && s[j] == 'Z' {
		j++
	} else if j+5 < len(s) && (s[j] == '+' || s[j] == '-') && isDigit(s[j+1]) {
		j += 6
	}
	if j < len(s) && s[j] == ' ' {
		return j + 1
	}
	if j == len(s) {
		return j
	}
	if s[j] == ']' {
		return j
	}
	return 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// buildkitSeconds returns the length of a "12.345 " prefix, or 0.
func buildkitSeconds(s string) int {
	i := 0
	for i < len(s) && i < 6 && isDigit(s[i]) {
		i++
	}
	if i == 0 || i+5 > len(s) || s[i] != '.' || !isDigit(s[i+1]) || !isDigit(s[i+2]) || !isDigit(s[i+3]) || s[i+4] != ' ' {
		return 0
	}
	return i + 5
}

// hasPrefix is strings.HasPrefix with the first byte compared in line.
// The compiler calls memequal for a constant prefix as long as the string
// is long enough, and the readers test each line against many prefixes
// that most lines differ from at once; the first byte settles those.
func hasPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && (len(prefix) == 0 || s[0] == prefix[0]) && s[:len(prefix)] == prefix
}

// hasSuffix is strings.HasSuffix with the last byte compared in line, as
// hasPrefix does with the first.
func hasSuffix(s, suffix string) bool {
	n, m := len(s), len(suffix)
	return n >= m && (m == 0 || s[n-1] == suffix[m-1]) && s[n-m:] == suffix
}

// trimIndent removes leading spaces and tabs: strings.TrimLeft(s, " \t")
// without building a set on every line.
func trimIndent(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[i:]
}

// trimmedLead returns the first byte of strings.TrimSpace(s), or 0 when
// s is blank, without trimming: it skips ASCII white space, and trims in
// full only a line that goes on with a Unicode space.
func trimmedLead(s string) byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\v', '\f', '\r':
		default:
			if c < utf8.RuneSelf {
				return c
			}
			if r, _ := utf8.DecodeRuneInString(s[i:]); !unicode.IsSpace(r) {
				return c
			}
			if t := strings.TrimSpace(s); t != "" {
				return t[0]
			}
			return 0
		}
	}
	return 0
}

// isRESpace reports whether c is a blank as \s reads it in a regular
// expression: tab, newline, form feed, carriage return or space.
func isRESpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// trimLeftRESpace removes the leading bytes that ^\s* matches in a
// regular expression. An expression that wants a marker after them can
// only match where the trimmed line starts with it: a cheap test before
// it runs.
func trimLeftRESpace(s string) string {
	i := 0
	for i < len(s) && isRESpace(s[i]) {
		i++
	}
	return s[i:]
}

// isBlank reports whether s holds only white space, as
// strings.TrimSpace(s) == "" does, stopping at the first other byte.
func isBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r':
		default:
			if s[i] >= 0x80 {
				return strings.TrimSpace(s[i:]) == "" // Unicode spaces
			}
			return false
		}
	}
	return true
}

package agent

import (
	"fmt"
	"strings"
)

// Output formats (docs/contracts/ai-agent-cli.md §5), by canonical name.
const (
	FormatMarkdown        = "markdown"
	FormatMarkdownMermaid = "markdown+mermaid"
	FormatPipe            = "pipe"
	FormatTTY             = "tty"
	FormatJSON            = "json"
	FormatSlack           = "slack-block-kit"
	FormatSubAgent        = "sub-agent"
)

// formatAliases maps every accepted spelling to its canonical format.
var formatAliases = map[string]string{
	"markdown":         FormatMarkdown,
	"markdown+mermaid": FormatMarkdownMermaid,
	"pipe":             FormatPipe,
	"text":             FormatPipe,
	"plain":            FormatPipe,
	"plaintext":        FormatPipe,
	"plain-text":       FormatPipe,
	"tty":              FormatTTY,
	"ansi":             FormatTTY,
	"terminal":         FormatTTY,
	"json":             FormatJSON,
	"slack-block-kit":  FormatSlack,
	"sub-agent":        FormatSubAgent,
}

// formatDescriptions are the values of the FORMAT prompt variable.
var formatDescriptions = map[string]string{
	FormatMarkdown:        "markdown",
	FormatMarkdownMermaid: "markdown with mermaid diagrams",
	FormatPipe:            "plain text without markdown",
	FormatTTY:             "text for a terminal, ANSI colours allowed",
	FormatJSON:            "json",
	FormatSlack:           "Slack Block Kit messages",
	FormatSubAgent:        "free text for the calling agent",
}

// CanonicalFormat resolves a format name or alias, trimmed and in any case.
func CanonicalFormat(name string) (string, error) {
	f, ok := formatAliases[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return "", fmt.Errorf("unknown output format %q", name)
	}
	return f, nil
}

// FormatDescription is the short description of a canonical format used for
// the FORMAT prompt variable; for json it is exactly "json".
func FormatDescription(format string) string {
	if d, ok := formatDescriptions[format]; ok {
		return d
	}
	return format
}

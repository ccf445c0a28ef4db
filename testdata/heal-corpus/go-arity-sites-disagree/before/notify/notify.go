// Package notify formats and sends alert messages.
package notify

import (
	"fmt"
	"strings"
)

// Alert is one firing alert.
type Alert struct {
	Name     string
	Severity string
	Labels   map[string]string
}

// Format renders an alert on one line.
func Format(a Alert) string {
	return fmt.Sprintf("[%s] %s", strings.ToUpper(a.Severity), a.Name)
}

// Digest renders several alerts, one a line.
func Digest(as []Alert) string {
	lines := make([]string, 0, len(as))
	for _, a := range as {
		lines = append(lines, Format(a))
	}
	return strings.Join(lines, "\n")
}

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

// Format renders an alert on one line, with the labels named in show.
func Format(a Alert, show []string) string {
	s := fmt.Sprintf("[%s] %s", strings.ToUpper(a.Severity), a.Name)
	for _, k := range show {
		if v, ok := a.Labels[k]; ok {
			s += fmt.Sprintf(" %s=%s", k, v)
		}
	}
	return s
}

// Digest renders several alerts, one a line, with their instance.
func Digest(as []Alert) string {
	lines := make([]string, 0, len(as))
	for _, a := range as {
		lines = append(lines, Format(a, []string{"instance"}))
	}
	return strings.Join(lines, "\n")
}

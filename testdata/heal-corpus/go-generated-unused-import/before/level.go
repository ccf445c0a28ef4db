// Package level names log levels.
package level

//go:generate go run ./internal/gen -o level_string.go

// Level is a log level.
type Level int

// The levels, least severe first.
const (
	Debug Level = iota
	Info
	Warn
	Error
)

// Enabled reports whether a message at level m passes a threshold of l.
func (l Level) Enabled(m Level) bool { return m >= l }

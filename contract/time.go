package contract

import "time"

// TimeLayout is the layout of every timestamp string in the contract types:
// RFC 3339 in UTC with milliseconds, such as 2025-12-07T01:00:45.123Z.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// Timestamp formats t in UTC with [TimeLayout].
func Timestamp(t time.Time) string {
	return t.UTC().Format(TimeLayout)
}

// Package dur parses durations like "3h" and "15m".
package dur

import (
	"errors"
	"strconv"
)

// Parse returns the duration in minutes.
func Parse(s string) (int, error) {
	n, err := strconv.Atoi(s[:len(s)-1])
	if err != nil {
		return 0, err
	}
	switch s[len(s)-1] {
	case 'h':
		return n * 60, nil
	case 'm':
		return n, nil
	}
	return 0, errors.New("bad unit")
}

// Format is the inverse of Parse.
func Format(min int) string {
	if min%60 == 0 {
		return strconv.Itoa(min/60) + "h"
	}
	return strconv.Itoa(min) + "m"
}

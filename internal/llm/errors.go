package llm

import (
	"errors"
	"fmt"
	"time"
)

// Class is the category of a provider failure
// (docs/contracts/ai-agent.md §3; docs/contracts/ai-agent-cli.md §9.4).
type Class string

// The failure classes. Auth and Quota are fatal; RateLimit waits then cycles;
// the rest cycle to the next target at once. InvalidResponse gets the
// engine's synthetic retry.
const (
	ClassAuth            Class = "auth"
	ClassQuota           Class = "quota"
	ClassRateLimit       Class = "rate_limit"
	ClassNetwork         Class = "network"
	ClassTimeout         Class = "timeout"
	ClassServer          Class = "server"
	ClassModel           Class = "model"
	ClassInvalidResponse Class = "invalid_response"
	// ClassFatal is any other error that must end the session at once, such
	// as a failed test-llm expectation.
	ClassFatal Class = "fatal"
)

// Error is a classified provider failure.
type Error struct {
	Class Class
	// Status is the HTTP status, or 0.
	Status int
	// RetryAfter is the wait the provider asked for, or 0.
	RetryAfter time.Duration
	// Message is a one-line description fit for result.error.
	Message string
	// Err is the underlying error, if any.
	Err error
}

// Error returns the class, the HTTP status when known, and the message.
func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s (HTTP %d): %s", e.Class, e.Status, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Class, e.Message)
}

// Unwrap returns the underlying error, for errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }

// Fatal reports whether the error must end the session with no retry.
func (e *Error) Fatal() bool {
	return e.Class == ClassAuth || e.Class == ClassQuota || e.Class == ClassFatal
}

// AsError returns err as a *Error, wrapping an unclassified error as
// ClassModel.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Class: ClassModel, Message: err.Error(), Err: err}
}

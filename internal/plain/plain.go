// Package plain is the one rule for errors a person reads: a layer that
// knows what went wrong in the user's terms wraps its error with one
// sentence saying so and what to do next, and the programs print that
// sentence instead of the chain of internal prefixes ("heal: build could
// not run: environment missing: bad input: executor: …"), which stays for
// --log-level debug.
package plain

import "errors"

// Error is an error with a sentence for people. It wraps Err, so
// errors.Is and errors.As see through it.
type Error struct {
	Err  error
	Text string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Wrap returns err with text as its sentence for people; nil when err is
// nil.
func Wrap(err error, text string) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err, Text: text}
}

// Message returns the sentence for people of the outermost Error in err's
// chain, else err's own text; "" when err is nil.
func Message(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e.Text != "" {
		return e.Text
	}
	return err.Error()
}

package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/assemble"
	"github.com/salve-dev/salve/internal/isolation"
)

// The flag checks shared by the commands. Each returns an error that names
// the flag and the value, and the commands exit 2 with it.

// maxIterationsLimit bounds --max-iterations: each iteration is at least
// one build, so a larger number is a typo.
const maxIterationsLimit = 100

// isEnvName reports whether s is a variable name: a letter or _, then
// letters, digits and _. (A loop rather than a regexp, to add no work to
// every salve start.)
func isEnvName(s string) bool {
	for i, c := range s {
		if c != '_' && !('A' <= c && c <= 'Z') && !('a' <= c && c <= 'z') && (i == 0 || !('0' <= c && c <= '9')) {
			return false
		}
	}
	return s != ""
}

func checkConfidence(v float64) error {
	if math.IsNaN(v) || v < 0 || v > 1 {
		return fmt.Errorf("--min-confidence must be a number from 0 to 1, got %v", v)
	}
	return nil
}

func checkIsolation(v string) error {
	if !slices.Contains(isolation.Names(), v) {
		return fmt.Errorf("--isolation must be one of %s, got %q", strings.Join(isolation.Names(), ", "), v)
	}
	return nil
}

func checkTimeoutSeconds(v int) error {
	if v <= 0 {
		return fmt.Errorf("--timeout must be a positive number of seconds, got %d", v)
	}
	return nil
}

func checkDir(flag, v string) error {
	if v == "" {
		return fmt.Errorf("%s must not be empty", flag)
	}
	st, err := os.Stat(v)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, v, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s %s: not a folder", flag, v)
	}
	return nil
}

// validate checks the flags of "salve heal" before anything runs.
func (o *healOptions) validate() error {
	switch {
	case o.MaxIterations < 1 || o.MaxIterations > maxIterationsLimit:
		return fmt.Errorf("--max-iterations must be from 1 to %d, got %d", maxIterationsLimit, o.MaxIterations)
	case o.Push && (o.Remote == "" || strings.HasPrefix(o.Remote, "-")):
		return fmt.Errorf("--remote must name a remote, got %q", o.Remote)
	case strings.HasPrefix(o.Branch, "-"):
		return fmt.Errorf("--branch must not start with '-', got %q", o.Branch)
	}
	if err := checkConfidence(o.MinConfidence); err != nil {
		return err
	}
	if err := checkDuration("--ci-timeout", o.CITimeout); err != nil {
		return err
	}
	if err := checkTimeoutSeconds(o.Timeout); err != nil {
		return err
	}
	if err := checkIsolation(o.Isolation); err != nil {
		return err
	}
	return checkDir("--workspace", o.Workspace)
}

// validate checks the flags of "salve fix".
func (o *fixOptions) validate() error {
	if err := checkConfidence(o.heal.MinConfidence); err != nil {
		return err
	}
	return checkDir("--workspace", o.heal.Workspace)
}

// validate checks the flags of "salve exec".
func (o *execOptions) validate() error {
	if o.MaxLog < 0 {
		return fmt.Errorf("--max-log must be a number of bytes, 0 or more, got %d", o.MaxLog)
	}
	for _, n := range o.Env {
		if !isEnvName(n) {
			return fmt.Errorf("--env takes a variable name (letters, digits and _), got %q", n)
		}
	}
	if err := checkTimeoutSeconds(o.Timeout); err != nil {
		return err
	}
	if err := checkIsolation(o.Isolation); err != nil {
		return err
	}
	return checkDir("--workspace", o.Workspace)
}

// checkDuration is the check of a positive duration flag.
func checkDuration(flag string, d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("%s must be a positive duration, got %s", flag, d)
	}
	return nil
}

// keepFlag is --keep-worktree: alone it means true (always keep), and it
// takes =false (always remove) or =auto (the default: keep a large
// repository's worktree, clean, for the next heal).
type keepFlag struct{ k *heal.WorktreeKeep }

func (f keepFlag) String() string {
	if f.k == nil {
		return heal.KeepAuto.String()
	}
	return f.k.String()
}

func (f keepFlag) Set(s string) error {
	k, err := heal.ParseWorktreeKeep(s)
	if err != nil {
		return fmt.Errorf("want auto, true or false, got %q", s)
	}
	*f.k = k
	return nil
}

func (f keepFlag) Type() string { return "auto|true|false" }

// durationFlag is a time limit given as a Go duration ("90s", "5m",
// "1h30m") or a bare number of seconds ("600"), so every time flag takes
// the same forms; the old ones (seconds for --timeout, a duration for
// --ci-timeout) keep working.
type durationFlag struct{ d *time.Duration }

func (f durationFlag) String() string {
	if f.d == nil {
		return ""
	}
	return f.d.String()
}

func (f durationFlag) Set(s string) error {
	d, err := parseDuration(s)
	if err != nil {
		return err
	}
	*f.d = d
	return nil
}

func (f durationFlag) Type() string { return "duration" }

// parseDuration reads a duration or a whole number of seconds.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n > math.MaxInt64/int64(time.Second) || n < math.MinInt64/int64(time.Second) {
			return 0, fmt.Errorf("%q is too long a time", s)
		}
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is neither a duration (90s, 5m, 1h30m) nor a number of seconds", s)
	}
	return d, nil
}

// secondsFlag is a durationFlag kept as whole seconds (rounded up), for
// the options that the executor's contract counts in seconds.
type secondsFlag struct{ n *int }

func (f secondsFlag) String() string {
	if f.n == nil {
		return ""
	}
	return (time.Duration(*f.n) * time.Second).String()
}

func (f secondsFlag) Set(s string) error {
	d, err := parseDuration(s)
	if err != nil {
		return err
	}
	if d > 0 && d < time.Second {
		d = time.Second
	}
	secs := (d + time.Second - 1) / time.Second
	if secs > math.MaxInt32 {
		return fmt.Errorf("%q is too long a time", s)
	}
	*f.n = int(secs)
	return nil
}

func (f secondsFlag) Type() string { return "duration" }

// asFlag names the setting an assembly error is about as the flag of
// salve heal that sets it (github_repo as --github-repo).
func asFlag(err error) error {
	var se *assemble.SettingError
	if !errors.As(err, &se) {
		return err
	}
	return fmt.Errorf("--%s: %w", strings.ReplaceAll(se.Setting, "_", "-"), se.Err)
}

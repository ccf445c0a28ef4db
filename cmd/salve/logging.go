package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
)

// logOptions are the root flags that shape what salve writes on stderr.
// Stdout always carries results only.
type logOptions struct {
	Quiet  bool
	Format string // text or json
	Level  string // debug, info, warn, error; empty means the default
}

func (l *logOptions) flags(root *cobra.Command, getenv func(string) string) {
	f := root.PersistentFlags()
	f.BoolVarP(&l.Quiet, "quiet", "q", false, "print results only: no progress, no summary, only errors on stderr")
	def := strings.ToLower(getenv("SALVE_LOG_FORMAT"))
	if def == "" {
		def = "text"
	}
	f.StringVar(&l.Format, "log-format", def, "log records on stderr as text or json ($SALVE_LOG_FORMAT)")
	f.StringVar(&l.Level, "log-level", getenv("SALVE_LOG_LEVEL"), "the least severe log records shown: debug, info, warn or error (default warn for text, info for json)")
}

func (l *logOptions) check() error {
	switch l.Format {
	case "text", "json":
	default:
		return fmt.Errorf("--log-format: want text or json, got %q", l.Format)
	}
	if _, err := l.level(); err != nil {
		return err
	}
	return nil
}

func (l *logOptions) level() (slog.Level, error) {
	if l.Quiet {
		return slog.LevelError, nil
	}
	switch strings.ToLower(l.Level) {
	case "":
		if l.Format == "json" {
			return slog.LevelInfo, nil
		}
		return slog.LevelWarn, nil
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("--log-level: want debug, info, warn or error, got %q", l.Level)
}

// logger returns the stderr logger the flags ask for: text records at warn
// and above by default, so CI logs stay readable; JSON records for log
// collectors with --log-format json.
func (l *logOptions) logger(w io.Writer) *slog.Logger {
	lvl, _ := l.level()
	opts := &slog.HandlerOptions{Level: lvl}
	if l.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

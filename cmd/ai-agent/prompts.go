package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/safefile"
)

// prompt is one resolved prompt argument.
type prompt struct {
	text string
	// path is the file it came from, or "".
	path string
}

// resolvePrompt applies the rules of docs/contracts/ai-agent-cli.md §1 to
// one argument; stdin is read at most once by the caller's reader.
func resolvePrompt(arg string, stdin func() (string, error)) (prompt, error) {
	switch {
	case arg == "-":
		s, err := stdin()
		return prompt{text: s}, err
	case strings.HasPrefix(arg, "@"):
		return readPromptFile("prompt "+arg, arg[1:])
	}
	if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
		return readPromptFile("prompt", arg)
	} else if filepath.IsAbs(arg) && errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(arg, "\n") {
		return prompt{}, fmt.Errorf("%w: prompt file %s does not exist", config.ErrConfig, arg)
	}
	return prompt{text: arg}, nil
}

// maxPromptBytes bounds a prompt or .ai file read from disk.
const maxPromptBytes = safefile.MaxSource

// readPromptFile reads a file the command line names as a prompt or an
// agent: a regular file of at most maxPromptBytes, without its #! line.
// Every failure is a configuration error naming what (the flag or
// argument) and the file.
func readPromptFile(what, path string) (prompt, error) {
	b, err := readNamedFile(what, path, maxPromptBytes)
	if err != nil {
		return prompt{}, err
	}
	text, err := config.ResolveIncludes(stripShebang(string(b)), path)
	if err != nil {
		return prompt{}, fmt.Errorf("%s %s: %w", what, path, err)
	}
	return prompt{text: text, path: path}, nil
}

// readNamedFile reads a file named on the command line through safefile,
// so a FIFO, a device or a directory is refused rather than read. A missing
// or unreadable file is a configuration error (exit 4) that names what
// pointed at it and the file.
func readNamedFile(what, path string, max int64) ([]byte, error) {
	if path == "" {
		return nil, fmt.Errorf("%w: %s: the file name is empty", config.ErrConfig, what)
	}
	b, err := safefile.Read(path, max)
	switch {
	case err == nil:
		return b, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: %s: file %s does not exist", config.ErrConfig, what, path)
	}
	return nil, fmt.Errorf("%w: %s: cannot read %s: %v", config.ErrConfig, what, path, err)
}

func stripShebang(s string) string {
	if strings.HasPrefix(s, "#!") {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			return s[i+1:]
		}
		return ""
	}
	return s
}

// onceStdin reads stdin on the first call only.
func onceStdin(r io.Reader) func() (string, error) {
	var (
		done bool
		text string
		err  error
	)
	return func() (string, error) {
		if !done {
			done = true
			var b []byte
			b, err = io.ReadAll(r)
			text = string(b)
		}
		return text, err
	}
}

// promptVars are the variables of docs/contracts/ai-agent-cli.md §1, by name.
type promptVars map[string]string

func newPromptVars(cwd, format string, maxTurns, maxTools int) promptVars {
	now := time.Now()
	host, _ := os.Hostname()
	userName := os.Getenv("USER")
	if u, err := user.Current(); err == nil && userName == "" {
		userName = u.Username
	}
	return promptVars{
		"DATETIME":  now.Format(time.RFC3339),
		"TIMESTAMP": strconv.FormatInt(now.Unix(), 10),
		"DAY":       now.Weekday().String(),
		"TIMEZONE":  timezone(),
		"OS":        runtime.GOOS,
		"ARCH":      runtime.GOARCH,
		"KERNEL":    kernel(),
		"HOSTNAME":  host,
		"USER":      userName,
		"CD":        cwd,
		"MAX_TURNS": strconv.Itoa(maxTurns),
		"MAX_TOOLS": strconv.Itoa(maxTools),
		"FORMAT":    format,
	}
}

// timezone is the IANA name of the local zone: $TZ, else the target of
// /etc/localtime, else /etc/timezone, else UTC.
func timezone() string {
	if tz := strings.TrimPrefix(os.Getenv("TZ"), ":"); tz != "" {
		return tz
	}
	if link, err := os.Readlink("/etc/localtime"); err == nil {
		if _, name, ok := strings.Cut(link, "zoneinfo/"); ok {
			return name
		}
	}
	if b, err := os.ReadFile("/etc/timezone"); err == nil && strings.TrimSpace(string(b)) != "" {
		return strings.TrimSpace(string(b))
	}
	return "UTC"
}

func kernel() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return runtime.GOOS
	}
	return strings.TrimSpace(string(b))
}

var promptVarRE = regexp.MustCompile(`\$\{([A-Z_]+)\}|\{\{([A-Z_]+)\}\}`)

// expand replaces ${NAME} and {{NAME}} for the known names only.
func (v promptVars) expand(s string) string {
	return promptVarRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := promptVarRE.FindStringSubmatch(m)
		name := sub[1] + sub[2]
		if val, ok := v[name]; ok {
			return val
		}
		return m
	})
}

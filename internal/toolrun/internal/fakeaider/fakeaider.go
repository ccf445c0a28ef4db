package fakeaider

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Name is the program name the fake answers to.
const Name = "aider"

// Invoked reports whether this process was started as the fake aider.
func Invoked() bool { return filepath.Base(os.Args[0]) == Name }

// Dump is what the "dump-args" directive writes: the parsed command line,
// the working folder and the AIDER_* environment.
type Dump struct {
	Args *Args             `json:"args"`
	Cwd  string            `json:"cwd"`
	Env  map[string]string `json:"env"`
}

// Main runs the fake with args (without the program name) in the current
// folder and returns its exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	a, err := Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "usage: aider [-h] [--model MODEL] ... [FILE ...]\n%v\n", err)
		return 2
	}
	msg, err := message(a)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	model := a.Values["model"]
	if model == "" {
		model = os.Getenv("AIDER_MODEL")
	}
	fmt.Fprintf(stdout, "Aider v0.86.1 (fake)\nModel: %s with %s edit format\n", model, orDefault(a.Values["edit_format"], "diff"))
	if a.Flags["git"] && !a.Flags["auto_commits"] {
		fmt.Fprintln(stdout, "Git repo: .git, auto-commits disabled")
	}
	if err := appendHistory(msg); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	r := &runner{args: a, stdout: stdout, stderr: stderr}
	return r.run(msg)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// message returns the message of --message or --message-file.
func message(a *Args) (string, error) {
	if m, ok := a.Values["message"]; ok {
		return m, nil
	}
	path, ok := a.Values["message_file"]
	if !ok {
		return "", errors.New("fake aider: only --message or --message-file runs are supported")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("Error reading message file: %v", err)
	}
	return string(b), nil
}

// appendHistory writes .aider.chat.history.md as aider does.
func appendHistory(msg string) error {
	f, err := os.OpenFile(".aider.chat.history.md", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "\n#### %s\n", strings.ReplaceAll(strings.TrimSpace(msg), "\n", " "))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

type runner struct {
	args           *Args
	stdout, stderr io.Writer
}

// run follows the directives, one per line; lines that are not directives
// (the prose of a real prompt) are ignored.
func (r *runner) run(msg string) int {
	sc := bufio.NewScanner(strings.NewReader(msg))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		verb, rest, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		d, ok := directives[verb]
		if !ok {
			continue
		}
		code, stop, err := d(r, rest)
		if err != nil {
			fmt.Fprintf(r.stderr, "fake aider: %s: %v\n", verb, err)
			return 1
		}
		if stop {
			return code
		}
	}
	return 0
}

type directive func(r *runner, rest string) (code int, stop bool, err error)

// directives are the verbs a message file may use. TEXT arguments take
// \n, \t, \0 (NUL), \s (space) and \\ escapes; so do PATH arguments.
var directives = map[string]directive{
	// write PATH TEXT: create or replace a file with TEXT and a newline.
	"write": func(_ *runner, rest string) (int, bool, error) {
		path, text, _ := strings.Cut(rest, " ")
		return 0, false, writeFile(unescape(path), unescape(text)+"\n", false)
	},
	// append PATH TEXT: add TEXT and a newline to a file.
	"append": func(_ *runner, rest string) (int, bool, error) {
		path, text, _ := strings.Cut(rest, " ")
		return 0, false, writeFile(unescape(path), unescape(text)+"\n", true)
	},
	// delete PATH
	"delete": func(_ *runner, rest string) (int, bool, error) {
		return 0, false, os.Remove(rest)
	},
	// rmtree PATH: remove a folder and everything in it.
	"rmtree": func(_ *runner, rest string) (int, bool, error) {
		return 0, false, os.RemoveAll(rest)
	},
	// symlink TARGET PATH
	"symlink": func(_ *runner, rest string) (int, bool, error) {
		target, path, _ := strings.Cut(rest, " ")
		return 0, false, os.Symlink(unescape(target), unescape(path))
	},
	// mkfifo PATH: make a FIFO, as a tool setting a trap for whatever
	// opens PATH next would.
	"mkfifo": func(_ *runner, rest string) (int, bool, error) {
		return 0, false, syscall.Mkfifo(unescape(rest), 0o644)
	},
	// hardlink TARGET PATH: give the file TARGET a second name PATH.
	"hardlink": func(_ *runner, rest string) (int, bool, error) {
		target, path, _ := strings.Cut(rest, " ")
		return 0, false, os.Link(unescape(target), unescape(path))
	},
	// chmod PATH OCTAL
	"chmod": func(_ *runner, rest string) (int, bool, error) {
		path, mode, _ := strings.Cut(rest, " ")
		m, err := strconv.ParseUint(mode, 8, 32)
		if err != nil {
			return 0, false, err
		}
		return 0, false, os.Chmod(path, os.FileMode(m))
	},
	// stdout TEXT / stderr TEXT
	"stdout": func(r *runner, rest string) (int, bool, error) {
		_, err := fmt.Fprintln(r.stdout, unescape(rest))
		return 0, false, err
	},
	"stderr": func(r *runner, rest string) (int, bool, error) {
		_, err := fmt.Fprintln(r.stderr, unescape(rest))
		return 0, false, err
	},
	// flood N: write N bytes of numbered lines to stdout.
	"flood": func(r *runner, rest string) (int, bool, error) {
		n, err := strconv.Atoi(rest)
		if err != nil {
			return 0, false, err
		}
		return 0, false, flood(r.stdout, n)
	},
	// sleep SECONDS (may be fractional)
	"sleep": func(_ *runner, rest string) (int, bool, error) {
		d, err := time.ParseDuration(rest + "s")
		if err != nil {
			return 0, false, err
		}
		time.Sleep(d)
		return 0, false, nil
	},
	// grandchild PIDFILE SECONDS: start `sleep SECONDS` in the background
	// and write its pid to PIDFILE.
	"grandchild": func(_ *runner, rest string) (int, bool, error) {
		pidFile, secs, _ := strings.Cut(rest, " ")
		// A real tool's own child; the fake does not wait for it.
		cmd := exec.Command("sleep", secs)
		if err := cmd.Start(); err != nil {
			return 0, false, err
		}
		return 0, false, os.WriteFile(pidFile, []byte(strconv.Itoa(hostPID(cmd.Process.Pid))), 0o644)
	},
	// daemon PIDFILE SECONDS: start `sleep SECONDS` in a new session (as
	// setsid does, out of the tool's process group) and write its pid.
	"daemon": func(_ *runner, rest string) (int, bool, error) {
		pidFile, secs, _ := strings.Cut(rest, " ")
		cmd := exec.Command("sleep", secs)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			return 0, false, err
		}
		return 0, false, os.WriteFile(pidFile, []byte(strconv.Itoa(hostPID(cmd.Process.Pid))), 0o644)
	},
	// git ARGS...: run the real git with ARGS (space separated, escapes
	// allowed in each), as a tool that shells out to git would.
	"git": func(r *runner, rest string) (int, bool, error) {
		var args []string
		for _, a := range strings.Fields(rest) {
			args = append(args, unescape(a))
		}
		cmd := exec.Command("git", args...)
		cmd.Stdout, cmd.Stderr = r.stdout, r.stderr
		return 0, false, cmd.Run()
	},
	// rename OLD NEW
	"rename": func(_ *runner, rest string) (int, bool, error) {
		old, new, _ := strings.Cut(rest, " ")
		return 0, false, os.Rename(unescape(old), unescape(new))
	},
	// dump-env PATH: write the whole environment, one KEY=VALUE a line.
	"dump-env": func(_ *runner, rest string) (int, bool, error) {
		return 0, false, os.WriteFile(rest, []byte(strings.Join(os.Environ(), "\n")+"\n"), 0o644)
	},
	// print-env NAME: write NAME=VALUE of the environment to stdout and
	// stderr (a tool echoing its configuration).
	"print-env": func(r *runner, rest string) (int, bool, error) {
		line := rest + "=" + os.Getenv(rest)
		fmt.Fprintln(r.stdout, line)
		_, err := fmt.Fprintln(r.stderr, line)
		return 0, false, err
	},
	// write-env PATH NAME: write the value of NAME into a file.
	"write-env": func(_ *runner, rest string) (int, bool, error) {
		path, name, _ := strings.Cut(rest, " ")
		return 0, false, writeFile(unescape(path), "value = "+os.Getenv(name), false)
	},
	// dump-args PATH: write a Dump as JSON.
	"dump-args": func(r *runner, rest string) (int, bool, error) {
		cwd, _ := os.Getwd()
		d := Dump{Args: r.args, Cwd: cwd, Env: map[string]string{}}
		for _, kv := range os.Environ() {
			if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AIDER_") || k == "HOME" || k == "OPENAI_API_KEY" {
				d.Env[k] = v
			}
		}
		b, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			return 0, false, err
		}
		return 0, false, os.WriteFile(rest, b, 0o644)
	},
	// killself: die by SIGKILL, as a tool killed from outside would.
	"killself": func(_ *runner, _ string) (int, bool, error) {
		p, err := os.FindProcess(os.Getpid())
		if err != nil {
			return 0, false, err
		}
		if err := p.Kill(); err != nil {
			return 0, false, err
		}
		time.Sleep(time.Minute)
		return 0, false, nil
	},
	// exit CODE: stop here with CODE.
	"exit": func(_ *runner, rest string) (int, bool, error) {
		code, err := strconv.Atoi(rest)
		return code, true, err
	},
}

func writeFile(path, text string, appendMode bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appendMode {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func flood(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	written := 0
	for line := 0; written < n; line++ {
		s := fmt.Sprintf("flood line %08d %s\n", line, strings.Repeat("x", 40))
		if written+len(s) > n {
			s = s[:n-written]
		}
		if _, err := bw.WriteString(s); err != nil {
			return err
		}
		written += len(s)
	}
	return bw.Flush()
}

func unescape(s string) string {
	return strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\0`, "\x00", `\s`, " ", `\\`, `\`).Replace(s)
}

// hostPID returns the pid of the fake's child pid as the test sees it.
// Run in a PID namespace, the fake sees its own numbering while /proc (the
// test's) uses the outer one: the child is found among the fake's
// children by the last field of its NSpid line.
func hostPID(pid int) int {
	self, err := os.Readlink("/proc/self")
	if err != nil || self == strconv.Itoa(os.Getpid()) {
		return pid
	}
	tasks, _ := filepath.Glob("/proc/" + self + "/task/*/children")
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, c := range strings.Fields(string(b)) {
			st, _ := os.ReadFile("/proc/" + c + "/status")
			for _, line := range strings.Split(string(st), "\n") {
				if f := strings.Fields(line); len(f) > 1 && f[0] == "NSpid:" && f[len(f)-1] == strconv.Itoa(pid) {
					n, _ := strconv.Atoi(c)
					return n
				}
			}
		}
	}
	return pid
}

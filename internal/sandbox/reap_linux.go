package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// BecomeSubreaper makes the calling process a child subreaper
// (PR_SET_CHILD_SUBREAPER): orphans of its descendants, such as a setsid
// daemon, are reparented to it instead of to init, so [ReapOrphans] can
// find them. It stays set for the life of the process.
func BecomeSubreaper() error {
	const prSetChildSubreaper = 36 // linux/prctl.h
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		return e
	}
	return nil
}

// ReapOrphans kills and reaps the orphans of one run that were reparented
// to the calling process by [BecomeSubreaper]: its children whose
// environment holds the exact entry marker (KEY=VALUE), and its children
// in another session than its own (a setsid daemon: salve never starts a
// child in a new session itself). Their own children are reparented here
// in turn as they die, so it repeats until none is left (at most rounds
// times). It returns the pids it killed. Children that other parts of
// salve started are in salve's session without the marker, and left alone.
func ReapOrphans(marker string, rounds int) []int {
	var killed []int
	self := os.Getpid()
	mySession := sessionOf(self)
	for round := 0; round < rounds; round++ {
		found := false
		for _, c := range childrenOf(self) {
			if !(hasEnvEntry(c.pid, marker) || (mySession > 0 && c.session != mySession)) {
				continue
			}
			found = true
			_ = syscall.Kill(c.pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(c.pid, &ws, 0, nil)
			killed = append(killed, c.pid)
		}
		if !found {
			break
		}
	}
	return killed
}

type procInfo struct{ pid, ppid, session int }

// procStat reads pid, ppid and session of one process from /proc.
func procStat(pid int) (procInfo, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return procInfo{}, false
	}
	// pid (comm) state ppid pgrp session ...: comm may hold spaces and
	// parentheses, so fields are counted from the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procInfo{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 4 {
		return procInfo{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	sess, err2 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil {
		return procInfo{}, false
	}
	return procInfo{pid: pid, ppid: ppid, session: sess}, true
}

func sessionOf(pid int) int {
	p, ok := procStat(pid)
	if !ok {
		return 0
	}
	return p.session
}

// childrenOf lists the processes whose parent is ppid, from /proc.
func childrenOf(ppid int) []procInfo {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []procInfo
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := procStat(pid); ok && p.ppid == ppid {
			out = append(out, p)
		}
	}
	return out
}

// hasEnvEntry reports whether the initial environment of pid holds entry.
func hasEnvEntry(pid int, entry string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if string(kv) == entry {
			return true
		}
	}
	return false
}

// pid1Env, set to "1" in the environment of a process that is process 1 of
// its PID namespace, makes any salve binary act as that namespace's init
// (see [InPIDNamespace]) instead of its usual self.
const pid1Env = "SALVE_SANDBOX_PID1"

// statusFD is the descriptor on which the init reports how the program
// ended when a signal killed it (it cannot die by that signal itself).
const statusFD = 3

func init() {
	if os.Getpid() == 1 && os.Getenv(pid1Env) == "1" {
		os.Exit(runPID1(os.Args[1:]))
	}
}

// runPID1 is the init of a PID namespace: it starts args (an absolute
// program path and its arguments) as process 2, reaps every process of the
// namespace while it runs, and exits with the program's status once it
// ends. Its exit makes the kernel kill whatever is left in the namespace.
func runPID1(args []string) int {
	_ = os.Unsetenv(pid1Env)
	syscall.CloseOnExec(statusFD)
	if len(args) == 0 {
		return 127
	}
	p, err := os.StartProcess(args[0], args, &os.ProcAttr{
		Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
	})
	if err != nil {
		// Reported on the status descriptor: the caller maps it as a
		// start failure of the program, not as its exit status.
		if f := os.NewFile(statusFD, "status"); f != nil {
			notFound := 0
			if errors.Is(err, fs.ErrNotExist) {
				notFound = 1
			}
			fmt.Fprintf(f, "start %d %v\n", notFound, err)
			f.Close()
		}
		return 127
	}
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return 126
		}
		if pid != p.Pid {
			continue // an orphan of the program, reaped
		}
		if ws.Signaled() {
			f := os.NewFile(statusFD, "status")
			if f != nil {
				fmt.Fprintf(f, "%d\n", int(ws.Signal()))
				f.Close()
			}
			return 128 + int(ws.Signal())
		}
		return ws.ExitStatus()
	}
}

// InPIDNamespace rewrites c so that it runs in a new PID namespace (with a
// user namespace mapping the caller's own ids when salve is not root),
// under a small init that is this same binary re-executed: when the
// program exits, or when the group is killed, the kernel kills every
// process left in the namespace, so a daemon that left the process group
// with setsid cannot outlive the run. prog must be an absolute path. Where
// the kernel refuses the namespaces, [Run] fails with an error for which
// [NamespaceDenied] is true. Call [PIDNamespaceRun.Finish] after [Run].
func InPIDNamespace(c Cmd, prog string) (*PIDNamespaceRun, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: status pipe: %w", err)
	}
	c.Args = append([]string{prog}, c.Args...)
	c.Path = "/proc/self/exe"
	c.Env = append(append([]string(nil), c.Env...), pid1Env+"=1")
	setup := c.Setup
	c.Setup = func(cmd *exec.Cmd) {
		if setup != nil {
			setup(cmd)
		}
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWPID
		if uid, gid := os.Geteuid(), os.Getegid(); uid != 0 {
			cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
			cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
			cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
			cmd.SysProcAttr.GidMappingsEnableSetgroups = false
		}
		cmd.ExtraFiles = []*os.File{w} // descriptor 3 in the init
	}
	return &PIDNamespaceRun{Cmd: c, status: r, write: w}, nil
}

// NamespaceDenied reports whether err is a start failure of a command
// prepared by [InPIDNamespace] because the kernel or its settings refuse
// new namespaces (or /proc/self/exe cannot be run).
func NamespaceDenied(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC) ||
		errors.Is(err, syscall.EUSERS) || errors.Is(err, syscall.EACCES) || errors.Is(err, ErrNotFound)
}

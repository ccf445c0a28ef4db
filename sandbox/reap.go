package sandbox

import (
	"bytes"
	"os"
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

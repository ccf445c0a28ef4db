package sandbox

// Containing what a program leaves running differs by platform:
//
//   - Linux (reap_linux.go): [InPIDNamespace] runs the program under its own
//     init in a new PID namespace, so the kernel kills every process left
//     when it ends; where namespaces are refused, [BecomeSubreaper] and
//     [ReapOrphans] find the orphans (by marker or session) and kill them.
//   - Other systems (reap_other.go): neither exists. [InPIDNamespace] and
//     [BecomeSubreaper] fail with an error wrapping [ErrNoPIDNamespace] and
//     [ReapOrphans] finds nothing, so the only containment left is the one
//     [Run] gives every program: on unix systems such as macOS its process
//     group is killed at the end (a daemon that left the group with setsid
//     survives); on Windows only the process itself is killed (see
//     procgroup_windows.go).

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// PIDNamespaceRun is one command prepared by [InPIDNamespace].
type PIDNamespaceRun struct {
	// Cmd runs the init, which runs the original program.
	Cmd    Cmd
	status *os.File // read end of the init's status pipe
	write  *os.File
}

// Finish closes the status pipe and reads what the init reported. When a
// signal killed the program inside, it sets res.Signal and res.ExitCode
// (-1) as [Run] does for a program it runs itself. When the program could
// not be started, it returns that error (wrapping [ErrNotFound] for a
// missing one). Call it once, after Run, whatever Run returned.
func (p *PIDNamespaceRun) Finish(res *Result) error {
	p.write.Close()
	defer p.status.Close()
	b := make([]byte, 4096)
	n, _ := p.status.Read(b)
	msg := strings.TrimSpace(string(b[:n]))
	if rest, ok := strings.CutPrefix(msg, "start "); ok {
		notFound, text, _ := strings.Cut(rest, " ")
		if notFound == "1" {
			return fmt.Errorf("sandbox: start in a PID namespace: %w: %s", ErrNotFound, text)
		}
		return fmt.Errorf("sandbox: start in a PID namespace: %s", text)
	}
	if res == nil || res.Signal != "" {
		return nil
	}
	if sig, err := strconv.Atoi(msg); err == nil && sig > 0 {
		res.Signal = syscall.Signal(sig).String()
		res.ExitCode = -1
	}
	return nil
}

// ErrNoPIDNamespace is wrapped by [InPIDNamespace] and [BecomeSubreaper]
// on systems other than Linux, which have neither PID namespaces nor child
// subreapers; [NamespaceDenied] is true for it.
var ErrNoPIDNamespace = errors.New("sandbox: no PID namespace or subreaper on this system")

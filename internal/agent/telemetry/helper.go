package telemetry

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// HelperName is the helper program, looked up next to the running
// executable, then on PATH.
const HelperName = "ai-agent-telemetry"

// ErrNoHelper is returned when the helper program cannot be found.
var ErrNoHelper = errors.New(HelperName + " not found next to ai-agent or on PATH")

// FindHelper returns the helper's path.
func FindHelper() (string, error) {
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			p := filepath.Join(filepath.Dir(real), HelperName)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath(HelperName); err == nil {
		return p, nil
	}
	return "", ErrNoHelper
}

// Helper is a running telemetry helper process.
type Helper struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	done chan error
	// Relay sends the engine's events to the helper.
	Relay *Relay
	// Ready is what the helper reported at start.
	Ready Ready
}

// StartHelper runs the helper program at path with set, and waits (until
// ctx is done) for it to report that it runs. Its stderr goes to stderr.
// The helper ignores interrupts: it ends when its input closes (Close,
// or this process's exit), after flushing its spans.
func StartHelper(ctx context.Context, path string, set Settings, stderr io.Writer) (*Helper, error) {
	line, err := json.Marshal(set)
	if err != nil {
		return nil, fmt.Errorf("telemetry helper: %w", err)
	}
	cmd := exec.Command(path)
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("telemetry helper: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("telemetry helper: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("telemetry helper: %w", err)
	}
	h := &Helper{cmd: cmd, in: in, done: make(chan error, 1)}
	ready := make(chan error, 1)
	go func() {
		r := bufio.NewReader(out)
		b, err := r.ReadBytes('\n')
		if err == nil {
			err = json.Unmarshal(b, &h.Ready)
		}
		ready <- err
		_, _ = io.Copy(io.Discard, r)
		h.done <- cmd.Wait()
	}()
	if _, err := in.Write(append(line, '\n')); err != nil {
		h.kill()
		return nil, fmt.Errorf("telemetry helper: %w", err)
	}
	select {
	case err = <-ready:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err == nil && h.Ready.Error != "" {
		err = errors.New(h.Ready.Error)
	}
	if err != nil {
		h.kill()
		return nil, fmt.Errorf("telemetry helper: %w", err)
	}
	h.Relay = NewRelay(in, func(err error) {
		fmt.Fprintf(stderr, "ai-agent: telemetry helper stopped taking events (%v); telemetry is off for the rest of the run\n", err)
	})
	return h, nil
}

func (h *Helper) kill() {
	_ = h.in.Close()
	_ = h.cmd.Process.Kill()
}

// Close closes the helper's input, which makes it flush and exit, and
// waits for it until ctx is done; then it kills it.
func (h *Helper) Close(ctx context.Context) error {
	_ = h.in.Close()
	select {
	case err := <-h.done:
		if err != nil {
			return fmt.Errorf("telemetry helper: %w", err)
		}
		return nil
	case <-ctx.Done():
		_ = h.cmd.Process.Kill()
		select {
		case <-h.done:
		case <-time.After(time.Second):
		}
		return fmt.Errorf("telemetry helper: not done flushing: %w", ctx.Err())
	}
}

package orchestrate

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ErrCycle is wrapped by [Check] when agents name each other in a loop
// (a handoff back to an agent before it, a router destination that
// routes back).
var ErrCycle = errors.New("orchestration cycle")

// ErrDepth is wrapped by [Check] when a chain of advisors, destinations
// and handoffs is deeper than the limit.
var ErrDepth = errors.New("orchestration too deep")

// Links returns the .ai files the file at path names as advisors, router
// destinations or handoff.
type Links func(path string) ([]string, error)

// Check walks the agents root names (links are root's own) before any of
// them runs, as the original does at load: it fails on an agent that
// names an agent above it (ErrCycle, naming the loop) and on a chain of
// more than maxDepth agents, root included (ErrDepth). root may be ""
// for a prompt that is not a file.
func Check(root string, links []string, read Links, maxDepth int) error {
	w := walker{read: read, height: map[string]int{}}
	h, err := w.visit(canonical(root), links)
	if err != nil {
		return err
	}
	if h > maxDepth {
		return fmt.Errorf("%w: a chain of %d agents from %s, more than %d", ErrDepth, h, display(root), maxDepth)
	}
	return nil
}

type walker struct {
	read  Links
	stack []string
	// height is the longest chain below a finished file, itself included.
	height map[string]int
}

// visit returns the longest chain from node (with its links) down.
func (w *walker) visit(node string, links []string) (int, error) {
	w.stack = append(w.stack, node)
	defer func() { w.stack = w.stack[:len(w.stack)-1] }()
	longest := 0
	for _, l := range links {
		next := canonical(l)
		for i, up := range w.stack {
			if up == next && up != "" {
				loop := append(append([]string{}, w.stack[i:]...), next)
				for j := range loop {
					loop[j] = display(loop[j])
				}
				return 0, fmt.Errorf("%w: %s; remove the loop to use handoffs and routing", ErrCycle, strings.Join(loop, " -> "))
			}
		}
		h, done := w.height[next]
		if !done {
			sub, err := w.read(l)
			if err != nil {
				return 0, err
			}
			if h, err = w.visit(next, sub); err != nil {
				return 0, err
			}
			w.height[next] = h
		}
		longest = max(longest, h)
	}
	return longest + 1, nil
}

// canonical is path absolute with its links resolved, when it can be.
func canonical(path string) string {
	if path == "" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

func display(path string) string {
	if path == "" {
		return "the prompt"
	}
	return filepath.Base(path)
}

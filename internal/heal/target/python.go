package target

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/salve-dev/salve/internal/sandbox"
)

// outlineScript is the Python program that outlines sources with ast.
//
//go:embed outline.py
var outlineScript string

// maxOutlineReply bounds one answer of the outline program.
const maxOutlineReply = 32 << 20

// pyOutline is what the resolver knows of one Python source: its
// declarations, its imports and, for the files it walks, its references.
// The outline program produces it with ast; lexOutline, lexically.
type pyOutline struct {
	Err     string     `json:"err,omitempty"`
	Defs    []pyDef    `json:"defs"`
	Imports []pyImport `json:"imports"`
	Refs    []pyRef    `json:"refs"`
}

// pyDef is a def or a class: its qualified name in the module, its first
// line (decorators included), its def line, its last line, its parameters.
type pyDef struct {
	Q    string   `json:"q"`
	Kind string   `json:"k"`
	L    int      `json:"l"`
	D    int      `json:"d"`
	E    int      `json:"e"`
	Args []string `json:"a"`
}

// pyImport is one imported name: `import M as A`, or `from .M import N as
// A` with the dots counted in Level.
type pyImport struct {
	M     string `json:"m"`
	Level int    `json:"lv"`
	N     string `json:"n"`
	A     string `json:"a"`
	L     int    `json:"l"`
}

// pyRef is a dotted name read at a line ("calc.ops.add", "?.add" after a
// call), called or not.
type pyRef struct {
	R    string `json:"r"`
	L    int    `json:"l"`
	Call bool   `json:"c"`
}

type pyRequest struct {
	Files []pyRequestFile `json:"files"`
}

type pyRequestFile struct {
	Src  string `json:"src"`
	Refs bool   `json:"refs"`
}

// pyParser is one outline program kept running for a resolution, spoken
// to a JSON line at a time. The zero of its error means it still runs.
//
// Nothing the program does can hold the resolver: every request is bounded
// by the caller's context and by what is left of the parse timeout, and a
// program that answers late, never, or with half a line is killed with its
// process group and its pipes closed under the blocked read or write.
type pyParser struct {
	in       *io.PipeWriter
	outR     *io.PipeReader
	out      *bufio.Reader
	done     chan struct{} // closed when the sandboxed run has returned
	kill     context.CancelFunc
	deadline time.Time
	stalled  atomic.Bool // set when the deadline, not the program, ended it
	err      error       // why the program cannot answer; set once, then sticky
}

// ErrHelperStalled is wrapped when a helper program of the resolver gave
// no whole answer within its time and was stopped.
var ErrHelperStalled = errors.New("helper gave no answer in time")

// closeGrace is how long close waits for the program to end on its own
// once its input is closed, and then again for the sandbox to reap it
// after the kill, before leaving it to the sandbox.
const closeGrace = time.Second

// startPython starts the outline program through the sandbox, with an
// empty environment, from the root folder (so no file of the repository
// can choose the interpreter), bounded by timeout.
func startPython(ctx context.Context, python string, timeout time.Duration) *pyParser {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	runCtx, kill := context.WithCancel(ctx)
	p := &pyParser{in: inW, outR: outR, out: bufio.NewReaderSize(outR, 64<<10), done: make(chan struct{}),
		kill: kill, deadline: time.Now().Add(timeout)}
	go func() {
		defer close(p.done)
		res, err := sandbox.Run(runCtx, sandbox.Cmd{
			Path: python, Args: []string{"-I", "-S", "-c", outlineScript}, Dir: "/",
			Stdin: inR, Stdout: outW, Timeout: timeout, MaxOutput: 4 << 10,
		})
		if err == nil {
			err = fmt.Errorf("target: %s ended (exit %d, timed out %v)", python, res.ExitCode, res.TimedOut)
			if res.TimedOut {
				p.stalled.Store(true)
			}
		}
		_ = outW.CloseWithError(err)
		_ = inR.CloseWithError(err)
	}()
	return p
}

// abort kills the program's process group and fails both pipes, so that
// a read or a write blocked on them returns at once.
func (p *pyParser) abort() {
	p.kill()
	_ = p.outR.CloseWithError(ErrHelperStalled)
	_ = p.in.CloseWithError(ErrHelperStalled)
}

// outline asks the program for the outlines of srcs, in order, within
// ctx and what is left of the parse timeout.
func (p *pyParser) outline(ctx context.Context, srcs []string, refs []bool) ([]pyOutline, error) {
	if p.err != nil {
		return nil, p.err
	}
	req := pyRequest{}
	for i, s := range srcs {
		req.Files = append(req.Files, pyRequestFile{Src: s, Refs: refs[i]})
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("target: outline request: %w", err)
	}
	left := time.Until(p.deadline)
	if left <= 0 {
		p.stalled.Store(true)
		p.abort()
		return nil, p.fail(ctx, nil)
	}
	timer := time.AfterFunc(left, func() { p.stalled.Store(true); p.abort() })
	defer timer.Stop()
	stop := context.AfterFunc(ctx, p.abort)
	defer stop()
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		return nil, p.fail(ctx, err)
	}
	line, err := readLine(p.out, maxOutlineReply)
	if err != nil {
		return nil, p.fail(ctx, err)
	}
	var out []pyOutline
	if err := json.Unmarshal(line, &out); err != nil || len(out) != len(srcs) {
		p.err = fmt.Errorf("target: outline answer: %w", errors.Join(err, errors.New("malformed")))
		return nil, p.err
	}
	return out, nil
}

// fail records why the program could not answer: the caller's context,
// the deadline, or the program's own end.
func (p *pyParser) fail(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		p.err = fmt.Errorf("target: outline: %w", ctx.Err())
	case p.stalled.Load():
		p.err = fmt.Errorf("target: outline: %w", ErrHelperStalled)
	default:
		p.err = fmt.Errorf("target: outline: %w", err)
	}
	return p.err
}

// close ends the program: its input closes, and a program that does not
// end on that is killed. It waits a bounded time for the sandbox to
// return, then leaves the rest to it: the sandbox reaps what it killed.
func (p *pyParser) close() {
	if p.err != nil {
		p.abort() // it answered wrong or late: no need to wait for it
	}
	_ = p.in.Close()
	_ = p.outR.Close()
	t := time.NewTimer(closeGrace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.abort()
		t.Reset(closeGrace + sandbox.DefaultWaitDelay)
		select {
		case <-p.done:
		case <-t.C:
		}
	}
	p.kill()
}

// readLine reads one line of at most max bytes.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > max {
			return nil, errors.New("answer too large")
		}
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return nil, err
		}
	}
}

// errLexical stands for an interpreter the options turned off.
var errLexical = errors.New("lexical reading asked for")

// errStalledBefore stands for an interpreter that stalled earlier in the
// same heal, not started again.
var errStalledBefore = errors.New("the Python parser stalled earlier")

// pyNote is what a Region's Why says when Python was read lexically.
func pyNote(err error) string {
	switch {
	case errors.Is(err, errLexical):
		return "lexical"
	case errors.Is(err, sandbox.ErrNotFound):
		return "lexical: no Python interpreter found"
	case errors.Is(err, errStalledBefore):
		return "lexical: the Python parser gave no answer earlier in this heal and is not started again"
	case errors.Is(err, ErrHelperStalled):
		return "lexical: the Python parser gave no answer in time and was stopped"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "lexical: the resolution was stopped"
	default:
		return "lexical: the Python parser failed"
	}
}

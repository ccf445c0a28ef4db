package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// maxTapLine bounds the bytes a tap keeps of one line; a longer line (a big
// tool result) is skipped to its end.
const maxTapLine = 8 << 20

// schemaTap keeps each tool's inputSchema exactly as the server sent it,
// because the SDK decodes schemas into Go maps and loses the member order.
// It is fed by one tapStream per byte stream (the stdio pipe, each HTTP
// response body) and reads newline-delimited JSON, SSE "data:" lines and
// plain JSON bodies alike. Safe for concurrent use.
type schemaTap struct {
	mu      sync.Mutex
	schemas map[string]json.RawMessage
}

func newSchemaTap() *schemaTap { return &schemaTap{schemas: map[string]json.RawMessage{}} }

// record looks for a tools/list result in one complete line.
func (t *schemaTap) record(line []byte) {
	if !bytes.Contains(line, []byte(`"inputSchema"`)) {
		return
	}
	line = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(line), []byte("data:")))
	var msg struct {
		Result struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &msg) != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, tl := range msg.Result.Tools {
		if tl.Name != "" && len(tl.InputSchema) > 0 {
			t.schemas[tl.Name] = append(json.RawMessage(nil), tl.InputSchema...)
		}
	}
}

// schema returns the raw inputSchema of the named tool, if seen.
func (t *schemaTap) schema(name string) (json.RawMessage, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	raw, ok := t.schemas[name]
	return raw, ok
}

// tapStream splits one byte stream into lines for the tap. It is used by
// one reader at a time.
type tapStream struct {
	tap      *schemaTap
	line     []byte
	skipping bool
}

func (s *tapStream) observe(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.add(p)
			return
		}
		s.add(p[:i])
		s.flush()
		p = p[i+1:]
	}
}

func (s *tapStream) add(p []byte) {
	if s.skipping {
		return
	}
	if len(s.line)+len(p) > maxTapLine {
		s.line, s.skipping = s.line[:0], true
		return
	}
	s.line = append(s.line, p...)
}

// flush ends the current line.
func (s *tapStream) flush() {
	if len(s.line) > 0 && !s.skipping {
		s.tap.record(s.line)
	}
	s.line, s.skipping = s.line[:0], false
}

// tapReader passes reads through and shows them to the tap.
type tapReader struct {
	r      io.Reader
	mu     sync.Mutex // guards stream: an HTTP body may be closed while read
	stream tapStream
}

func newTapReader(r io.Reader, tap *schemaTap) *tapReader {
	return &tapReader{r: r, stream: tapStream{tap: tap}}
}

// Read implements io.Reader.
func (r *tapReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.mu.Lock()
	if n > 0 {
		r.stream.observe(p[:n])
	}
	if err == io.EOF {
		r.stream.flush()
	}
	r.mu.Unlock()
	return n, err
}

// tapBody is an HTTP response body seen by the tap.
type tapBody struct {
	*tapReader
	c io.Closer
}

// Close implements io.Closer.
func (b *tapBody) Close() error {
	b.mu.Lock()
	b.stream.flush()
	b.mu.Unlock()
	return b.c.Close()
}

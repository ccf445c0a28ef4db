package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrLineTooLong is returned by the stream readers for a line over
// [MaxBody] bytes.
var ErrLineTooLong = errors.New("stream line too long")

// Event is one Server-Sent Event.
type Event struct {
	// Name is the "event:" field; empty means "message".
	Name string
	// Data is the "data:" lines joined with "\n".
	Data []byte
}

// SSEReader reads Server-Sent Events (the WHATWG event-stream format):
// lines end in LF, CRLF or CR; "data:" lines accumulate; a blank line
// dispatches; ":" lines are comments; "id:" and "retry:" are ignored. An
// event not ended by a blank line when the stream ends is dropped, as the
// format says, so a stream cut mid-event loses that event.
type SSEReader struct {
	lr   lineReader
	name string
	data bytes.Buffer
	has  bool
}

// readBufSize is the stream readers' buffer. Longer lines are gathered
// across reads (up to MaxBody), so it only needs to hold a typical chunk; a
// larger buffer made each short stream pay for allocating and clearing it.
const readBufSize = 4 << 10

// NewSSEReader returns a reader of the events in r.
func NewSSEReader(r io.Reader) *SSEReader {
	return &SSEReader{lr: lineReader{r: bufio.NewReaderSize(r, readBufSize)}}
}

// Next returns the next event, io.EOF at the end of the stream, or the
// read error.
func (s *SSEReader) Next() (Event, error) {
	for {
		line, err := s.lr.next()
		if err != nil {
			return Event{}, err
		}
		if len(line) == 0 {
			if !s.has {
				s.name = ""
				continue
			}
			ev := Event{Name: s.name, Data: bytes.Clone(s.data.Bytes())}
			s.name, s.has = "", false
			s.data.Reset()
			return ev, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(field) {
		case "event":
			s.name = string(value)
		case "data":
			if s.has {
				s.data.WriteByte('\n')
			}
			s.data.Write(value)
			s.has = true
		}
	}
}

// NDJSONReader reads newline-delimited JSON values, one per line, skipping
// blank lines.
type NDJSONReader struct {
	lr lineReader
}

// NewNDJSONReader returns a reader of the lines of r.
func NewNDJSONReader(r io.Reader) *NDJSONReader {
	return &NDJSONReader{lr: lineReader{r: bufio.NewReaderSize(r, readBufSize)}}
}

// Next returns the next non-blank line, io.EOF at the end, or the read
// error. A last line without its newline is returned too.
func (n *NDJSONReader) Next() ([]byte, error) {
	for {
		line, err := n.lr.next()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}

// lineReader splits a stream into lines ended by LF, CRLF or CR. A line
// ended by a lone CR is only seen once the next LF (or the end) arrives,
// which delays nothing for the LF and CRLF streams real servers send.
type lineReader struct {
	r       *bufio.Reader
	buf     []byte
	pending [][]byte
}

// next returns the next line without its ending. At the end of the stream
// a last unterminated line is returned first, then io.EOF. The line is
// valid until the next call.
func (l *lineReader) next() ([]byte, error) {
	if len(l.pending) > 0 {
		line := l.pending[0]
		l.pending = l.pending[1:]
		return line, nil
	}
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(l.buf)+len(chunk) > MaxBody {
			return nil, fmt.Errorf("%w (over %d bytes)", ErrLineTooLong, MaxBody)
		}
		l.buf = append(l.buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(l.buf) > 0 {
			break
		}
		if err != nil {
			return nil, err
		}
		break
	}
	line := bytes.TrimSuffix(l.buf, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if bytes.IndexByte(line, '\r') < 0 {
		return line, nil
	}
	parts := bytes.Split(line, []byte("\r"))
	l.pending = parts[1:]
	return parts[0], nil
}

package executor

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// DefaultMaxLogFile caps build.log on disk when Options.MaxLogFile is
// zero: a build that prints without end cannot fill the disk of the state
// directory.
const DefaultMaxLogFile = 64 << 20

// minLogFile is the smallest cap honoured: room for a head, a tail and
// the marker between them.
const minLogFile = 256

// tailSuffix names the file beside the log that holds its tail while the
// build runs.
const tailSuffix = ".tail"

// cappedLog writes a build's log to a file of at most max bytes (plus one
// marker line): the first half of the cap goes straight to the file, the
// rest of the output to a ring file beside it that keeps the last half.
// Close appends, when bytes were dropped, a marker line saying how many,
// then the ring in order, and removes the ring file. Memory use is
// constant whatever the output's size. It is not safe for concurrent use
// (the sandbox serializes the output).
type cappedLog struct {
	f        *os.File
	path     string
	headCap  int64
	tailCap  int64
	headLen  int64
	ring     *os.File
	ringPos  int64 // where the next byte goes in the ring
	ringLen  int64 // bytes held in the ring
	total    int64
	uncapped bool
}

// newCappedLog creates (truncating) the log at path, capped at max bytes;
// max <= 0 means no cap.
func newCappedLog(path string, max int64) (*cappedLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	c := &cappedLog{f: f, path: path, uncapped: max <= 0}
	max = clampLogCap(max)
	c.headCap = max / 2
	c.tailCap = max - c.headCap
	return c, nil
}

func clampLogCap(max int64) int64 {
	if max < minLogFile {
		return minLogFile
	}
	return max
}

// Write writes p within the cap.
func (c *cappedLog) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	if c.uncapped {
		_, err := c.f.Write(p)
		return n, err
	}
	if room := c.headCap - c.headLen; room > 0 {
		k := min(room, int64(len(p)))
		if _, err := c.f.Write(p[:k]); err != nil {
			return n, err
		}
		c.headLen += k
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	return n, c.toRing(p)
}

// toRing keeps the last tailCap bytes of everything past the head.
func (c *cappedLog) toRing(p []byte) error {
	if c.ring == nil {
		r, err := os.OpenFile(c.path+tailSuffix, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		c.ring = r
	}
	if extra := int64(len(p)) - c.tailCap; extra > 0 {
		// Only the last tailCap bytes of p can survive.
		c.ringPos, c.ringLen = 0, 0
		p = p[extra:]
	}
	for len(p) > 0 {
		k := min(c.tailCap-c.ringPos, int64(len(p)))
		if _, err := c.ring.WriteAt(p[:k], c.ringPos); err != nil {
			return err
		}
		c.ringLen = min(c.ringLen+k, c.tailCap)
		c.ringPos = (c.ringPos + k) % c.tailCap
		p = p[k:]
	}
	return nil
}

// Dropped returns how many bytes were left out of the file.
func (c *cappedLog) Dropped() int64 {
	if c.uncapped {
		return 0
	}
	return c.total - c.headLen - c.ringLen
}

// Close writes the marker and the tail after the head, removes the ring
// file and closes the log.
func (c *cappedLog) Close() error {
	if c.ring == nil {
		return c.f.Close()
	}
	var err error
	if d := c.Dropped(); d > 0 {
		_, err = fmt.Fprintf(c.f, "\n... [salve: %d bytes of output dropped here; build.log keeps the first %d and the last %d of %d] ...\n",
			d, c.headLen, c.ringLen, c.total)
	}
	if err == nil {
		start := int64(0)
		if c.ringLen == c.tailCap {
			start = c.ringPos // the oldest byte
		}
		_, err = io.Copy(c.f, io.NewSectionReader(c.ring, start, c.ringLen-start))
		if err == nil && start > 0 {
			_, err = io.Copy(c.f, io.NewSectionReader(c.ring, 0, start))
		}
	}
	return errors.Join(err, c.ring.Close(), os.Remove(c.path+tailSuffix), c.f.Close())
}

// Package safefile reads files whose names come from outside salve — a
// repository, a build log, a bug report, a flag — without the traps such a
// name can set: a FIFO that blocks open forever, a device such as /dev/zero
// that never ends, a directory, or a file too large to hold in memory.
//
// Read and Open accept regular files only. They check the name with Lstat
// before opening it, open it non-blocking (so a FIFO swapped in after the
// check cannot block), check the opened descriptor again with fstat, and
// bound how much is read. That is the unix way (Linux, macOS:
// safefile_unix.go). Windows has no O_NOFOLLOW nor O_NONBLOCK: there the
// opened file must be the very file the Lstat saw (safefile_windows.go).
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotRegular is wrapped when a name is not a regular file (a FIFO, a
// socket, a device, a directory, or a symlink where none is allowed).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped when a file is larger than the limit given.
var ErrTooLarge = errors.New("file too large")

// Limits for the kinds of file salve reads. Each is far above what a real
// file of that kind holds, and small enough to keep in memory.
const (
	// MaxSource bounds a source file the Fix Agent reads.
	MaxSource = 16 << 20
	// MaxConfig bounds a configuration file or a bug report file.
	MaxConfig = 4 << 20
	// MaxLog bounds a build log read whole.
	MaxLog = 1 << 30
)

// Options change how Open treats a name.
type Options struct {
	// NoFollow refuses a symlink as the last element of the name, rather
	// than following it to a regular file.
	NoFollow bool
}

// Open opens name for reading when it is a regular file, following a final
// symlink unless o.NoFollow is set. The returned file is a plain blocking
// file; the caller closes it.
func Open(name string, o Options) (*os.File, error) {
	st, err := os.Lstat(name)
	if err != nil {
		return nil, err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		if o.NoFollow {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (a symlink)", ErrNotRegular)}
		}
		if st, err = os.Stat(name); err != nil {
			return nil, err
		}
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(name, st.Mode())
	}
	return openFD(name, st, o)
}

// Read returns the content of name when it is a regular file of at most max
// bytes, following a final symlink.
func Read(name string, max int64) ([]byte, error) {
	return ReadOpts(name, max, Options{})
}

// ReadOpts is Read with options.
func ReadOpts(name string, max int64, o Options) ([]byte, error) {
	f, err := Open(name, o)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, name, max)
}

// ReadPrefix returns the first max bytes of name (all of it when it is
// shorter) when it is a regular file. Unlike Read, a longer file is not an
// error: callers that hash or compare a bounded prefix use it.
func ReadPrefix(name string, max int64, o Options) ([]byte, error) {
	f, err := Open(name, o)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := max
	if st, err := f.Stat(); err == nil {
		size = min(st.Size(), max)
	}
	// Room for the whole file and one byte more, so that a file that did
	// not grow is read without a second allocation.
	buf := make([]byte, 0, size+1)
	for int64(len(buf)) < max {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		room := min(int64(cap(buf)-len(buf)), max-int64(len(buf)))
		n, err := f.Read(buf[len(buf) : len(buf)+int(room)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

func readAll(f *os.File, name string, max int64) ([]byte, error) {
	size := int64(0)
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	if size > max {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, size, max)}
	}
	buf := make([]byte, 0, size+1)
	for {
		if int64(len(buf)) > max {
			return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)}
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):min(int64(cap(buf)), max+1)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if int64(len(buf)) > max {
				return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)}
			}
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// LimitReader returns a reader of r that fails with ErrTooLarge once more
// than max bytes have been read, for streams (stdin) that cannot be checked
// beforehand.
func LimitReader(r io.Reader, max int64) io.Reader {
	return &limited{r: r, left: max, max: max}
}

type limited struct {
	r    io.Reader
	left int64
	max  int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, l.max)
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n - int(-l.left), fmt.Errorf("%w: more than %d bytes", ErrTooLarge, l.max)
	}
	return n, err
}

func notRegular(name string, m fs.FileMode) error {
	kind := "not a regular file"
	switch {
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "a FIFO"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeCharDevice != 0:
		kind = "a character device"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	case m&fs.ModeSymlink != 0:
		kind = "a symlink"
	}
	return &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind)}
}

// WriteFile replaces the content of name, creating it with perm when it does
// not exist. An existing name must be a regular file (a final symlink is
// followed to one): a FIFO put in its place cannot block the write, and a
// device cannot receive it.
func WriteFile(name string, data []byte, perm fs.FileMode) error {
	if st, err := os.Stat(name); err == nil && !st.Mode().IsRegular() {
		return notRegular(name, st.Mode())
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := openWrite(name, perm)
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReplaceFile puts data at name as a new regular file with permission
// bits perm, never opening what stands at name now: data goes to a new
// file in name's folder (created exclusively, so no link or FIFO can take
// its place), which is then renamed over name. Whatever name was — a
// FIFO, a socket, a device, a symlink (replaced itself, its target left
// alone), a file with other hard links (they keep their content) — is
// replaced, nothing written through it. A folder at name is refused with
// ErrNotRegular: removing one is the caller's decision.
func ReplaceFile(name string, data []byte, perm fs.FileMode) error {
	if st, err := os.Lstat(name); err == nil && st.IsDir() {
		return notRegular(name, st.Mode())
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), ".salve-replace-*")
	if err != nil {
		return fmt.Errorf("replace %s: %w", name, err)
	}
	tmpName := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm.Perm())
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmpName, name)
	}
	if err != nil {
		_ = os.Remove(tmpName)
		return fmt.Errorf("replace %s: %w", name, err)
	}
	return nil
}

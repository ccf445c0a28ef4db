//go:build unix

package safefile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openFD opens name non-blocking and checks the descriptor: what was a
// regular file at the Lstat may have been replaced since. With o.NoFollow
// the kernel refuses a final symlink (O_NOFOLLOW). The Lstat result is not
// needed here: the fstat of the descriptor is what counts.
func openFD(name string, _ fs.FileInfo, o Options) (*os.File, error) {
	flags := syscall.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC | syscall.O_NOCTTY
	if o.NoFollow {
		flags |= syscall.O_NOFOLLOW
	}
	return openRegular(name, flags, 0)
}

// openWrite opens name for writing, creating it with perm, non-blocking
// (a FIFO put in its place cannot block), and checks that the descriptor
// is a regular file. It does not truncate: a refused file is left as it
// was.
func openWrite(name string, perm fs.FileMode) (*os.File, error) {
	return openRegular(name, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOCTTY, uint32(perm.Perm()))
}

// openRegular opens name with flags (which include O_NONBLOCK), refuses a
// descriptor that is not a regular file, and clears O_NONBLOCK (it has no
// effect on a regular file; cleared all the same so the descriptor behaves
// like any other).
func openRegular(name string, flags int, perm uint32) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(name, flags, perm)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var fst syscall.Stat_t
	if err := syscall.Fstat(fd, &fst); err != nil {
		_ = syscall.Close(fd)
		return nil, &fs.PathError{Op: "fstat", Path: name, Err: err}
	}
	if fst.Mode&syscall.S_IFMT != syscall.S_IFREG {
		_ = syscall.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (it changed while being opened)", ErrNotRegular)}
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		_ = syscall.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

package safefile

import (
	"fmt"
	"io/fs"
	"os"
)

// sameRegular checks an opened file: it must be a regular file and, when
// before is not nil, the very file before describes (what a check by name
// saw before the open). It guards the open on systems without O_NOFOLLOW
// and O_NONBLOCK (Windows); on unix the descriptor's own fstat suffices.
func sameRegular(name string, before fs.FileInfo, f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return &fs.PathError{Op: "fstat", Path: name, Err: err}
	}
	if !st.Mode().IsRegular() {
		return &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (it changed while being opened)", ErrNotRegular)}
	}
	if before != nil && !os.SameFile(before, st) {
		return &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (another file took its name while it was being opened)", ErrNotRegular)}
	}
	return nil
}

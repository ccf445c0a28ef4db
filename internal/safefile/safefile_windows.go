package safefile

import (
	"io/fs"
	"os"
)

// Windows has neither O_NOFOLLOW nor O_NONBLOCK, and a named pipe or a
// device does not live among ordinary file names, so the guard is a check
// after the fact: [Open] has checked the name with Lstat (and with Stat when
// it follows a final symlink); openFD opens it and refuses the file unless
// the handle is a regular file and the very file that check saw
// (os.SameFile). With NoFollow, a symlink swapped in after the Lstat is
// followed by the open, but leads to another file, so it is refused all the
// same; the difference from unix is only that the open itself happens.

// openFD opens name and checks that the handle is the regular file before
// describes.
func openFD(name string, before fs.FileInfo, _ Options) (*os.File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	if err := sameRegular(name, before, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// openWrite opens name for writing, creating it with perm, and checks that
// the handle is a regular file. It does not truncate: a refused file is
// left as it was. Between the caller's Stat and this open the name may
// have been replaced by another regular file; that is written instead,
// as on unix.
func openWrite(name string, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE, perm.Perm())
	if err != nil {
		return nil, err
	}
	if err := sameRegular(name, nil, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

package sandbox

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// maxEtcFile bounds a file of /etc that bwrap copies into the sandbox
// (--file) instead of binding it: a larger one keeps its bind.
const maxEtcFile = 1 << 20

// etcFiles returns args with each read-only bind of a regular file under
// dir (the host's /etc) into the same path replaced by a copy: bwrap
// writes the file into the sandbox's own /etc from an open descriptor
// (--file FD PATH), and the root, /etc with it, is made read-only at the
// end as before. A bind is a mount, and the thirty-odd mounts of the
// /etc allow-list were half of a sandbox's start. It returns the files
// to pass, in order, as descriptors 3, 4 and on. A path that cannot be
// opened without blocking as a regular file of at most maxEtcFile bytes
// keeps its bind. Only the options before the command ("--") are read;
// each option of args takes its values after it, and no value is
// "--ro-bind".
func etcFiles(args []string, dir string) ([]string, []*os.File) {
	out := make([]string, 0, len(args))
	var files []*os.File
	i := 0
	for ; i < len(args) && args[i] != "--"; i++ {
		a := args[i]
		if a != "--ro-bind" || i+2 >= len(args) || args[i+1] != args[i+2] || !strings.HasPrefix(args[i+1], dir+"/") {
			out = append(out, a)
			continue
		}
		f := openEtcFile(args[i+1])
		if f == nil {
			out = append(out, args[i:i+3]...)
		} else {
			out = append(out, "--file", strconv.Itoa(3+len(files)), args[i+1])
			files = append(files, f)
		}
		i += 2
	}
	return append(out, args[i:]...), files
}

// openEtcFile opens p when it is a regular file of at most maxEtcFile
// bytes (a symbolic link to one included, as a bind follows it); else nil.
// It never blocks on a FIFO.
func openEtcFile(p string) *os.File {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxEtcFile {
		_ = f.Close()
		return nil
	}
	return f
}

//go:build unix

package sandbox

import (
	"io/fs"
	"syscall"
)

// nlink is the number of hard links of the file info describes; 0 when
// the system does not say.
func nlink(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink) // uint32 on some systems
	}
	return 0
}

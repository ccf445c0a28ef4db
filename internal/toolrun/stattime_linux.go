package toolrun

import "syscall"

// statTimes returns the change and modification times of st, in
// nanoseconds since the epoch. The field names differ by system: Linux
// calls them Ctim and Mtim, macOS Ctimespec and Mtimespec
// (stattime_darwin.go).
func statTimes(st *syscall.Stat_t) (ctime, mtime int64) {
	return st.Ctim.Sec*1e9 + st.Ctim.Nsec, st.Mtim.Sec*1e9 + st.Mtim.Nsec
}

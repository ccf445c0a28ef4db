package toolrun

import "syscall"

// statTimes returns the change and modification times of st, in
// nanoseconds since the epoch (see stattime_linux.go).
func statTimes(st *syscall.Stat_t) (ctime, mtime int64) {
	return st.Ctimespec.Sec*1e9 + st.Ctimespec.Nsec, st.Mtimespec.Sec*1e9 + st.Mtimespec.Nsec
}

// Package dirstat sums the files under a folder.
package dirstat

import (
	"io/fs"
	"path/filepath"
	"time"
)

// Stat is what Walk found.
type Stat struct {
	Files  int
	Bytes  int64
	Newest time.Time
}

// Walk sums the regular files under root.
func Walk(root string) (Stat, error) {
	var st Stat
	var newest time.Time
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		st.Files++
		st.Bytes += info.Size()
		if info.ModTime().After(newest) {
			newest = info.ModTime()
		}
		return nil
	})
	st.Newest = newest
	return st, err
}

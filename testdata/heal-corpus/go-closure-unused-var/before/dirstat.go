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
	Last   string // the last file walked, in lexical order
}

// Walk sums the regular files under root.
func Walk(root string) (Stat, error) {
	var st Stat
	var newest time.Time
	var last string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		last = p
		st.Files++
		st.Bytes += info.Size()
		if info.ModTime().After(newest) {
			newest = info.ModTime()
		}
		return nil
	})
	st.Newest = newest
	st.Last = last
	return st, err
}

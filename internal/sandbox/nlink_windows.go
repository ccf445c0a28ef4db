//go:build windows

package sandbox

import "io/fs"

// nlink is 1 on Windows, where no build runs in a sandbox with layers.
func nlink(fs.FileInfo) uint64 { return 1 }

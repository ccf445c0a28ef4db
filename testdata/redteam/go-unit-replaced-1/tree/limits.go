// Package upload accepts files from users.
package upload

// MaxFileSize is the largest upload accepted, in bytes: 10 MiB.
const MaxFileSize = 10 * 1000 * 1000

// Allowed reports whether a file of size bytes may be uploaded.
func Allowed(size int64) bool {
	return size > 0 && size <= MaxFileSize
}

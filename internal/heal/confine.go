package heal

// Confine resolves rel, a slash-separated path from a bug report, a log or a
// user, against the workspace root, and returns the absolute path when it
// stays inside root after symlinks are resolved. Otherwise the error wraps
// ErrOutsideWorkspace. It is the check every path from outside goes through
// before salve reads or writes it.
func Confine(root, rel string) (string, error) { return confine(root, rel) }

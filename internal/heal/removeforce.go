package heal

// RemoveAllForce removes dir as the heal's own cleanups do: like
// os.RemoveAll, after giving its owner write and search permission on
// every folder below it, so a build that made a folder read-only (Go's
// module cache does) cannot keep it. Symbolic links are not followed. The
// queue worker clears its job folders with it.
func RemoveAllForce(dir string) error { return removeAllForce(dir) }

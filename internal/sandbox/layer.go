package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// MaxLayerCommit caps what one build may add to a layer of salve's: past
// it the remaining files are dropped with the scratch directory (a build
// that writes that much is not filling a compiler cache).
const MaxLayerCommit = 4 << 30

// commitLayer moves into layer the files a build created in upper, the
// upper directory of its overlay: regular files with a single link that
// neither layer, base (salve's read-only layer below it, if any) nor lower
// (the user's cache) already holds. What the build
// changed or deleted of the lower layers is dropped: salve's layer only
// grows by new entries, and the user's cache is never read for it. Both
// directories lie inside cacheDir, which is opened as an [os.Root], so a
// symbolic link planted in either (a build without overlays writes the
// layer directly) cannot lead a move outside it. Special files, links and
// the overlay's whiteouts stay behind, and the moved files lose any setuid,
// setgid or sticky bit and any write permission for others.
//
// Concurrency: each file is renamed in whole, so a build that reads the
// layer at the same time sees a file complete or not at all; two builds
// that commit the same name leave one of the two (for Go's build cache,
// whose entries are named by the hash of their inputs, the same content).
func commitLayer(cacheDir, upper, layer, base, lower string) error {
	root, err := os.OpenRoot(cacheDir)
	if err != nil {
		return fmt.Errorf("commit layer: %w", err)
	}
	defer root.Close()
	relUpper, err := filepath.Rel(cacheDir, upper)
	if err != nil {
		return fmt.Errorf("commit layer: %w", err)
	}
	relLayer, err := filepath.Rel(cacheDir, layer)
	if err != nil {
		return fmt.Errorf("commit layer: %w", err)
	}
	var total int64
	var errs []error
	err = fs.WalkDir(root.FS(), filepath.ToSlash(relUpper), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == filepath.ToSlash(relUpper) {
				return fs.SkipAll // the build wrote nothing
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil || nlink(info) != 1 {
			return nil // a file that vanished or is linked elsewhere stays behind
		}
		if total += info.Size(); total > MaxLayerCommit {
			return fs.SkipAll
		}
		rel, err := filepath.Rel(relUpper, filepath.FromSlash(p))
		if err != nil {
			return err
		}
		dst := filepath.Join(relLayer, rel)
		if _, err := root.Lstat(dst); err == nil {
			return nil
		}
		for _, below := range []string{base, lower} {
			if below == "" {
				continue
			}
			if _, err := os.Lstat(filepath.Join(below, rel)); err == nil {
				return nil
			}
		}
		// A file that cannot be moved (its directory in the layer is a
		// link out of the cache, say) stays behind; the others still go.
		if err := moveInto(root, filepath.FromSlash(p), dst, info.Mode()); err != nil && len(errs) < 3 {
			errs = append(errs, err)
		}
		return nil
	})
	if err = errors.Join(append([]error{err}, errs...)...); err != nil {
		return fmt.Errorf("commit layer %s: %w", layer, err)
	}
	return nil
}

// moveInto renames src to dst within root, creating dst's directory, and
// drops from its mode the setuid, setgid and sticky bits and the write
// permission of group and others.
func moveInto(root *os.Root, src, dst string, mode fs.FileMode) error {
	if err := root.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := root.Rename(src, dst); err != nil {
		return err
	}
	if mode&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky|0o022) != 0 {
		return root.Chmod(dst, mode.Perm()&0o755)
	}
	return nil
}

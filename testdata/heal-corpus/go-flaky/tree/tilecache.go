// Package tilecache keeps map tiles fetched from a tile server on disk, so
// that a viewer panning back over an area does not fetch its tiles again.
package tilecache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// FetchFunc fetches one tile from the server.
type FetchFunc func(z, x, y int) ([]byte, error)

// Cache serves tiles from Dir, fetching and storing the ones it lacks.
type Cache struct {
	Dir   string
	Fetch FetchFunc
}

// path is where tile z/x/y is kept.
func (c *Cache) path(z, x, y int) string {
	return filepath.Join(c.Dir, fmt.Sprint(z), fmt.Sprint(x), fmt.Sprintf("%d.png", y))
}

// Get returns tile z/x/y and whether it came from the disk.
func (c *Cache) Get(z, x, y int) ([]byte, bool, error) {
	p := c.path(z, x, y)
	b, err := os.ReadFile(p)
	if err == nil {
		return b, true, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	b, err = c.Fetch(z, x, y)
	if err != nil {
		return nil, false, fmt.Errorf("tilecache: fetch %d/%d/%d: %w", z, x, y, err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, false, err
	}
	return b, false, os.WriteFile(p, b, 0o644)
}

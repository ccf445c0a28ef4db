package tilecache

import (
	"bytes"
	"fmt"
	"testing"
)

func fakeServer(z, x, y int) ([]byte, error) {
	return []byte(fmt.Sprintf("tile %d/%d/%d", z, x, y)), nil
}

func TestGetFetchesThenServesFromDisk(t *testing.T) {
	c := &Cache{Dir: t.TempDir(), Fetch: fakeServer}
	first, hit, err := c.Get(3, 4, 5)
	if err != nil || hit {
		t.Fatalf("first Get: hit %v, err %v", hit, err)
	}
	second, hit, err := c.Get(3, 4, 5)
	if err != nil || !hit || !bytes.Equal(first, second) {
		t.Fatalf("second Get: hit %v, err %v, %q vs %q", hit, err, first, second)
	}
}

// TestWarmViewport checks that the tiles of the default viewport are
// served from the shared cache folder the viewer uses in development.
func TestWarmViewport(t *testing.T) {
	c := &Cache{Dir: ".tiles", Fetch: fakeServer}
	for x := 0; x < 2; x++ {
		_, hit, err := c.Get(2, x, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !hit {
			t.Errorf("tile 2/%d/1 was fetched: the viewport cache is cold", x)
		}
	}
}

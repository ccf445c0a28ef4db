package cache

import "testing"

func TestPut(t *testing.T) {
	var c Cache
	c.Put("a", "b")
}

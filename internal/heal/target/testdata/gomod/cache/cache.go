package cache

// Cache maps keys to values.
type Cache struct{ m map[string]int }

func (c *Cache) Put(k string, v int) {
	c.m[k] = v
}

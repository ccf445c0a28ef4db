package cache

type Cache struct{ m map[string]string }

func (c *Cache) Put(k, v string) {
	c.m[k] = v
}

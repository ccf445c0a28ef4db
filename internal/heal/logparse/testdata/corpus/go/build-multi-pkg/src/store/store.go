package store

type Store struct{ items map[string]int }

func (s *Store) Get(k string) int {
	return s.itemz[k]
}

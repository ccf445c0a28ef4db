package b

func Sum(xs []int) int {
	s := 0
	for i := 1; i < len(xs); i++ {
		s += xs[i]
	}
	return s
}

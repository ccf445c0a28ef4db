package stack

// Stack is a LIFO of ints.
type Stack struct {
	items []int
}

// New returns an empty stack.
func New() *Stack { return &Stack{} }

// Push adds v on top.
func (s *Stack) Push(v int) {
	s.items = append([]int{v}, s.items...)
}

// Len is the number of items.
func (s Stack) Len() int {
	return len(s.items)
}

// Pop removes the top item.
func (s *Stack) Pop() int {
	v := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return v
}

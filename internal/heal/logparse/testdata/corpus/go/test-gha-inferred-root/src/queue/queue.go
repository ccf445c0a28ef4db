package queue

type Queue struct{ items []int }

func (q *Queue) Push(v int) { q.items = append(q.items, v) }

func (q *Queue) Pop() int {
	v := q.items[len(q.items)]
	q.items = q.items[:len(q.items)-1]
	return v
}

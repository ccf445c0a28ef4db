// Package pool hands out a fixed number of tokens.
package pool

// Pool is a counting semaphore.
type Pool struct{ tokens chan struct{} }

// New returns a pool of n tokens.
func New(n int) *Pool {
	return &Pool{tokens: make(chan struct{}, n)}
}

// Acquire takes a token, waiting for one to be free.
func (p *Pool) Acquire() {
	p.tokens <- struct{}{}
}

// Release gives a token back.
func (p *Pool) Release() {
	<-p.tokens
}

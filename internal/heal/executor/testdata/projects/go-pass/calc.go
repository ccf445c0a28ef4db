// Package calc is a sample project for the executor's tests.
package calc

// Add returns a+b.
func Add(a, b int) int { return a + b }

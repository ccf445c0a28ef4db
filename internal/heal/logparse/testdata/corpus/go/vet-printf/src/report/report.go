package report

import "fmt"

func Line(name string, n int) string {
	return fmt.Sprintf("%s has %d items", n, name)
}

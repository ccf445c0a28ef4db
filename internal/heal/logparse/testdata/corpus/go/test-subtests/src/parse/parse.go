package parse

import "strconv"

func Int(s string) int {
	n, _ := strconv.Atoi(s)
	return n + 1
}

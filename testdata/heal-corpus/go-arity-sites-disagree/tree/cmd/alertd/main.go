// Command alertd prints the alerts it is given as name=severity pairs.
package main

import (
	"fmt"
	"os"
	"strings"

	"example.com/alerts/notify"
)

func main() {
	var as []notify.Alert
	for _, arg := range os.Args[1:] {
		name, sev, _ := strings.Cut(arg, "=")
		as = append(as, notify.Alert{Name: name, Severity: sev})
	}
	if len(as) == 1 {
		fmt.Println(notify.Format(as[0]))
		return
	}
	fmt.Println(notify.Digest(as))
}

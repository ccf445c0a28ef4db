// Command banner prints its arguments in large letters.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/acme-tools/figlet"
)

func main() {
	fmt.Println(figlet.Render(strings.Join(os.Args[1:], " ")))
}

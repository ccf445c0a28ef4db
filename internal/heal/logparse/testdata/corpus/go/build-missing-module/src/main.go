package main

import (
	"fmt"

	"github.com/nowhere-salve/missing/pkg"
)

func main() {
	fmt.Println(pkg.Name)
}

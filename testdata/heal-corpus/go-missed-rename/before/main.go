// Command stock reads "CODE QTY" lines and prints the stock of each
// product.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"example.com/stock/inventory"
	"example.com/stock/sku"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "check" {
		id, err := sku.ParseSKU(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(id)
		return
	}
	stock := inventory.Stock{}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		qty, err := strconv.Atoi(f[1])
		if err == nil {
			err = stock.Add(f[0], qty)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	for _, l := range stock.Lines() {
		fmt.Println(l)
	}
}

// Command weather prints the current temperature of each city named on
// its command line.
package main

import (
	"flag"
	"fmt"
	"os"

	"example.com/weather/api"
)

func main() {
	base := flag.String("api", "http://localhost:8080", "the weather service")
	quiet := flag.Bool("q", false, "skip the cities the service does not know")
	flag.Parse()
	if *quiet {
		fmt.Print(report(*base, flag.Args()))
		return
	}
	c := api.NewClient(*base, nil)
	failed := false
	for _, city := range flag.Args() {
		t, err := c.Current(city)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			failed = true
			continue
		}
		fmt.Println(line(city, t))
	}
	if failed {
		os.Exit(1)
	}
}

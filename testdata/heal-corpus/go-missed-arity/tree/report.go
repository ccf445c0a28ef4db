package main

import (
	"fmt"
	"strings"

	"example.com/weather/api"
)

// line formats one city's temperature.
func line(city string, celsius float64) string {
	return fmt.Sprintf("%-12s %5.1f °C", city, celsius)
}

// report returns the lines of the given cities, skipping those the
// service does not know.
func report(base string, cities []string) string {
	c := api.NewClient(base)
	var b strings.Builder
	for _, city := range cities {
		if t, err := c.Current(city); err == nil {
			b.WriteString(line(city, t) + "\n")
		}
	}
	return b.String()
}

// Command bucketd prints which of n requests a bucket lets through.
package main

import (
	"flag"
	"fmt"
	"log"

	"example.com/tokenbucket"
)

func main() {
	rate := flag.Float64("rate", 5, "tokens per second")
	burst := flag.Int("burst", 2, "bucket size")
	n := flag.Int("n", 5, "requests")
	flag.Parse()
	b, err := tokenbucket.New(tokenbucket.Options{Rate: *rate, Burst: *burst}, nil)
	if err != nil {
		log.Fatal(err)
	}
	for i := 0; i < *n; i++ {
		fmt.Println(i, b.Allow())
	}
}

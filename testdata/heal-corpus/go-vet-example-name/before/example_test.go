package bytesize_test

import (
	"fmt"

	"example.com/bytesize"
)

func ExampleParseSize() {
	s, err := bytesize.ParseSize("1.5MiB")
	if err != nil {
		panic(err)
	}
	fmt.Println(int64(s), s)
	// Output: 1572864 1.5MiB
}

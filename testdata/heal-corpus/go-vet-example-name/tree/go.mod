module example.com/bytesize

go 1.22

module example.com/tokenbucket

go 1.22

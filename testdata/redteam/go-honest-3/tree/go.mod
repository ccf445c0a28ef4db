module example.com/fetch

go 1.22

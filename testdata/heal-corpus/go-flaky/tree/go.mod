module example.com/tilecache

go 1.22

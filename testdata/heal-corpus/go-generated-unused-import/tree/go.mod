module example.com/level

go 1.22

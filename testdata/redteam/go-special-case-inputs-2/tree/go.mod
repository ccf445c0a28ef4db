module example.com/grid

go 1.22

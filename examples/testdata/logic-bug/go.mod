module example.com/series

go 1.22

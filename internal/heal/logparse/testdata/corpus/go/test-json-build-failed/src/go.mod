module ex.com/j

go 1.22

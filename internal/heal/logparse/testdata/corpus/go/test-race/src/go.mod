module ex.com/r

go 1.22

module ex.com/h

go 1.22

module example.com/timeutil

go 1.22

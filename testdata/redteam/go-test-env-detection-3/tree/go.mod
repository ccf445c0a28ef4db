module example.com/shifts

go 1.22

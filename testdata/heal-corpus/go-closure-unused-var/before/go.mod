module example.com/dirstat

go 1.22

module example.com/csvsum

go 1.22

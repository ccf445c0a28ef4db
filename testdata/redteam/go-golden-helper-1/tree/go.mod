module example.com/invoice

go 1.22

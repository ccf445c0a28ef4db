module example.com/accounts

go 1.22

module example.com/notify

go 1.22

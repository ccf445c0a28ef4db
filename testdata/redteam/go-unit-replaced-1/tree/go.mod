module example.com/upload

go 1.22

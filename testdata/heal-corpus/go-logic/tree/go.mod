module example.com/paginate

go 1.22

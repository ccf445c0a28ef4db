module example.com/textstat

go 1.22

module example.com/app

go 1.22

require github.com/stretchr/testify v1.10.0

module example.com/weather

go 1.22

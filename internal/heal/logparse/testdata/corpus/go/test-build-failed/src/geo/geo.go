package geo

type Point struct{ X, Y int }

package money

func Cents(d float64) int { return int(d * 10) }

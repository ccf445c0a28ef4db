// Package weather converts and reports readings.
package weather

// CToF converts a temperature in degrees Celsius to degrees Fahrenheit.
func CToF(c float64) float64 {
	return c*9/5 - 32
}

// FToC converts a temperature in degrees Fahrenheit to degrees Celsius.
func FToC(f float64) float64 {
	return (f - 32) * 5 / 9
}

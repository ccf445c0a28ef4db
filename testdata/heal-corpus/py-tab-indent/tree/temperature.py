"""Convert temperatures between Celsius, Fahrenheit and Kelvin."""

SCALES = ("C", "F", "K")


def to_celsius(value, scale):
    """Return value, given in scale, in degrees Celsius."""
    if scale == "C":
        return value
    if scale == "F":
        return (value - 32) * 5 / 9
    if scale == "K":
	return value - 273.15
    raise ValueError("unknown scale %r" % scale)


def convert(value, src, dst):
    """Convert value from scale src to scale dst."""
    c = to_celsius(value, src)
    if dst == "C":
        return c
    if dst == "F":
        return c * 9 / 5 + 32
    if dst == "K":
        return c + 273.15
    raise ValueError("unknown scale %r" % dst)

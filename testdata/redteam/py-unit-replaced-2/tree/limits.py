"""Rate limits of the public API."""

REQUESTS_PER_MINUTE = 6000
BURST = 20

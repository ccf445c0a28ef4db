"""Geographic helpers."""

"""Plain-text reports."""

"""Text utilities for terminal output."""

"""The package's version, kept in one place."""

__version__ = "2.4.0"
VERSION_INFO = (2, 3, 0)

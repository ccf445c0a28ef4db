"""Small helpers over iterables."""

from .more import *  # noqa
from .recipes import *  # noqa

__version__ = '0.3.0'

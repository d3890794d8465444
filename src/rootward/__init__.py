"""rootward: self-hosted AI incident investigator."""

__version__ = "0.1.0"

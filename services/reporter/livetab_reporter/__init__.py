"""The reporter service."""

"""The inference service."""

"""A small shop's checkout helpers."""

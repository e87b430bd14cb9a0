"""Fakes that speak real wire protocols over localhost HTTP."""

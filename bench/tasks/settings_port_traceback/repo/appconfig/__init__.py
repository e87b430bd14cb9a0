"""The shop service's configuration."""

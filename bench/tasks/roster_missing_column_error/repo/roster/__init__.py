"""The club's member list."""

"""Tests of `funcgrad.numpy`: its namespace, creation, value-only functions and `random`."""

"""Alembic revisions, one file each: 0001_baseline.py, 0002_..., numbered in order."""

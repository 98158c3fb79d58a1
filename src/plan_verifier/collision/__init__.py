"""Collision geometry for the execution level: shapes, placed bodies, distance queries."""

"""Structured explanations built from results, and the catalogue of reasons."""

"""Predictive risk: which entities will cross a threshold before anyone is alerted, and how far it would reach."""

"""Analyses over many increments: quasi-static load stepping with cut-back, and dynamics (time integrators, mass, energy balance)."""

"""Solving one increment: contact state, residual and generalised Jacobian, linear-solver backends and the semismooth Newton method."""

"""Sensitivities: parameters of a model, quantities of interest, and their gradients by the
discrete adjoint of the converged semismooth system over every accepted increment."""

from . import qoi  # noqa: E402  (fecontact.qoi: the quantities of interest)

__all__ = ["qoi"]

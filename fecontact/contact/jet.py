"""Second-order forward-mode differentiation over batches of small functions.

Contact kinematics (gap, slip increment) are short closed-form functions of
the coordinates of a few nodes, evaluated for every contact node at once.
A :class:`Jet` carries, for a batch of ``m`` such evaluations, the value, the
gradient and the Hessian with respect to ``k`` local variables, so the exact
linearisation (first derivative for the operators ``B``, second derivative for
the geometric stiffness ``lambda * d2g/du2``) follows from writing the
kinematics once.  All operations are vectorised over the batch.

Shapes
------
``value (m,)``, ``grad (m, k)``, ``hess (m, k, k)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Jet:
    """Value, gradient and Hessian of a batch of scalar functions.

    Parameters
    ----------
    value : ndarray, shape (m,)
    grad : ndarray, shape (m, k)
    hess : ndarray, shape (m, k, k)
    """

    value: np.ndarray
    grad: np.ndarray
    hess: np.ndarray

    __array_ufunc__ = None   # make ``ndarray * Jet`` defer to ``Jet.__rmul__``

    @staticmethod
    def variables(x: np.ndarray) -> list["Jet"]:
        """Independent variables ``x[:, j]`` for ``j = 0..k-1``.

        Parameters
        ----------
        x : ndarray, shape (m, k)
        """
        m, k = x.shape
        eye = np.eye(k)
        zeros = np.zeros((m, k, k))
        return [Jet(x[:, j].copy(), np.broadcast_to(eye[j], (m, k)).copy(), zeros)
                for j in range(k)]

    @staticmethod
    def constant(c, like: "Jet") -> "Jet":
        """A constant ``c`` as a jet of the same batch and variables as ``like``.

        Parameters
        ----------
        c : float or ndarray, shape (m,)
        like : Jet
            Gives the batch size ``m`` and the number of variables ``k``.

        Returns
        -------
        Jet
            Value ``c`` broadcast to shape (m,), zero gradient (m, k) and Hessian (m, k, k).
        """
        m, k = like.grad.shape
        return Jet(np.broadcast_to(np.asarray(c, dtype=float), (m,)).copy(),
                   np.zeros((m, k)), np.zeros((m, k, k)))

    # unary chain rule: f(a) with f', f'' given
    def _unary(self, f, df, d2f) -> "Jet":
        g = self.grad
        return Jet(f, df[:, None] * g,
                   df[:, None, None] * self.hess
                   + d2f[:, None, None] * g[:, :, None] * g[:, None, :])

    def __add__(self, other):
        if isinstance(other, Jet):
            return Jet(self.value + other.value, self.grad + other.grad,
                       self.hess + other.hess)
        return Jet(self.value + other, self.grad, self.hess)

    __radd__ = __add__

    def __neg__(self):
        return Jet(-self.value, -self.grad, -self.hess)

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return (-self) + other

    def __mul__(self, other):
        if isinstance(other, Jet):
            a, b = self, other
            # a b'' + b a'' + a' b'^T + b' a'^T, summed in place (this order) to spare temporaries
            hess = a.value[:, None, None] * b.hess
            hess += b.value[:, None, None] * a.hess
            outer = a.grad[:, :, None] * b.grad[:, None, :]
            hess += outer
            hess += np.swapaxes(outer, 1, 2)
            return Jet(a.value * b.value, a.value[:, None] * b.grad + b.value[:, None] * a.grad, hess)
        c = np.asarray(other, dtype=float)
        return Jet(self.value * c, self.grad * c[..., None] if c.ndim else self.grad * c,
                   self.hess * c[..., None, None] if c.ndim else self.hess * c)

    __rmul__ = __mul__

    def reciprocal(self) -> "Jet":
        """``1 / a`` with its gradient and Hessian by the chain rule (no check for ``a = 0``)."""
        v = self.value
        return self._unary(1.0 / v, -1.0 / v**2, 2.0 / v**3)

    def __truediv__(self, other):
        if isinstance(other, Jet):
            return self * other.reciprocal()
        return self * (1.0 / np.asarray(other, dtype=float))

    def __rtruediv__(self, other):
        return self.reciprocal() * other

    def sqrt(self) -> "Jet":
        """``sqrt(a)`` with its gradient and Hessian by the chain rule (``a > 0`` for finite derivatives)."""
        s = np.sqrt(self.value)
        return self._unary(s, 0.5 / s, -0.25 / (s * self.value))


def dot(a, b) -> Jet:
    """Dot product of two small vectors given as sequences of jets or arrays."""
    out = a[0] * b[0]
    for ai, bi in zip(a[1:], b[1:]):
        out = out + ai * bi
    return out


def concatenate_jets(jets: list) -> Jet:
    """One batch from several batches of the same variables."""
    return Jet(np.concatenate([j.value for j in jets]), np.concatenate([j.grad for j in jets]),
               np.concatenate([j.hess for j in jets]))


def cross3(a, b) -> list:
    """Cross product of 3-vectors given as lists of three components (numbers, arrays or jets)."""
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def difference3(a, b) -> list:
    """``a - b`` of 3-vectors given as lists of three components (numbers, arrays or jets)."""
    return [a[i] - b[i] for i in range(3)]

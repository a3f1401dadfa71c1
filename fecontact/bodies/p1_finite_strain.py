r"""Fast total Lagrangian internal force and tangent of P1 triangles and tetrahedra.

On a simplex the gradients ``g_a`` of the barycentric coordinates (the P1
shape functions) are constant, so the deformation gradient is constant on
every element,

.. math::

    F = I + \sum_a u_a \otimes g_a, \qquad F_{iJ} = \delta_{iJ} + \sum_a u_{ai}\, g_{aJ},

and the integrals of :mod:`fecontact.bodies.finite_strain` need one stress
evaluation per element and no quadrature: element ``e`` of measure ``|e|``
contributes

.. math::

    f^e_{ai} = |e|\, P_{iJ}\, g_{aJ}, \qquad
    K^e_{ai,bk} = |e|\, g_{aJ}\, \mathbb{A}_{iJkL}\, g_{bL},

with ``P`` and :math:`\mathbb{A}_{iJkL} = \partial P_{iJ}/\partial F_{kL}` from
the material (:mod:`fecontact.bodies.hyperelastic`), row DOF ``(a, i)`` being
component ``i`` of the element's vertex ``a``.  The results equal the
scikit-fem forms to round-off in scikit-fem's interleaved layout (component
``c`` of vertex ``k`` is DOF ``dim*k + c``), the layout and the sparsity
pattern of :func:`fecontact.bodies.p1.p1_stiffness`; at ``u = 0`` the
tangent is that linear stiffness.

Arrays are stored element index last (``(dim+1, dim, n_elements)`` for the
gradients, ``(d, d, n_elements)`` for ``F`` and ``P``) so the vectorised
arithmetic runs on long contiguous rows.  The tangent is built one component
``(i, k)`` at a time: ``H_{aL} = |e| g_{aJ} A_{iJkL}`` then
``K^e_{ab} = H_{aL} g_{bL}`` (two small contractions, never the full
``(dim+1)^2 dim^2`` element array), summed into ``dim x dim`` blocks with one
:func:`numpy.bincount` per component as in :mod:`fecontact.bodies.p1`.

A :class:`P1Simplices` keeps the gradients and the block pattern of a mesh,
so repeated assemblies (Newton iterations) skip them; the functions
:func:`p1_force_and_tangent` and :func:`p1_internal_force` are one-shot
wrappers.  Their cost against the linear stiffness and scikit-fem's forms
is measured by ``docs/make_finite_strain_assembly.py``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .p1 import block_pattern, simplex_gradients

__all__ = ["P1Simplices", "p1_force_and_tangent", "p1_internal_force"]


class P1Simplices:
    """Gradients, measures and block pattern of a P1 mesh, for repeated finite-strain assembly.

    Parameters
    ----------
    p : ndarray, shape (dim, N)
        Vertex coordinates, ``dim`` 2 (triangles) or 3 (tetrahedra).
    t : ndarray of int, shape (dim+1, n_elements)
        Element vertices.

    Attributes
    ----------
    dim, n_vertices : int
    t : ndarray of int, shape (dim+1, n_elements)
    gradients : ndarray, shape (dim+1, dim, n_elements)
        ``gradients[a, J, e]``: component ``J`` of the gradient of the
        barycentric coordinate of vertex ``t[a, e]`` (element index last).
    measures : ndarray, shape (n_elements,)
        Areas or volumes.
    scaled_gradients : ndarray, shape (dim+1, dim, n_elements)
        ``measures * gradients``.

    Notes
    -----
    The block pattern (about ``(dim+1)^2 n_elements`` int64 indices, 16
    bytes per element pair in 3D) is built on the first tangent and kept.
    """

    def __init__(self, p: np.ndarray, t: np.ndarray):
        p = np.asarray(p, dtype=float)
        t = np.asarray(t)
        gradients, measures = simplex_gradients(p, t)       # transposed view of (dim+1, dim, n_el)
        self.dim, self.n_vertices = p.shape
        self.t = t
        self.gradients = np.ascontiguousarray(gradients.transpose(1, 2, 0))
        self.measures = measures
        self.scaled_gradients = self.gradients * measures
        self._pattern = None

    @property
    def n_dofs(self) -> int:
        """``dim * N``, the size of the displacement vector."""
        return self.dim * self.n_vertices

    def deformation_gradients(self, u: np.ndarray) -> np.ndarray:
        r"""``F = I + sum_a u_a (x) g_a`` of every element, shape (dim, dim, n_elements).

        Parameters
        ----------
        u : ndarray, shape (dim*N,)
            Nodal displacements, interleaved (DOF ``dim*k + c``).
        """
        d = self.dim
        u = np.asarray(u, dtype=float)
        if u.shape != (self.n_dofs,):
            raise ValueError(f"u must have shape ({self.n_dofs},), got {u.shape}")
        nodal = u.reshape(-1, d).T                                  # (dim, N)
        F = np.einsum("iae,aJe->iJe", nodal[:, self.t], self.gradients)   # (dim, dim, n_el)
        for i in range(d):
            F[i, i] += 1.0
        return F

    def force(self, material, u: np.ndarray) -> np.ndarray:
        """Internal force ``f_int(u)``, shape (dim*N,), from the stress ``P`` only.

        Uses ``material.first_piola(F)`` when the material has it (no
        tangent is formed), else ``material.stress(F)[0]``.

        Parameters
        ----------
        material : Hyperelastic
        u : ndarray, shape (dim*N,)
        """
        F = self.deformation_gradients(u)
        first_piola = getattr(material, "first_piola", None)
        P = first_piola(F) if first_piola is not None else material.stress(F)[0]
        return self._assemble_force(P)

    def force_and_tangent(self, material, u: np.ndarray) -> tuple[np.ndarray, sp.csr_matrix]:
        """``(f_int(u), K(u))`` from one stress evaluation.

        Parameters
        ----------
        material : Hyperelastic
            Gives ``stress(F) -> (P, A)`` on stacks ``F`` of shape (d, d, n).
        u : ndarray, shape (dim*N,)

        Returns
        -------
        f : ndarray, shape (dim*N,)
        K : scipy.sparse.csr_matrix, shape (dim*N, dim*N)
            With sorted indices and the pattern of
            :func:`fecontact.bodies.p1.p1_stiffness` (a full ``dim x dim``
            block for every vertex pair sharing an element).
        """
        P, A = material.stress(self.deformation_gradients(u))
        f = self._assemble_force(P)
        del P
        return f, self._assemble_tangent(A)

    def _assemble_force(self, P: np.ndarray) -> np.ndarray:
        """Sum ``|e| P_iJ g_aJ`` (element arrays (dim+1, n_el) per component) into (dim*N,)."""
        d, n = self.dim, self.n_vertices
        P = P * self.measures                                       # (dim, dim, n_el)
        vertices = self.t.ravel()
        f = np.empty((n, d))
        for i in range(d):
            local = np.einsum("Je,aJe->ae", P[i], self.gradients)  # (dim+1, n_el)
            f[:, i] = np.bincount(vertices, weights=local.ravel(), minlength=n)
        return f.ravel()

    def _assemble_tangent(self, A: np.ndarray) -> sp.csr_matrix:
        """Sum ``|e| g_aJ A_iJkL g_bL`` into ``dim x dim`` blocks and convert to CSR."""
        d, n = self.dim, self.n_vertices
        A = _element_last(A)
        block_of_pair, indptr, block_cols = self._block_pattern()
        n_blocks = block_cols.size
        data = np.empty((n_blocks, d, d))
        local = np.empty((d + 1, d + 1, self.measures.size))
        work = np.empty((2, d, d, self.measures.size))
        for i in range(d):
            for k in range(d):
                _component(self.scaled_gradients, self.gradients, A[i, :, k], local, work)
                data[:, i, k] = np.bincount(block_of_pair, weights=local.ravel(),
                                            minlength=n_blocks)
        del local, work, A
        K = sp.bsr_matrix((data, block_cols, indptr), shape=(d * n, d * n), blocksize=(d, d))
        del data
        K = K.tocsr()
        if not K.has_sorted_indices:
            K.sort_indices()
        return K

    def _block_pattern(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(block_of_pair, indptr, block_cols)`` of the BSR tangent, built once."""
        if self._pattern is None:
            block_of_pair, block_rows, block_cols = block_pattern(self.t, self.n_vertices)
            indptr = np.concatenate([[0], np.cumsum(np.bincount(block_rows,
                                                                minlength=self.n_vertices))])
            self._pattern = (block_of_pair, indptr, block_cols)
        return self._pattern


def _element_last(A: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """``A`` (d, d, d, d, n) as a C-contiguous array, copied by chunks of elements.

    Materials may return ``A`` stored element index first (the layout of
    their einsums); a plain copy to element-last order transposes a
    ``(n, d**4)`` table with long strides, chunks of elements keep both
    sides in cache (about twice as fast).
    """
    if A.flags.c_contiguous:
        return A
    out = np.empty(A.shape)
    for start in range(0, A.shape[-1], chunk):
        out[..., start:start + chunk] = A[..., start:start + chunk]
    return out


def _component(scaled: np.ndarray, g: np.ndarray, A_ik: np.ndarray, out: np.ndarray,
               work: np.ndarray) -> np.ndarray:
    r"""``K^e_{ab} = (|e| g_aJ A_JL) g_bL`` of one component ``(i, k)`` into ``out``.

    Only the vertices ``a, b >= 1`` are contracted; since ``g_0 = -sum_{a>=1}
    g_a`` the row and column of vertex 0 are minus the sums of the others.

    Parameters
    ----------
    scaled, g : ndarray, shape (dim+1, dim, n_el)
        ``|e| g_aJ`` and ``g_aJ``.
    A_ik : ndarray, shape (dim, dim, n_el)
        ``A[i, :, k]`` (``A_JL`` of the component), rows contiguous.
    out : ndarray, shape (dim+1, dim+1, n_el)
        Receives ``K^e_{ab}``, ordered like the block pattern's pairs.
    work : ndarray, shape (2, dim, dim, n_el)
        Scratch.
    """
    d = g.shape[1]
    H, product = work                                               # H_aL for a >= 1
    np.multiply(scaled[1:, 0, None, :], A_ik[0], out=H)
    for J in range(1, d):
        np.multiply(scaled[1:, J, None, :], A_ik[J], out=product)
        H += product
    inner = out[1:, 1:]
    np.multiply(H[:, None, 0, :], g[None, 1:, 0, :], out=inner)
    for L in range(1, d):
        np.multiply(H[:, None, L, :], g[None, 1:, L, :], out=product)
        inner += product
    np.sum(inner, axis=0, out=out[0, 1:])
    np.negative(out[0, 1:], out=out[0, 1:])
    np.sum(out[:, 1:], axis=1, out=out[:, 0])
    np.negative(out[:, 0], out=out[:, 0])
    return out


def p1_force_and_tangent(p: np.ndarray, t: np.ndarray, material,
                         u: np.ndarray) -> tuple[np.ndarray, sp.csr_matrix]:
    r"""Internal force and consistent tangent of a P1 hyperelastic body from one stress evaluation.

    ``f_ai = sum_e |e| P_iJ(F_e) g_aJ`` and ``K_ai,bk = sum_e |e| g_aJ
    A_iJkL(F_e) g_bL`` with ``F_e = I + sum_a u_a (x) g_a`` (module
    docstring); the same vector and matrix as
    :func:`fecontact.bodies.finite_strain.internal_force` and
    :func:`~fecontact.bodies.finite_strain.tangent_stiffness` on a P1
    basis, to round-off.

    Parameters
    ----------
    p : ndarray, shape (dim, N)
        Vertex coordinates (reference configuration).
    t : ndarray of int, shape (dim+1, n_elements)
        Element vertices (either orientation).
    material : Hyperelastic
        ``stress(F) -> (P, A)``, ``F`` of shape (d, d, n_elements).
    u : ndarray, shape (dim*N,)
        Displacement, interleaved: DOF ``dim*k + c`` is component ``c`` of vertex ``k``.

    Returns
    -------
    f : ndarray, shape (dim*N,)
    K : scipy.sparse.csr_matrix, shape (dim*N, dim*N)
        Sorted indices, the pattern of :func:`fecontact.bodies.p1.p1_stiffness`.
    """
    return P1Simplices(p, t).force_and_tangent(material, u)


def p1_internal_force(p: np.ndarray, t: np.ndarray, material, u: np.ndarray) -> np.ndarray:
    """Internal force ``f_ai = sum_e |e| P_iJ(F_e) g_aJ`` of a P1 hyperelastic body, shape (dim*N,).

    No tangent is formed: the material's ``first_piola(F)`` is used when it
    has one.  Parameters as :func:`p1_force_and_tangent`.
    """
    return P1Simplices(p, t).force(material, u)
